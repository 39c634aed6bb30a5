// A trace's capacity searched (`npm run bench -- --trace file --trace-search`): the fastest replay speed within the
// use case's limits, one k6 process per speed, against the simulator's default profile, each step judged against the
// simulator's own record of what it served. Runs in Node (vitest).
//
// As test/e2e/rate-search.test.ts: a step the client limited on a loaded machine is the client's figure, and then the
// test checks what the search stated (undetermined), not a speed.

import { readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBundles } from '../../orchestrator/bundles';
import { syntheticMooncake } from '../../scripts/synthetic-trace';
import { fetchGroundTruth, startSimChild, type SimChild } from '../../sim/child';
import type { GroundTruthRecord } from '../../sim/ground-truth';
import type { Report } from '../../report/report-types';
import { readJson, runBenchCli, tempDir, writePlan, type CliRun } from './helpers';

const LIMIT_MS = 1800;
/** 40 rows about 2 requests/s apart, 600-1100 prompt tokens, 100-128 out: the limit breaks near 4x on the profile. */
const ROWS = 40;
const TRACE = syntheticMooncake({
  rows: ROWS, meanGapMs: 500, seed: 5, prefixBlocks: [1], extraTokens: [88, 600], outputTokens: [100, 128],
});
const PLAN = {
  target: { metricsUrl: null },
  useCases: [{
    id: 'replay', contextTokens: 1200, outputTokens: 128, limits: [{ metric: 'e2e', operator: '<', value: LIMIT_MS }],
  }],
};
/** Within this share below the limit at the server, a step may still break it from the intended send (client lag). */
const CLIENT_MARGIN = 0.05;


let sim: SimChild;
let dir: string;
let run: CliRun;
let report: Report;
let steps: { cellId: string; records: GroundTruthRecord[]; serverMeanE2eMs: number }[];

beforeAll(async () => {
  await buildBundles();
  sim = await startSimChild(['--ground-truth']);
  dir = tempDir('trace-search-');
  const traceFile = path.join(dir, 'trace.jsonl');
  writeFileSync(traceFile, TRACE);
  run = await runBenchCli([
    '--plan', writePlan(dir, PLAN), '--trace', traceFile, '--trace-use-case', 'replay', '--trace-search',
    '--results', dir, '--run-id', 't', '--url', `${sim.base}/v1`,
  ]);
  // Kept beside the run: the search's lines say what it measured.
  writeFileSync(path.join(dir, 'bench-stderr.txt'), run.stderr);
  if (run.exitCode !== 0) throw new Error(`bench exited ${run.exitCode}: ${run.stderr.slice(-800)}`);
  const runDir = path.join(dir, 't');
  report = readJson<Report>(path.join(runDir, 'report.json'));
  const parts = readdirSync(runDir).filter((d) => d.startsWith('trace-search-')).sort();
  const truth = (await fetchGroundTruth(sim.base)).sort((a, b) => a.arrivalEpochMs - b.arrivalEpochMs);
  // The steps ran one after another, each replaying the trace's 40 rows: the server's records in arrival order, 40 a
  // step, after the few the bench's speed probe sent first.
  const replayed = truth.slice(truth.length - ROWS * parts.length);
  steps = parts.map((part, i) => {
    const plan = readJson<{ cells: { id: string }[] }>(path.join(runDir, part, 'plan.json'));
    const records = replayed.slice(i * ROWS, (i + 1) * ROWS);
    const e2e = records.map((r) => r.endEpochMs! - r.arrivalEpochMs);
    return { cellId: plan.cells[0]!.id, records, serverMeanE2eMs: e2e.reduce((a, b) => a + b, 0) / e2e.length };
  });
}, 900_000);

afterAll(async () => {
  await sim?.stop();
});

describe('npm run bench -- --trace --trace-search', () => {
  it('replayed every row once per step, one step per speed tried, from the recorded speed', () => {
    expect(steps.length).toBeGreaterThanOrEqual(2);
    // Each step's records are its rows, every length the trace holds once. Compared as sorted lists: two rows due a
    // millisecond apart can reach the server in either order on a busy machine, so arrival order is not row order.
    const byLength = (a: number, b: number): number => a - b;
    const lengths = TRACE.trim().split('\n').map((l) => (JSON.parse(l) as { output_length: number }).output_length);
    for (const s of steps) {
      expect(s.records.map((r) => r.completionTokens).sort(byLength), s.cellId).toEqual([...lengths].sort(byLength));
      expect(s.records.every((r) => r.outcome === 'completed'), s.cellId).toBe(true);
    }
    expect(steps[0]!.cellId).toBe('trace_s1');
  });

  it("judges every clean step as the server's own record does, and states the speed the report states", () => {
    const capacity = report.trace!.capacity!;
    for (const s of steps) {
      const cell = report.cells.find((c) => c.id === s.cellId)!;
      const step = capacity.result.steps.find((k) => k.cellId === s.cellId);
      if (cell.clientBound !== null || !step) continue;
      const why = `${s.cellId}: server mean e2e ${s.serverMeanE2eMs.toFixed(0)} ms`;
      if (s.serverMeanE2eMs >= LIMIT_MS) expect(step.ok, why).toBe(false);
      if (s.serverMeanE2eMs < LIMIT_MS * (1 - CLIENT_MARGIN)) expect(step.ok, why).toBe(true);
    }
    const line = /trace search: replay: (.*)$/m.exec(run.stderr)?.[1];
    expect(line, run.stderr.slice(-2000)).toBeDefined();
    if (/the client limited/.test(line!)) {
      expect(capacity.result.kind).toBe('undetermined');
      return;
    }
    const m = /^([\d.]+)x .*?, (breaks at ([\d.]+)x|no rate broke a limit)/.exec(line!);
    expect(m, line).not.toBeNull();
    expect(capacity.result.lastPass).toBe(Number(m![1]));
    if (m![3] !== undefined) {
      const breaks = Number(m![3]);
      expect(capacity.result.firstFail).toBe(breaks);
      const breakingId = capacity.result.steps.find((k) => k.concurrency === breaks)?.cellId;
      const breaking = steps.find((s) => s.cellId === breakingId);
      expect(breaking!.serverMeanE2eMs).toBeGreaterThan(LIMIT_MS * (1 - CLIENT_MARGIN));
    }
  });
});
