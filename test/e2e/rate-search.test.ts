// The searched rate capacity (plan rate.search) through `npm run bench` on a stock k6 against the simulator's default
// profile, each step judged against the simulator's own record of what it served. Runs in Node (vitest).
//
// The machine may be loaded: a step the client limited (sender behind, agent client-bound) is the client's figure, and
// the search says so and ends there; the test then checks what it stated (undetermined above the last clean pass), not
// a capacity. Every clean verdict is checked against the server's own e2e: a step whose requests took longer at the
// server than the limit must fail (the client's figure from the intended send can only be longer), and one well within
// it at the server must pass.

import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBundles } from '../../orchestrator/bundles';
import { fetchGroundTruth, startSimChild, type SimChild } from '../../sim/child';
import type { GroundTruthRecord } from '../../sim/ground-truth';
import type { Report } from '../../report/report-types';
import { readJson, runBenchCli, tempDir, writePlan, type CliRun } from './helpers';

const LIMIT_MS = 1800;
const PLAN = {
  target: { metricsUrl: null },
  useCases: [{
    id: 'short_code', contextTokens: 1024, outputTokens: 128,
    limits: [{ metric: 'e2e', operator: '<', value: LIMIT_MS }],
  }],
  rate: { useCases: ['short_code'], durationSeconds: 8, search: { startRate: 3 } },
};
/** Within this share below the limit at the server, a step may still break it from the intended send (client lag). */
const CLIENT_MARGIN = 0.05;

interface StepTruth {
  readonly part: string;
  readonly cellId: string;
  readonly scheduled: number;
  readonly records: GroundTruthRecord[];
  readonly serverMeanE2eMs: number;
}

/** The run nonce in a suite prompt's first line: one per k6 process, so one per step (lib/prompt-text.ts). */
function nonceOf(r: GroundTruthRecord): string {
  return /-(\d{6})\]/.exec(r.promptHead)?.[1] ?? '';
}

let sim: SimChild;
let dir: string;
let run: CliRun;
let report: Report;
let steps: StepTruth[];
let truth: GroundTruthRecord[];

beforeAll(async () => {
  await buildBundles();
  sim = await startSimChild(['--ground-truth']);
  dir = tempDir('rate-search-');
  run = await runBenchCli([
    '--plan', writePlan(dir, PLAN), '--scripts', 'rate', '--results', dir, '--run-id', 'r', '--url', `${sim.base}/v1`,
  ]);
  // Kept beside the run: the search's lines say what it measured.
  writeFileSync(path.join(dir, 'bench-stderr.txt'), run.stderr);
  if (run.exitCode !== 0) throw new Error(`bench exited ${run.exitCode}: ${run.stderr.slice(-800)}`);
  const runDir = path.join(dir, 'r');
  report = readJson<Report>(path.join(runDir, 'report.json'));
  truth = (await fetchGroundTruth(sim.base)).sort((a, b) => a.arrivalEpochMs - b.arrivalEpochMs);
  // The steps ran one after another, each a k6 process with a nonce of its own: group the server's records so. The
  // bench's speed probe (a server given by URL) sent the first few.
  const parts = readdirSync(runDir).filter((d) => d.startsWith('rate-search-')).sort();
  const nonces = [...new Set(truth.map(nonceOf))].slice(-parts.length);
  truth = truth.filter((r) => nonces.includes(nonceOf(r)));
  steps = parts.map((part, i) => {
    const plan = readJson<{ cells: { id: string; arrivals: { requests: number } }[] }>(
      path.join(runDir, part, 'plan.json'),
    );
    const records = truth.filter((r) => nonceOf(r) === nonces[i]);
    const e2e = records.map((r) => r.endEpochMs! - r.arrivalEpochMs);
    return {
      part, cellId: plan.cells[0]!.id, scheduled: plan.cells[0]!.arrivals.requests, records,
      serverMeanE2eMs: e2e.reduce((a, b) => a + b, 0) / e2e.length,
    };
  });
}, 900_000);

afterAll(async () => {
  await sim?.stop();
});

describe('npm run bench --scripts rate with rate.search', () => {
  it('ran each step as its own part, every scheduled request served once, none from the prefix cache', () => {
    // At least two: a second rate, or the first measured again when the client limited it (a loaded machine).
    expect(steps.length).toBeGreaterThanOrEqual(2);
    for (const s of steps) expect(s.records.length, s.part).toBe(s.scheduled);
    expect(truth.every((t) => t.outcome === 'completed')).toBe(true);
    expect(new Set(truth.map((t) => t.promptHead)).size).toBe(truth.length);
    expect(truth.filter((t) => t.cachedTokens > 0)).toHaveLength(0);
  });

  it("judges every clean step as the server's own record does", () => {
    const ladder = report.rates.find((r) => r.useCase.id === 'short_code')!;
    for (const s of steps) {
      const cell = report.cells.find((c) => c.id === s.cellId)!;
      if (cell.clientBound !== null) continue;
      const step = ladder.result.steps.find((k) => k.cellId === s.cellId);
      if (!step) continue;
      const why = `${s.cellId}: server mean e2e ${s.serverMeanE2eMs.toFixed(0)} ms`;
      if (s.serverMeanE2eMs >= LIMIT_MS) expect(step.ok, why).toBe(false);
      if (s.serverMeanE2eMs < LIMIT_MS * (1 - CLIENT_MARGIN)) expect(step.ok, why).toBe(true);
    }
  });

  it('states the searched capacity, its interval and the breaking rate, as the report and capacity.csv do', () => {
    const line = /rate search: short_code: (.*)$/m.exec(run.stderr)?.[1];
    expect(line, run.stderr.slice(-2000)).toBeDefined();
    const ladder = report.rates.find((r) => r.useCase.id === 'short_code')!;
    const csv = readFileSync(path.join(dir, 'r', 'capacity.csv'), 'utf8');
    expect(csv).toMatch(/^rate,short_code,/m);
    if (/the client limited/.test(line!)) {
      // A loaded machine: the search ended where the client limited a step twice, and the report agrees.
      expect(ladder.result.kind).toBe('undetermined');
      return;
    }
    const m = /^([\d.]+) req\/s \(95% ([\d.]+)-([\d.]+|open)\), breaks at ([\d.]+) req\/s/.exec(line!);
    expect(m, line).not.toBeNull();
    const [capacity, low, , breaks] = [Number(m![1]), Number(m![2]), m![3], Number(m![4])];
    expect(ladder.result.lastPass).toBe(capacity);
    expect(ladder.result.firstFail).toBe(breaks);
    expect(low).toBeLessThanOrEqual(capacity);
    // Narrowed to the plan's 5% (one 0.1/s grid step at least).
    expect(breaks - capacity).toBeLessThanOrEqual(Math.max(0.1, Math.floor(capacity * 10 * 0.05) / 10) + 1e-9);
    // The server's own record: the breaking step's requests took about the limit at the server, or more.
    const breaking = steps.find((s) => s.cellId === ladder.result.steps.find((k) => k.concurrency === breaks)?.cellId);
    expect(breaking!.serverMeanE2eMs).toBeGreaterThan(LIMIT_MS * (1 - CLIENT_MARGIN));
  });
});
