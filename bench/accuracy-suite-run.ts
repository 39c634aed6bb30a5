// The suite's runs in the accuracy study (bench/accuracy.ts): a stock k6 running the suite's own bundle (dist/sweep.js
// for a closed-loop level, dist/rate.js for an open-loop rate) with a fresh measuring agent, both on the client core,
// judged against the simulator's ground truth. Runs in Node.

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { arrivalTimesMs } from '../lib/arrivals';
import { drawnArrivals, resolvePlan, type PlanInput } from '../lib/plan';
import { parseRequestPrefix } from '../lib/prompt-text';
import { startAgent } from '../orchestrator/agent-process';
import { bundlePath, runArguments } from '../orchestrator/engine';
import { clearGroundTruth, fetchGroundTruth } from '../sim/child';
import type { ClosedLevel } from './accuracy-args';
import { judge, pairRequests, scheduleOrigin, type TruthRecord } from './accuracy-judge';
import { CLIENT_PREFIX, cpuMsOver, runPinned, streamingWindow } from './accuracy-run';
import { closedLoopRequests, openLoopRequests, suiteKey, SYSTEM_TAGS, type SuiteRead } from './accuracy-suite';
import type { Row } from './accuracy-table';
import { MODEL } from './peer-vllm-prompts';
import { sampleProcess } from './proc-sample';

/** What a suite run needs: the simulator (no /v1), the k6 binary, the shape of the requests. */
export interface SuiteContext {
  readonly base: string;
  readonly k6: string;
  readonly context: number;
}

/** How one run's CSV becomes requests, and each truth record's intended send time (open loop). */
interface Reading {
  readonly read: (csv: string, truth: readonly TruthRecord[]) => SuiteRead;
  readonly intendedOf: (t: TruthRecord) => number | null;
}

/** Runs one bundle with its plan and judges it; `level` names the row. */
async function runSuite(
  ctx: SuiteContext, row: Pick<Row, 'loop' | 'level'>, script: 'sweep' | 'rate', plan: PlanInput,
  reading: (truth: readonly TruthRecord[]) => Reading, timeoutMs: number,
): Promise<Row> {
  const dir = mkdtempSync(join(tmpdir(), 'accuracy-suite-'));
  try {
    writeFileSync(join(dir, 'plan-input.json'), JSON.stringify(plan));
    await clearGroundTruth(ctx.base);
    const agent = await startAgent({ prefix: CLIENT_PREFIX });
    const agentSampler = sampleProcess(agent.pid);
    let exit: Awaited<ReturnType<typeof runPinned>>;
    try {
      const env = {
        PLAN: join(dir, 'plan-input.json'), RESULTS_DIR: dir, LLM_AGENT: agent.url, BASE_URL: `${ctx.base}/v1`, MODEL,
      };
      const args = runArguments({ bundle: bundlePath(script), partDir: dir, env, tags: {} });
      args.splice(args.length - 1, 0, '--system-tags', SYSTEM_TAGS, '--no-usage-report');
      exit = await runPinned([ctx.k6, ...args], { cwd: dir, env: { K6_NO_USAGE_REPORT: 'true' }, timeoutMs });
    } finally {
      await agent.stop();
    }
    const agentUse = agentSampler.stop();
    const truth = (await fetchGroundTruth(ctx.base)) as unknown as TruthRecord[];
    let text: string;
    try {
      text = readFileSync(join(dir, 'samples.csv'), 'utf8');
    } catch {
      return { ...row, ...NONE, client: 'suite', note: `k6 exit ${exit.code}, no CSV: ${exit.tail}` };
    }
    const r = reading(truth);
    const read = r.read(text, truth);
    const pairing = pairRequests(read.requests, truth, suiteKey, r.intendedOf);
    const w = streamingWindow(truth);
    const k6Ms = cpuMsOver(exit.use, w.fromMs, w.toMs);
    const agentMs = cpuMsOver(agentUse, w.fromMs, w.toMs);
    const per = (ms: number): number => (ms * 1000) / Math.max(1, read.outputTokens);
    const notes = [
      exit.code !== 0 ? `k6 exit ${exit.code}: ${exit.tail}` : '', read.failed > 0 ? `${read.failed} failed` : '',
      pairing.clientOnly > 0 ? `${pairing.clientOnly} without ground truth` : '',
      pairing.truthOnly > 0 ? `${pairing.truthOnly} ground-truth records unpaired` : '',
    ];
    return {
      ...row, client: 'suite', judgement: judge(pairing.pairs), cpuUsPerToken: per(k6Ms + agentMs),
      cpuParts: `k6 ${per(k6Ms).toFixed(1)} + agent ${per(agentMs).toFixed(1)}`,
      peakRssMb: (exit.use.peakRssKb + agentUse.peakRssKb) / 1024, note: notes.filter((s) => s).join('; '),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const NONE = { judgement: null, cpuUsPerToken: null, cpuParts: '', peakRssMb: null } as const;

/** A closed-loop level: one sweep cell of `streams` users, `rounds` requests each, all of a round starting at once. */
export function suiteClosed(
  ctx: SuiteContext, level: ClosedLevel, label: string, rounds: number, tokens: number, ttftMs: number,
): Promise<Row> {
  const streamMs = ttftMs + (tokens * 1000) / level.tokensPerSecond;
  const cellSeconds = Math.ceil((rounds * streamMs * 3) / 1000 + 60);
  const plan = {
    target: { metricsUrl: null }, schedule: { cellSeconds },
    sweep: { contexts: [ctx.context], concurrencies: [level.streams], rounds, outputTokens: tokens },
  } as PlanInput;
  const reading = (): Reading => ({ read: (csv) => closedLoopRequests(csv), intendedOf: () => null });
  return runSuite(ctx, { loop: 'closed', level: label }, 'sweep', plan, reading, cellSeconds * 2000 + 120_000);
}

/** An open-loop rate: one rate cell, Poisson arrivals (seed 1) for `seconds`. */
export function suiteOpen(ctx: SuiteContext, rate: number, seconds: number, tokens: number): Promise<Row> {
  const plan: PlanInput = {
    target: { metricsUrl: null },
    useCases: [{
      id: 'u', contextTokens: ctx.context, outputTokens: tokens,
      limits: [{ metric: 'ttft', operator: '<', value: 2000 }],
    }],
    // Every request is judged against the server's record: no warm-up left out.
    rate: { useCases: ['u'], rates: [rate], durationSeconds: seconds, arrival: 'poisson', seed: 1, warmupSeconds: 0 },
  };
  const atMs = arrivalTimesMs(drawnArrivals(resolvePlan(plan, 'rate').cells[0]!.arrivals!));
  const indexOf = (t: TruthRecord): number | null => parseRequestPrefix(t.promptHead)?.iteration ?? null;
  const reading = (truth: readonly TruthRecord[]): Reading => {
    const indexed = truth.flatMap((t) => {
      const i = indexOf(t);
      return i === null || atMs[i] === undefined ? [] : [{ t, i }];
    });
    const origin = scheduleOrigin(indexed.map(({ t, i }) => ({ arrivalEpochMs: t.arrivalEpochMs, atMs: atMs[i]! })));
    const completed = indexed.filter(({ t }) => t.outcome === 'completed')
      .map(({ t, i }) => ({ key: suiteKey(t)!, index: i }));
    return {
      read: (csv) => openLoopRequests(csv, completed),
      intendedOf: (t) => {
        const i = indexOf(t);
        return i === null || atMs[i] === undefined ? null : origin + atMs[i];
      },
    };
  };
  return runSuite(ctx, { loop: 'open', level: `${rate} req/s` }, 'rate', plan, reading, seconds * 3000 + 120_000);
}
