// The open-loop benchmark's trace part: a synthetic Mooncake-format trace replayed at speed 1 by dist/trace.js on a
// stock k6, judged against the simulator's ground truth (issue 32's trace target). Runs in Node.
//
//   every row once   the server's arrivals and k6's llm_schedule_lag count against the trace's rows;
//   send times       each arrival's offset from the first, against the row's recorded offset (both sorted, so
//                    matched by order): p50 / p99 / max of the difference; target p99 within 5 ms;
//   lengths          the server's prompt and completion tokens per request against the rows' (sorted multisets);
//   prefix cache     the server's cached tokens over the prompt tokens, against the trace's own shared-prefix share
//                    (what a cache that never evicts serves): "in proportion" is within 10% of it.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { METRICS } from '../lib/metrics';
import { loadReplay } from '../lib/trace-replay';
import { startAgent } from '../orchestrator/agent-process';
import { clearGroundTruth, fetchGroundTruth } from '../sim/child';
import type { GroundTruthRecord } from '../sim/ground-truth';
import { preparePrompts } from '../tokenizer/prepare-prompts';
import { syntheticMooncake } from '../scripts/synthetic-trace';

/** The trace part's targets. */
export const TRACE_TARGETS = {
  /** Send offsets against the trace's, p99 of the absolute difference, ms. */
  sendP99Ms: 5,
  /** Cached share against the trace's shared-prefix share: at least this much of it (never more). */
  cachedShareOfTrace: 0.9,
} as const;

/** 2,000 rows at about 20 requests/s: prompts of 1-3 blocks of 512 tokens, two of them shared, 16-48 output tokens. */
export function benchTrace(rows: number, seed: number): string {
  return syntheticMooncake({ rows, meanGapMs: 50, seed, prefixBlocks: [1, 2], extraTokens: [64, 1000],
    outputTokens: [16, 48] });
}

export interface TraceFigures {
  readonly rows: number;
  readonly sent: number;
  readonly arrived: number;
  readonly failed: number;
  /** |arrival offset - row offset|, ms. */
  readonly sendError: { readonly p50: number; readonly p99: number; readonly max: number };
  /** k6's llm_schedule_lag: when each request was handed to the agent against its intended time, ms. */
  readonly lag: { readonly p50: number; readonly p99: number; readonly max: number };
  readonly inputMismatches: number;
  readonly outputMismatches: number;
  readonly cachedShare: number;
  readonly traceShare: number;
}

/** Sorted copies, compared element by element: how many places differ (the lists' length difference counts too). */
export function mismatches(a: readonly number[], b: readonly number[]): number {
  const x = [...a].sort((p, q) => p - q);
  const y = [...b].sort((p, q) => p - q);
  let n = Math.abs(x.length - y.length);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) n++;
  return n;
}

/**
 * How far each arrival is from its row's time, matched in sorted order, once the two clocks are aligned: the server
 * cannot know when k6 started the cell, so the origin is the median of (arrival - row time), which one late first
 * request cannot shift as it would an origin at the first arrival.
 */
export function sendErrorsMs(arrivalsMs: readonly number[], rowOffsetsMs: readonly number[]): number[] {
  const a = [...arrivalsMs].sort((p, q) => p - q);
  const r = [...rowOffsetsMs].sort((p, q) => p - q);
  const n = Math.min(a.length, r.length);
  const diffs = Array.from({ length: n }, (_, i) => a[i]! - r[i]!);
  const sorted = [...diffs].sort((p, q) => p - q);
  const origin = n === 0 ? 0 : sorted[Math.floor(n / 2)]!;
  return diffs.map((d) => Math.abs(d - origin));
}

/** What the replay did, from the trace's text, the ground truth and k6's summary statistics. */
export function traceFigures(
  text: string, truth: readonly GroundTruthRecord[], stat: (metric: string, s: string) => number,
  percentile: (values: readonly number[], p: number) => number,
): TraceFigures {
  const replay = loadReplay(text, {
    file: 'bench trace', format: 'mooncake', startSeconds: 0, durationSeconds: null, maxRequests: null,
    skipBadRows: false,
  });
  const rows = replay.rows;
  const errors = sendErrorsMs(truth.map((r) => r.arrivalEpochMs), rows.map((r) => r.atMs));
  const prompt = truth.reduce((n, r) => n + r.promptTokens, 0);
  return {
    rows: rows.length, sent: stat(METRICS.scheduleLag.name, 'count'), arrived: truth.length,
    failed: stat(METRICS.errors.name, 'count') || 0,
    sendError: { p50: percentile(errors, 0.5), p99: percentile(errors, 0.99), max: Math.max(...errors) },
    lag: {
      p50: stat(METRICS.scheduleLag.name, 'med'), p99: stat(METRICS.scheduleLag.name, 'p(99)'),
      max: stat(METRICS.scheduleLag.name, 'max'),
    },
    inputMismatches: mismatches(truth.map((r) => r.promptTokens), rows.map((r) => r.inputTokens)),
    outputMismatches: mismatches(truth.map((r) => r.completionTokens), rows.map((r) => r.outputTokens)),
    cachedShare: prompt > 0 ? truth.reduce((n, r) => n + r.cachedTokens, 0) / prompt : NaN,
    traceShare: replay.summary.stats.prefix?.share ?? NaN,
  };
}

/** How the part runs k6: the bench's arguments, pinned as the rate part's cells are. */
export type RunTraceK6 = (dir: string, planFile: string, agentUrl: string, env: Record<string, string>) =>
  Promise<{ code: number | null; tail: string }>;

/** What one replay of the trace gives back: its text, the simulator's ground truth, k6's summary and exit. */
export interface TracePartRun {
  text: string; truth: GroundTruthRecord[]; summaryText: string | null; code: number | null; tail: string;
}

/** Replays the bench trace once on a fresh agent; the ground truth and k6's summary come back for the figures. */
export async function runTracePart(
  base: string, runK6: RunTraceK6, agentPrefix: readonly string[], rows: number, seed: number,
): Promise<TracePartRun> {
  const dir = mkdtempSync(join(tmpdir(), 'open-loop-trace-'));
  try {
    const text = benchTrace(rows, seed);
    const traceFile = join(dir, 'trace.jsonl');
    writeFileSync(traceFile, text);
    const promptsFile = join(dir, 'prompts.json');
    const prompts = await preparePrompts({
      model: 'Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8', api: 'chat', contexts: [], tokenizer: 'qwen3',
      blockVocabulary: true,
    });
    writeFileSync(promptsFile, JSON.stringify(prompts));
    const planFile = join(dir, 'plan-input.json');
    writeFileSync(planFile, JSON.stringify({
      target: { metricsUrl: null }, trace: { file: traceFile, speeds: [1], useCase: 'code_completion' },
    }));
    await clearGroundTruth(base);
    const agent = await startAgent({ prefix: [...agentPrefix] });
    let exit: { code: number | null; tail: string };
    try {
      exit = await runK6(dir, planFile, agent.url, { PROMPTS: promptsFile });
    } finally {
      await agent.stop();
    }
    let summaryText: string | null = null;
    try {
      summaryText = readFileSync(join(dir, 'summary.json'), 'utf8');
    } catch {
      // No summary: the row says why from k6's exit code.
    }
    return { text, truth: await fetchGroundTruth(base), summaryText, ...exit };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const f = (v: number, d = 1): string => (Number.isFinite(v) ? v.toFixed(d) : 'n/a');
const met = (ok: boolean): string => (ok ? 'met' : '**missed**');

/** Which trace targets a replay met. */
export function traceTargetsMet(t: TraceFigures): { once: boolean; send: boolean; lengths: boolean; cache: boolean } {
  return {
    once: t.sent === t.rows && t.arrived === t.rows && t.failed === 0,
    send: t.sendError.p99 <= TRACE_TARGETS.sendP99Ms,
    lengths: t.inputMismatches === 0 && t.outputMismatches === 0,
    cache: t.cachedShare >= t.traceShare * TRACE_TARGETS.cachedShareOfTrace && t.cachedShare <= t.traceShare + 1e-9,
  };
}

export function renderTraceTable(t: TraceFigures, problem: string): string {
  const ok = traceTargetsMet(t);
  return [
    '| trace rows | sent / arrived (failed) | every row once | send offset error p50 / p99 / max (ms) | ' +
    'p99 <= 5 ms | k6 schedule lag p50 / p99 / max (ms) | length mismatches in / out | exact | ' +
    'cached share: server (trace) | in proportion | note |',
    '|---:|---:|:---:|---:|:---:|---:|---:|:---:|---:|:---:|---|',
    `| ${t.rows} | ${f(t.sent, 0)} / ${t.arrived} (${t.failed}) | ${met(ok.once)} | ${f(t.sendError.p50, 2)} / ` +
    `${f(t.sendError.p99, 2)} / ${f(t.sendError.max, 2)} | ${met(ok.send)} | ` +
    `${f(t.lag.p50, 2)} / ${f(t.lag.p99, 2)} / ` +
    `${f(t.lag.max, 2)} | ${t.inputMismatches} / ` +
    `${t.outputMismatches} | ${met(ok.lengths)} | ${f(t.cachedShare * 100)}% (${f(t.traceShare * 100)}%) | ` +
    `${met(ok.cache)} | ${problem.replace(/\|/g, '\\|')} |`,
    '',
    'send offset error: each server arrival against its row\'s time (both sorted), the clocks aligned on the median ' +
    'difference. cached share: the server\'s cached_tokens over its prompt tokens; the trace\'s, what a cache ' +
    'that never evicts serves (a row\'s leading hash ids seen before); in proportion = at least 90% of it, never more.',
  ].join('\n');
}
