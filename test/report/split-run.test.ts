// Tests for the report of a split run: runner folders found, merged, judged and named. Runs in Node (vitest).
//
// The oracle is the same run read whole: a fixture run's CSV is dealt out to n runner folders, as k6
// processes with execution segments would have written it, and the merged report must equal the report
// of the undivided CSV cell for cell.

import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runnerOf } from '../../lib/runner';
import { operatorSegmentFlags } from '../../lib/segments';
import { analyzeRun } from '../../report/generate';
import { DEFAULT_REPORT_OPTIONS } from '../../report/build-report';
import type { Report } from '../../report/report-types';
import { smallRunParts, writeRunFixture } from './fixtures/make-run';
import { nodeProgram } from '../../node/node-programs';
import { SYNC_CHILD_LIMIT } from '../sync-child';

const ROOT = resolve(import.meta.dirname, '../..');

/** runner.json of runner i of n, as the script writes it for the k6-operator's flags. */
function runnerJson(i: number, n: number): string {
  const [segment, sequence] = operatorSegmentFlags(i, n).map((flag) => flag.split('=')[1]!);
  const options = { executionSegment: segment, executionSegmentSequence: sequence, tags: { instance_id: String(i) } };
  return JSON.stringify(runnerOf(options)!.info);
}

/**
 * Deals a part folder's samples.csv out to runner-1..runner-n (each with the header, plan.json, summary.json and
 * runner.json): monitor rows to runner 1, which holds the monitor, the rest in turn.
 */
function splitPart(from: string, to: string, n: number): void {
  const [header, ...rows] = readFileSync(join(from, 'samples.csv'), 'utf8').split('\n').filter((line) => line !== '');
  const shares: string[][] = Array.from({ length: n }, () => []);
  let next = 0;
  for (const row of rows) shares[row.includes(',monitor,') ? 0 : next++ % n]!.push(row);
  mkdirSync(to, { recursive: true });
  cpSync(join(from, 'plan.json'), join(to, 'plan.json'));
  shares.forEach((share, i) => {
    const dir = join(to, `runner-${i + 1}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'samples.csv'), [header, ...share, ''].join('\n'));
    cpSync(join(from, 'summary.json'), join(dir, 'summary.json'));
    cpSync(join(from, 'plan.json'), join(dir, 'plan.json'));
    writeFileSync(join(dir, 'runner.json'), runnerJson(i + 1, n));
  });
}

/** A copy of a run folder whose parts are split n ways. */
function splitRun(from: string, to: string, n: number, parts: readonly string[]): void {
  cpSync(join(from, 'run.json'), join(to, 'run.json'));
  for (const part of parts) splitPart(join(from, part), join(to, part), n);
}

const figures = (r: Report) =>
  ({ cells: r.cells, useCases: r.useCases, gates: r.gates, totals: r.totals, bursts: r.bursts });

let base: string;
let whole: Report;
const PARTS = ['sweep', 'capacity', 'gate'] as const;

beforeAll(async () => {
  base = mkdtempSync(join(tmpdir(), 'k6llm-split-report-'));
  const parts = smallRunParts();
  const three = { sweep: parts.sweep!, capacity: parts.capacity!, gate: parts.gate! };
  writeRunFixture({ dir: join(base, 'whole'), parts: three, failEvery: 23, jitter: 0.1 });
  whole = await analyzeRun(join(base, 'whole'), DEFAULT_REPORT_OPTIONS);
  for (const n of [2, 3]) splitRun(join(base, 'whole'), join(base, `split${n}`), n, PARTS);
});

describe('a split run merged by the report', () => {
  it.each([2, 3])('split %i ways, equals the undivided run cell for cell, capacities and gate included', async (n) => {
    const merged = await analyzeRun(join(base, `split${n}`), DEFAULT_REPORT_OPTIONS);
    expect(figures(merged)).toEqual(figures(whole));
    expect(merged.incomplete).toBe(false);
    expect(merged.runNotes).toContain(
      `sweep ran split across ${n} k6 processes (execution segments); ${n} of ${n} runners' samples are merged, ` +
        "every figure is computed over their union, and k6's thresholds are judged again on the merged samples.",
    );
    expect(merged.warnings.filter((w) => w.kind === 'incomplete')).toEqual([]);
  });

  it("judges the plan's k6 thresholds again on the merged samples", async () => {
    const merged = await analyzeRun(join(base, 'split2'), DEFAULT_REPORT_OPTIONS);
    const gate = merged.parts.find((part) => part.name === 'gate')!;
    // The fixture's summary.json carries one made-up threshold; the merged judgement is the plan's own.
    expect(gate.thresholds.map((t) => `${t.metric} ${t.expression}`))
      .toContain('llm_ttft{cell:gate_general_chatbot_n2} avg<8000');
    expect(gate.thresholds.every((t) => t.ok)).toBe(whole.gates.every((g) => g.ok));
  });

  it('reads the runner folders given one by one, as a k6-operator volume holds them', async () => {
    const dirs = [1, 2].map((i) => join(base, 'split2', 'sweep', `runner-${i}`));
    const merged = await analyzeRun(dirs, DEFAULT_REPORT_OPTIONS);
    expect(merged.cells).toEqual(whole.cells.filter((cell) => cell.script === 'sweep'));
    expect(merged.runDir).toBe(join(base, 'split2', 'sweep'));
  });
});

/** The details of the report's "incomplete" warning: why, part by part. */
const incompleteCauses = (report: Report): readonly string[] =>
  report.warnings.find((w) => w.kind === 'incomplete')?.details ?? [];

describe('missing and unfinished runners', () => {
  it('names a runner without a folder, and the report is incomplete', async () => {
    const dir = join(base, 'missing');
    splitPart(join(base, 'whole', 'sweep'), dir, 3);
    rmSync(join(dir, 'runner-2'), { recursive: true });
    const report = await analyzeRun(dir, DEFAULT_REPORT_OPTIONS);
    expect(report.incomplete).toBe(true);
    expect(incompleteCauses(report)).toContain(
      'missing: runner 2 of 3 (segment 1/3:2/3) has no folder: its share of every cell is missing.',
    );
  });

  it('names a runner killed before its end: no summary.json, no runner.json, a cut CSV', async () => {
    const dir = join(base, 'killed');
    splitPart(join(base, 'whole', 'sweep'), dir, 2);
    rmSync(join(dir, 'runner-2', 'summary.json'));
    rmSync(join(dir, 'runner-2', 'runner.json'));
    const csv = join(dir, 'runner-2', 'samples.csv');
    truncateSync(csv, readFileSync(csv).length - 7);
    const report = await analyzeRun(dir, DEFAULT_REPORT_OPTIONS);
    expect(report.incomplete).toBe(true);
    const text = readFileSync(csv, 'utf8');
    expect(incompleteCauses(report)).toContain(
      'killed: runner-2 (no runner.json: which runner it was is unknown) did not finish (killed?): no summary.json, ' +
        `a samples.csv cut mid-line (${text.length - text.lastIndexOf('\n') - 1} bytes dropped).`,
    );
    expect(incompleteCauses(report)).toContain(
      'killed: runner 2 of 2 (segment 1/2:1) has no folder: its share of every cell is missing.',
    );
  });

  it('refuses the same runner twice and runners of different splits, in one line', async () => {
    const dirs = [1, 1].map((i) => join(base, 'split2', 'sweep', `runner-${i}`));
    await expect(analyzeRun(dirs)).rejects.toThrow(/^runner 1 of 2 \(segment 0:1\/2\) appears twice/);
    const mixed = [join(base, 'split2', 'sweep', 'runner-1'), join(base, 'split3', 'sweep', 'runner-2')];
    await expect(analyzeRun(mixed))
      .rejects.toThrow(/is a runner of a split 0,1\/3,2\/3,1 but .* of 0,1\/2,1: pass the folders of one run/);
  });
});

describe('npm run report -- --gate', () => {
  const report = (args: string[]): { code: number; stderr: string } => {
    try {
      const [program, ...lead] = nodeProgram('report');
      execFileSync(program!, [...lead, ...args], { cwd: ROOT, stdio: 'pipe', ...SYNC_CHILD_LIMIT });
      return { code: 0, stderr: '' };
    } catch (e) {
      const err = e as { status: number; stderr: Buffer };
      return { code: err.status, stderr: err.stderr.toString() };
    }
  };

  it('exits 99 on a split gate that breaks a limit on the merged samples, 0 on one that holds', () => {
    const slow = join(base, 'slow');
    writeRunFixture({ dir: join(slow, 'whole'), parts: { gate: smallRunParts().gate! }, slowdown: 40 });
    splitPart(join(slow, 'whole', 'gate'), join(slow, 'gate'), 2);
    const failed = report([join(slow, 'gate'), '--gate', '--out', join(slow, 'out')]);
    expect(failed.code).toBe(99);
    expect(failed.stderr)
      .toMatch(/^report: gate failed: \d+ failure\(s\): gate gate_general_chatbot_n2 \(General Chatbot\) broke TTFT/m);
    expect(report([join(base, 'split2', 'gate'), '--gate', '--out', join(base, 'out')]).code).toBe(0);
  });

  it('names a folder that is not a runner\'s in one line, exit 3', () => {
    const r = report([join(base, 'split2', 'sweep', 'runner-1'), join(base, 'whole')]);
    expect(r.code).toBe(3);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(
      "is not a runner's folder (no runner.json or samples.csv): with several folders, pass one per k6 runner",
    );
  });
});
