// End to end: the capacity search (steady state, bench-driven) against a dense fixed ladder (every step from 1 to 8
// users in k6 time slots), both on one recording simulator and judged by its own record of what it served. Runs in
// Node (vitest).
//
// The simulator runs in real time: a loaded machine slows what it serves, and then its capacity is rightly lower in
// the run it slowed (CI, 2026-12-07: the search found 5 users, the ladder 3, its 4-user step read below 100 tok/s).
// So each run is held to the server's record of its own steps, and both methods to loading the server alike; the two
// capacities must agree within a user unless the record shows the server itself served the runs differently.

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mean } from '../../analysis/stats';
import { METRICS } from '../../lib/metrics';
import { spanUnion, spanUnionMs, timeInside, type Span } from '../../lib/span-union';
import { readPlanFile } from '../../report/inputs';
import type { Report } from '../../report/report-types';
import { fetchGroundTruth, startSimChild, type SimChild } from '../../sim/child';
import type { GroundTruthRecord } from '../../sim/ground-truth';
import { extraTags, readCsv, readJson, recordOfSample, runBenchCli, tempDir, writePlan } from './helpers';
import { serverDecodeSpeeds } from './server-speed';
import { SPEED_LIMIT_TOK_S, TINY_CHAT_PLAN } from './tiny-chat-plan';

/** Within this share of the limit at the server, a step may read either way at the client (its reads, its clock). */
const CLIENT_MARGIN = 0.03;
/** The server's mean requests in flight over a step's measured requests may fall this far below its users. */
const IN_FLIGHT_SLACK = 0.25;

/** One step as the server served it: its measured requests' records, their mean speed, the mean held in flight. */
interface ServedStep {
  readonly cellId: string;
  readonly users: number;
  readonly measured: number;
  /** Times the step was measured (the search measures an unclear step again, under the same cell id). */
  readonly measurements: number;
  readonly records: number;
  readonly serverSpeed: number;
  readonly inFlight: number;
  /** The mean in flight the bench counted on the client's clock (plan.json driven.inFlight); null for the ladder. */
  readonly clientInFlight: number | null;
}

/** One run: its capacity as the report states it, its steps' verdicts, and each step as the server served it. */
interface LadderRun {
  readonly result: Report['useCases'][number]['result'];
  readonly clientBound: ReadonlySet<string>;
  readonly served: readonly ServedStep[];
}

/** The server's mean decode speed over the records: each request's own, from its token times. */
function serverSpeed(records: readonly GroundTruthRecord[]): number {
  return mean(serverDecodeSpeeds(records)) ?? NaN;
}

/** The time the server held requests in flight inside [from, to]: each record's time inside it, summed, ms. */
function heldMs(truth: readonly GroundTruthRecord[], part: Span): number {
  return truth.reduce((held, t) => held + timeInside([t.arrivalEpochMs, t.endEpochMs ?? part[1]], [part]), 0);
}

/**
 * Each step's measured requests as the server served them, paired by the x-request-id each sample names, and the
 * requests the server held in flight while they ran. Pairing by e2e and sample time mismatched steps under load, and
 * taking the records inside the measured stretch let in the step's last requests, which ran on into the next
 * step's load (CI, 2026-12-07: 96.6 tok/s over 15 records where the 10 measured ones had passed).
 */
function servedSteps(runDir: string, truth: readonly GroundTruthRecord[]): ServedStep[] {
  const plan = readPlanFile(path.join(runDir, 'capacity', 'plan.json'));
  const recordOf = recordOfSample(truth);
  const e2e = readCsv(path.join(runDir, 'capacity', 'samples.csv')).rows
    .filter((r) => r.metric_name === METRICS.e2e.name && extraTags(r).phase === 'measured');
  return plan.cells.map((c) => {
    const own = e2e.filter((r) => extraTags(r).cell === c.id);
    const records = own.flatMap((r) => recordOf(r) ?? []);
    // A step measured again later is two stretches of overlapping requests, another step between.
    const parts = spanUnion(records.map((t): Span => [t.arrivalEpochMs, t.endEpochMs ?? t.arrivalEpochMs]));
    const held = parts.reduce((a, p) => a + heldMs(truth, p), 0);
    return {
      cellId: c.id, users: c.concurrency, measured: own.length, measurements: c.driven?.measurements ?? 1,
      records: records.length, serverSpeed: serverSpeed(records), inFlight: held / spanUnionMs(parts),
      clientInFlight: c.driven?.inFlight ?? null,
    };
  });
}

/** Runs the bench's capacity part against the simulator, and reads what it found and what the server served. */
async function capacityRun(dir: string, runId: string, plan: object, extra: readonly string[]): Promise<LadderRun> {
  const r = await runBenchCli([
    '--plan', writePlan(dir, plan), '--scripts', 'capacity', '--results', dir, '--run-id', runId,
    '--url', `${sim.base}/v1`, ...extra,
  ]);
  expect(r.exitCode, r.stderr.slice(-2000)).toBe(0);
  const runDir = path.join(dir, runId);
  const report = readJson<Report>(path.join(runDir, 'report.json'));
  const result = report.useCases.find((u) => u.useCase.id === 'tiny_chat')!.result;
  const clientBound = new Set(report.cells.filter((c) => c.clientBound !== null).map((c) => c.id));
  const truth = await fetchGroundTruth(sim.base);
  // Kept beside the run for a look at a failure: what the bench said, and what the server served.
  writeFileSync(path.join(runDir, 'bench-stderr.txt'), r.stderr);
  writeFileSync(path.join(runDir, 'ground-truth.json'), JSON.stringify(truth));
  return { result, clientBound, served: servedSteps(runDir, truth) };
}

const describeStep = (s: ServedStep) => `${s.cellId}: server ${s.serverSpeed.toFixed(1)} tok/s over ${s.records} ` +
  `of ${s.measured} measured (x${s.measurements}), ${s.inFlight.toFixed(2)} in flight` +
  (s.clientInFlight === null ? '' : ` (${s.clientInFlight.toFixed(2)} at the client)`);

let sim: SimChild;
let dir: string;
let searched: LadderRun;
let ladder: LadderRun;

beforeAll(async () => {
  sim = await startSimChild(['--ground-truth']);
  dir = tempDir('ladder');
  searched = await capacityRun(dir, 's', TINY_CHAT_PLAN, []);
  const fixed = { ...TINY_CHAT_PLAN, schedule: { safetyFactor: 1.5, minCellSeconds: 1, gapSeconds: 0.2 } };
  ladder = await capacityRun(dir, 'l', fixed, ['--fixed-slots']);
  console.log([...searched.served, ...ladder.served].map(describeStep).join('\n'));
}, 300_000);

afterAll(async () => {
  await sim?.stop();
});

describe('the capacity search against a dense fixed ladder, on one recording simulator', () => {
  it('ran the ladder as planned: every step from 1 to 8, three rounds: the first warm-up, two measured', () => {
    const plan = readPlanFile(path.join(dir, 'l', 'capacity', 'plan.json'));
    expect(plan.cells.map((c) => c.concurrency)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(plan.cells.every((c) => c.warmupRounds === 1 && c.rounds === 3 && c.driven === undefined)).toBe(true);
  });

  it("judges every clean step of both runs as the server's own record does", () => {
    for (const run of [searched, ladder]) {
      for (const s of run.served) {
        const step = run.result.steps.find((k) => k.cellId === s.cellId);
        if (run.clientBound.has(s.cellId) || !step) continue;
        expect(s.records, describeStep(s)).toBe(s.measured);
        if (s.serverSpeed > SPEED_LIMIT_TOK_S * (1 + CLIENT_MARGIN)) expect(step.ok, describeStep(s)).toBe(true);
        if (s.serverSpeed < SPEED_LIMIT_TOK_S * (1 - CLIENT_MARGIN)) expect(step.ok, describeStep(s)).toBe(false);
      }
    }
  });

  it('loads the server alike in both: each step held its users in flight while its requests were measured', () => {
    // Steady state (the search) and all users started together (the ladder) must both measure n requests at once.
    for (const s of [...searched.served, ...ladder.served]) {
      expect(s.inFlight, describeStep(s)).toBeLessThanOrEqual(s.users + 0.01);
      expect(s.inFlight, describeStep(s)).toBeGreaterThanOrEqual(s.users - IN_FLIGHT_SLACK * s.users);
    }
  });

  it("states each searched step's delivered load as the server saw it, or more: sent but not yet read there", () => {
    // Each request's time at the server lies inside its time at the client, so the client can only count more.
    for (const s of searched.served) {
      expect(s.clientInFlight, describeStep(s)).not.toBeNull();
      expect(s.clientInFlight!, describeStep(s)).toBeLessThanOrEqual(s.users + 0.01);
      expect(s.clientInFlight!, describeStep(s)).toBeGreaterThanOrEqual(s.inFlight - 0.02 * s.users);
    }
  });

  it('agrees within its resolution (1 user), unless the server served a smaller step slower than a larger one', () => {
    if (searched.result.kind === 'undetermined' || ladder.result.kind === 'undetermined') {
      // A step the client limited decides nothing: the report says so, with the steps that would have.
      const undetermined = [searched, ladder].filter((run) => run.result.kind === 'undetermined');
      for (const run of undetermined) expect(run.clientBound.size).toBeGreaterThan(0);
      return;
    }
    expect([searched.result.kind, ladder.result.kind]).toEqual(['within', 'within']);
    const [s, l] = [searched.result.lastPass!, ladder.result.lastPass!];
    if (Math.abs(s - l) <= 1) return;
    // The lower run's first failing step against the higher run's last passing one, which has more users: only a
    // server slowed in the lower run (the machine's load, not the method) serves fewer users more slowly.
    const [low, high] = s < l ? [searched, ladder] : [ladder, searched];
    const at = (run: LadderRun, users: number) => run.served.find((x) => x.users === users)!;
    const failed = at(low, low.result.firstFail!);
    const passed = at(high, high.result.lastPass!);
    expect(failed.serverSpeed, `search ${s}, ladder ${l}: ${describeStep(failed)}; ${describeStep(passed)}`)
      .toBeLessThan(passed.serverSpeed);
  });
});
