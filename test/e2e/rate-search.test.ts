// The searched rate capacity (plan rate.search) through `npm run bench --runners 2` on a stock k6 against the
// simulator's default profile, each step split over two k6 processes (k6-operator command lines, an agent each) and
// judged against the simulator's own record of what it served. Runs in Node (vitest).
//
// Split: each step's cell has a sender per runner, and each runner sends every second request of the one seeded
// schedule. The simulator's record shows every scheduled request served once, each runner's share the schedule's
// alternate requests, and each request arriving at its own intended time (the runner's cell start plus its place in
// the schedule) within the lag the client itself measured. The merged report states what one process would: the
// scheduled and ended requests, the offered and achieved rate, the warm-up's requests left out.
//
// The machine may be loaded or paused: a step the client limited (sender behind, agent client-bound, the machine
// stalled under the agent: then requests were cut at the step's end) is the client's figure, and the search says so,
// measures it again, and ends there when it is limited twice; the test then checks what it stated (undetermined
// above the last clean pass), not a capacity. Every clean verdict is checked against the server's own e2e of the
// step's measured requests: a step whose requests took longer at the server than the limit must fail (the client's
// figure from the intended send can only be longer), and one well within it at the server must pass.

import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arrivalTimesMs } from '../../lib/arrivals';
import { drawnArrivals, type Plan } from '../../lib/plan';
import { parseRequestPrefix } from '../../lib/prompt-text';
import { buildBundles } from '../../orchestrator/bundles';
import { fetchGroundTruth, type SimChild } from '../../sim/child';
import type { GroundTruthRecord } from '../../sim/ground-truth';
import type { Report } from '../../report/report-types';
import {
  extraTags, readCsv, readJson, runBenchCli, startRecordingSim, tempDir, writePlan, type CliRun,
} from './helpers';

const LIMIT_MS = 1800;
const RUNNERS = 2;
const PLAN = {
  target: { metricsUrl: null },
  useCases: [{
    id: 'short_code', contextTokens: 1024, outputTokens: 128,
    limits: [{ metric: 'e2e', operator: '<', value: LIMIT_MS }],
  }],
  // Steps of 6 s, the first 2 s warm-up: a split step costs about 2 s more than one process's, which this pays back.
  rate: { useCases: ['short_code'], durationSeconds: 6, search: { startRate: 3 } },
};
/** Within this share below the limit at the server, a step may still break it from the intended send (client lag). */
const CLIENT_MARGIN = 0.05;
/**
 * From the agent starting a request to the simulator stamping its arrival (loopback connect, the request's bytes, the
 * simulator's event loop), beyond the lag the client measured: the room given to the server's arrival stamps.
 */
const SERVER_STAMP_MARGIN_MS = 25;

/** One runner's part of a step: its records, each with its place in the step's schedule, and its lag as measured. */
interface RunnerTruth {
  readonly records: readonly { readonly index: number; readonly record: GroundTruthRecord }[];
  /** The schedule lag the runner's k6 pushed, one per request sent, ms. */
  readonly lagsMs: readonly number[];
}

interface StepTruth {
  readonly part: string;
  readonly cellId: string;
  readonly arrivals: NonNullable<Plan['cells'][number]['arrivals']>;
  /** The step's intended send times, ms from the cell's start. */
  readonly atMs: readonly number[];
  readonly runners: readonly RunnerTruth[];
  /** The server's mean e2e of the step's measured requests (those after the warm-up). */
  readonly serverMeanE2eMs: number;
}

/** The run nonce in a suite prompt's first line: one per k6 process (lib/prompt-text.ts). */
function nonceOf(r: GroundTruthRecord): number {
  return Number(/-(\d{6})\]/.exec(r.promptHead)?.[1] ?? -1);
}

/** A runner's records by its nonce (summary.json's setup data), each at its place in the schedule (its prompt line). */
function runnerTruth(runnerDir: string, cellId: string, truth: readonly GroundTruthRecord[]): RunnerTruth {
  const summary = readJson<{ setup_data: { runNonce: number } }>(path.join(runnerDir, 'summary.json'));
  const nonce = summary.setup_data.runNonce;
  const records = truth.filter((r) => nonceOf(r) === nonce)
    .map((record) => ({ index: parseRequestPrefix(record.promptHead)!.iteration, record }));
  const lags = readCsv(path.join(runnerDir, 'samples.csv')).rows
    .filter((row) => row.metric_name === 'llm_schedule_lag' && extraTags(row).cell === cellId)
    .map((row) => Number(row.metric_value));
  return { records, lagsMs: lags };
}

function stepTruth(runDir: string, part: string, truth: readonly GroundTruthRecord[]): StepTruth {
  const plan = readJson<Plan>(path.join(runDir, part, 'plan.json'));
  const cell = plan.cells[0]!;
  const atMs = arrivalTimesMs(drawnArrivals(cell.arrivals!));
  const runners = Array.from({ length: RUNNERS }, (_, i) =>
    runnerTruth(path.join(runDir, part, `runner-${i + 1}`), cell.id, truth));
  const measured = runners.flatMap((r) => r.records)
    .filter((r) => atMs[r.index]! >= cell.arrivals!.warmupSeconds * 1000)
    .map((r) => r.record.endEpochMs! - r.record.arrivalEpochMs);
  return {
    part, cellId: cell.id, arrivals: cell.arrivals!, atMs, runners,
    serverMeanE2eMs: measured.reduce((a, b) => a + b, 0) / measured.length,
  };
}

/** The q-quantile of values (nearest rank). */
function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** Lines of figures the split test measured: each runner's lateness at the server beside its own lag. */
const lateness: string[] = [];

/**
 * A runner's cell start on the server's clock (its requests' arrivals less their places in the schedule, the earliest),
 * once its requests are checked: all at one place modulo the runners, and, unless the report calls the step
 * client-bound, their lateness after their intended times at the server (from the earliest) no more at p50 and p99
 * than the lag the client measured (from its least), with room for the server's own stamps. The latest is stated, not
 * judged: one late stamp is the simulator's event loop.
 */
function runnerStart(s: StepTruth, r: RunnerTruth, what: string, clientBound: boolean): number {
  expect(new Set(r.records.map((x) => x.index % RUNNERS)).size, what).toBe(1);
  const offsets = r.records.map((x) => x.record.arrivalEpochMs - s.atMs[x.index]!);
  const start = Math.min(...offsets);
  const late = offsets.map((o) => o - start);
  const lagFloor = Math.min(...r.lagsMs);
  const lag = r.lagsMs.map((l) => l - lagFloor);
  const f = (values: readonly number[]) =>
    [0.5, 0.99].map((q) => quantile(values, q).toFixed(1)).join(' / ') + ` / ${Math.max(...values).toFixed(1)}`;
  lateness.push(`${what}: ${r.records.length} requests, late at the server p50/p99/max ${f(late)} ms, ` +
    `client lag ${f(lag)} ms${clientBound ? ' (client-bound: not judged)' : ''}`);
  // A client-bound step's agent started its requests late on its own core, after the stamp its lag is read from.
  if (clientBound) return start;
  for (const q of [0.5, 0.99]) {
    expect(quantile(late, q), `${what}: lateness p${q * 100} at the server`)
      .toBeLessThanOrEqual(quantile(lag, q) + SERVER_STAMP_MARGIN_MS);
  }
  return start;
}

let sim: SimChild;
let dir: string;
let run: CliRun;
let report: Report;
let steps: StepTruth[];
let truth: GroundTruthRecord[];
/** The steps in which the machine stopped running an agent (the bench's line): their requests may be cut. */
let stalled: Set<string>;
/** A step the client limited: its cell client-bound in the report, or its part stalled. */
const limited = (s: StepTruth): boolean =>
  stalled.has(s.part) || report.cells.find((c) => c.id === s.cellId)!.clientBound !== null;

beforeAll(async () => {
  await buildBundles();
  sim = await startRecordingSim(['--ground-truth']);
  dir = tempDir('rate-search-');
  run = await runBenchCli([
    '--plan', writePlan(dir, PLAN), '--scripts', 'rate', '--results', dir, '--run-id', 'r', '--url', `${sim.base}/v1`,
    '--runners', String(RUNNERS),
  ]);
  // Kept beside the run: the search's lines say what it measured.
  writeFileSync(path.join(dir, 'bench-stderr.txt'), run.stderr);
  if (run.exitCode !== 0) throw new Error(`bench exited ${run.exitCode}: ${run.stderr.slice(-800)}`);
  const runDir = path.join(dir, 'r');
  report = readJson<Report>(path.join(runDir, 'report.json'));
  truth = await fetchGroundTruth(sim.base);
  // The steps ran one after another, each as two k6 processes with a nonce each; the bench's speed probe (a server
  // given by URL) sent a few requests of its own, which no runner's nonce names.
  const parts = readdirSync(runDir).filter((d) => d.startsWith('rate-search-')).sort();
  steps = parts.map((part) => stepTruth(runDir, part, truth));
  stalled = new Set([...run.stderr.matchAll(/^(rate-search-\d+): the machine stopped running/gm)].map((m) => m[1]!));
}, 900_000);

afterAll(async () => {
  await sim?.stop();
});

describe('npm run bench --scripts rate --runners 2 with rate.search: the split', () => {
  it('ran each step as its own part on both runners, every scheduled request served once, none cached', () => {
    // At least two: a second rate, or the first measured again when the client limited it (a loaded machine).
    expect(steps.length).toBeGreaterThanOrEqual(2);
    const served = steps.flatMap((s) => s.runners.flatMap((r) => r.records.map((x) => x.record)));
    for (const s of steps) {
      expect(s.arrivals.senders, s.part).toBe(RUNNERS);
      const indexes = s.runners.flatMap((r) => r.records.map((x) => x.index)).sort((a, b) => a - b);
      // A stalled step's late requests were cut at its end, some before they were sent: each served once at most.
      if (stalled.has(s.part)) expect(new Set(indexes).size, s.part).toBe(indexes.length);
      else expect(indexes, s.part).toEqual(s.atMs.map((_, i) => i));
    }
    const clean = steps.filter((s) => !stalled.has(s.part));
    const cleanServed = clean.flatMap((s) => s.runners.flatMap((r) => r.records.map((x) => x.record)));
    expect(cleanServed.every((t) => t.outcome === 'completed')).toBe(true);
    expect(new Set(served.map((t) => t.promptHead)).size).toBe(served.length);
    expect(served.filter((t) => t.cachedTokens > 0)).toHaveLength(0);
  });

  it("gave each runner every second request of the schedule, each at its intended time within the client's lag",
    () => {
      // A stalled step's lateness is the pause's; a runner of it may have sent nothing before it was cut.
      const skews = steps.filter((s) => !stalled.has(s.part)).map((s) => {
        const bound = limited(s);
        const starts = s.runners.map((r, k) => runnerStart(s, r, `${s.part} runner ${k + 1}`, bound));
        expect(new Set(s.runners.map((r) => r.records[0]!.index % RUNNERS)).size, s.part).toBe(RUNNERS);
        return Math.max(...starts) - Math.min(...starts);
      });
      // The runners' cells start together (resumed at once, cells 1 s after): their starts apart by tens of ms.
      lateness.push(`runners' cell starts apart: ${skews.map((x) => x.toFixed(1)).join(', ')} ms`);
      writeFileSync(path.join(dir, 'split-lateness.txt'), lateness.join('\n'));
      console.log(lateness.join('\n'));
      expect(Math.max(...skews)).toBeLessThan(250);
    });

  it('merges the runners into the cell one process would have measured: requests, rates and warm-up', () => {
    for (const s of steps) {
      const cell = report.cells.find((c) => c.id === s.cellId)!;
      const o = cell.openLoop!;
      const warmup = s.atMs.filter((t) => t < s.arrivals.warmupSeconds * 1000).length;
      const whole = [s.atMs.length, s.atMs.length, s.arrivals.ratePerSecond];
      if (stalled.has(s.part)) {
        // Requests cut at the pause's end, some never sent: the schedule is the plan's, fewer ended.
        expect([o.scheduled, o.offeredRate], s.part).toEqual([s.atMs.length, s.arrivals.ratePerSecond]);
        expect(o.ended, s.part).toBeLessThanOrEqual(o.scheduled);
        continue;
      }
      expect([o.scheduled, o.ended, o.offeredRate], s.part).toEqual(whole);
      expect([cell.warmupRequests, cell.requests], s.part).toEqual([warmup, s.atMs.length - warmup]);
      // Both senders' shares: a rate summed over the runners, not one runner's half.
      expect(o.achievedRate! / o.offeredRate, s.part).toBeGreaterThan(cell.clientBound === null ? 0.98 : 0.5);
      expect(o.achievedRate! / o.offeredRate, s.part).toBeLessThan(1.02);
    }
  });

});

describe('npm run bench --scripts rate --runners 2 with rate.search: the search', () => {
  it("judges every clean step as the server's own record does", () => {
    const ladder = report.rates.find((r) => r.useCase.id === 'short_code')!;
    for (const s of steps) {
      if (limited(s)) continue;
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
