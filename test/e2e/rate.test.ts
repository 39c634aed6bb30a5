// The rate script (open-loop arrivals) on a stock k6 against the simulator: every request of the seeded schedule sent
// once, the gaps the simulator saw shaped as the schedule's, the lag and latency from the intended send pushed per
// request, and the report's "Open-Loop Load" with its capacity in requests per second. Runs in Node (vitest).
// Nothing here judges how late a request went: that is the open-loop benchmark's (bench/open-loop.ts); the shape of
// 200 gaps of 50 ms on average does not move with a few ms of lag.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { arrivalTimesMs } from '../../lib/arrivals';
import { METRICS } from '../../lib/metrics';
import { drawnArrivals, type Plan } from '../../lib/plan';
import { parseRequestPrefix } from '../../lib/prompt-text';
import { queueGrowth, type QueueGrowth } from '../../analysis/open-loop';
import { readSummaryData, type SummaryData } from '../../lib/summary-data';
import { buildBundles } from '../../orchestrator/bundles';
import { generateReport } from '../../report/generate';
import { readPlanFile } from '../../report/inputs';
import { DEFAULT_REPORT_OPTIONS } from '../../report/build-report';
import type { Report } from '../../report/report-types';
import { startSim, type GroundTruthRecord } from '../../sim/server';
import { readJson, runScript } from './helpers';

const MODEL = 'Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8';
const SEED = 11;
/** 20 requests/s for 10 s (200 requests), then 60/s (600). */
const PLAN = {
  target: { metricsUrl: null },
  useCases: [
    {
      id: 'tiny', contextTokens: 256, outputTokens: 16, limits: [{ metric: 'ttft', operator: '<', value: 60 }],
    },
  ],
  // No lag judged here (a busy machine sets it; bench/open-loop.ts measures it): a limit no run reaches.
  rate: { useCases: ['tiny'], rates: [20, 60], durationSeconds: 10, arrival: 'poisson', seed: SEED, lagLimitMs: 1000 },
  schedule: {
    prefillTokensPerSecond: 100_000, decodeTokensPerSecond: 100, safetyFactor: 2, minCellSeconds: 1, gapSeconds: 0.5,
  },
};

function cv(gaps: readonly number[]): number {
  const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
  return Math.sqrt(gaps.reduce((a, g) => a + (g - mean) ** 2, 0) / (gaps.length - 1)) / mean;
}

const gapsOf = (times: readonly number[]): number[] => times.slice(1).map((t, i) => t - times[i]!);

/**
 * Every request of the schedule sent and completed once, each with a prompt of its own by the simulator's record of
 * each prompt's first line, and nothing served from the prefix cache: the second cell once repeated the first's lines
 * (issue 43).
 */
function expectEachOnce(truth: readonly GroundTruthRecord[], requests: number): void {
  expect(truth).toHaveLength(requests);
  expect(truth.every((t) => t.outcome === 'completed')).toBe(true);
  expect(new Set(truth.map((t) => t.promptHead)).size).toBe(truth.length);
  expect(truth.filter((t) => t.cachedTokens > 0)).toHaveLength(0);
}

/**
 * A cell's queue as the simulator's record has it: each measured request's end less its intended send, in end order,
 * through the report's own queueGrowth. The intended sends are the schedule's offsets (by each prompt's line) from the
 * cell's start, taken where the least late request arrived.
 */
function recordQueue(plan: Plan, cellId: string, truth: readonly GroundTruthRecord[]): QueueGrowth {
  const arrivals = plan.cells.find((c) => c.id === cellId)!.arrivals!;
  const atMs = arrivalTimesMs(drawnArrivals(arrivals));
  const iterations = truth.map((t) => parseRequestPrefix(t.promptHead)!.iteration);
  const first = Math.min(...iterations);
  const sent = truth.map((t, k) => ({ t, atMs: atMs[iterations[k]! - first]! }));
  const startMs = Math.min(...sent.map((s) => s.t.arrivalEpochMs - s.atMs));
  const measured = sent.filter((s) => s.atMs >= arrivals.warmupSeconds * 1000)
    .sort((a, b) => a.t.endEpochMs! - b.t.endEpochMs!);
  return queueGrowth(measured.map((s) => s.t.endEpochMs! - startMs - s.atMs))!;
}

/**
 * The rate capacity judged from the intended send, and each cell's queue growth (its later half's mean e2e from the
 * intended send less its earlier half's) read as the record has it: the fixed-timing server keeps up on a quiet
 * machine, but a busy one can make its timers or the sender late (CI, 2026-12-07: the 60/s cell's queue read as
 * growing), and then the record shows the same growth. The rise, not the levels: on a busy machine the record's ends
 * read tens of ms after the client's (45 ms here beside four busy loops: the simulator runs in this test's process),
 * which moves both halves alike; the rises agreed to 0.1 ms.
 */
function expectIntendedAsRecorded(report: Report, plan: Plan, truth: readonly GroundTruthRecord[]): void {
  expect(report.rates[0]!.latencyFrom).toBe('intended');
  const cells: [string, GroundTruthRecord[]][] = [['rate_tiny_r20', truth.slice(0, 200)], ['rate_tiny_r60',
    truth.slice(200)]];
  for (const [id, records] of cells) {
    const read = report.cells.find((c) => c.id === id)!.openLoop!.queue!;
    const served = recordQueue(plan, id, records);
    const why = `${id}: early ${read.earlyMs.toFixed(1)} / ${served.earlyMs.toFixed(1)} ms, late ` +
      `${read.lateMs.toFixed(1)} / ${served.lateMs.toFixed(1)} ms (client / record); growing: ${read.growing} / ` +
      `${served.growing}`;
    console.log(why);
    const rise = (q: QueueGrowth) => q.lateMs - q.earlyMs;
    expect(Math.abs(rise(read) - rise(served)), why).toBeLessThan(2 + 0.02 * served.earlyMs);
  }
}

/**
 * The rate capacity more than 60 requests/s, both cells within the limit. On a loaded machine the agent can read a
 * cell's tokens late (analysis/client-bound.ts): that cell is the client's figure, left out of the ladder, and a
 * capacity it would decide is undetermined. The test once failed so here (60 requests/s, 600 streams in 10 s, on a
 * shared 2-core machine); the clean cells are still judged.
 */
function expectRateCapacity(report: Report, md: string): void {
  const [rate] = report.rates;
  expect(rate!.useCase.id).toBe('tiny');
  expect(md).toContain('## Open-Loop Load');
  const bound = report.cells.filter((c) => c.openLoop && c.clientBound !== null).map((c) => c.openLoop!.offeredRate);
  expect(rate!.result.steps.map((s) => s.concurrency)).toEqual([20, 60].filter((r) => !bound.includes(r)));
  if (bound.length > 0) {
    const stated = bound.includes(60) ? /^undetermined: client-bound at (20, )?60/ : /^more than 60$/;
    expect(rate!.result.display).toMatch(stated);
    return;
  }
  expect(rate!.result.display).toBe('more than 60');
  expect(md).toContain('| tiny | more than 60 req/s | more than 60 | none | 20, 60 |');
}

/** The plan's default warm-up: the requests meant for a cell's first 2 s are sent but not in its figures. */
function expectWarmupLeftOut(plan: ReturnType<typeof readPlanFile>, report: Report): void {
  for (const c of plan.cells) {
    expect(c.arrivals!.warmupSeconds).toBe(2);
    const warmup = arrivalTimesMs(drawnArrivals(c.arrivals!)).filter((t) => t < 2000).length;
    const stats = report.cells.find((r) => r.id === c.id)!;
    expect([stats.warmupRequests, stats.requests, stats.openLoop!.ended], c.id)
      .toEqual([warmup, c.arrivals!.requests - warmup, c.arrivals!.requests]);
  }
}

describe('npm run bench --scripts rate: open-loop arrivals on k6', () => {
  let sim: Awaited<ReturnType<typeof startSim>>;
  let dir: string;
  let summary: SummaryData;
  let truth: GroundTruthRecord[];
  let report: Report;

  beforeAll(async () => {
    await buildBundles();
    // Fixed timing: a 40 ms TTFT whatever the load, within the 60 ms limit at both rates: "more than 60 req/s".
    sim = await startSim({ port: 0, fixed: { ttftMs: 40, itlMs: 5 }, groundTruth: true });
    const r = await runScript('rate', PLAN, { BASE_URL: sim.url, MODEL });
    if (r.exitCode !== 0) throw new Error(`k6 exited ${r.exitCode}: ${r.stderr.slice(-800)}`);
    dir = r.dir;
    summary = readSummaryData(readJson(path.join(dir, 'summary.json')), 'summary.json');
    truth = sim.groundTruth().sort((a, b) => a.arrivalEpochMs - b.arrivalEpochMs);
    report = (await generateReport(dir, { ...DEFAULT_REPORT_OPTIONS, baseline: null, tolerance: 0.1, outDir: null }))
      .report;
  }, 180_000);

  afterAll(async () => {
    await sim?.close();
  });

  it('plans one cell per rate, its schedule exactly rate x duration requests', () => {
    const plan = readPlanFile(path.join(dir, 'plan.json'));
    expect(plan.cells.map((c) => [c.id, c.arrivals?.requests])).toEqual([
      ['rate_tiny_r20', 200], ['rate_tiny_r60', 600],
    ]);
  });

  it('sends every request of the schedule once, and the simulator sees the schedule\'s gaps', () => {
    expectEachOnce(truth, 800);
    const first = truth.slice(0, 200).map((t) => t.arrivalEpochMs);
    const schedule = arrivalTimesMs({
      process: 'poisson', ratePerSecond: 20, rampFromPerSecond: null, durationSeconds: 10, burstiness: 1, seed: SEED,
    });
    const seen = cv(gapsOf(first));
    expect(Math.abs(seen - cv(gapsOf(schedule))), `gap CV ${seen}`).toBeLessThan(0.1);
    // The arrivals span the schedule's span: a sender that fell behind would stretch it.
    const span = first.at(-1)! - first[0]!;
    expect(span / (schedule.at(-1)! - schedule[0]!)).toBeGreaterThan(0.97);
    expect(span / (schedule.at(-1)! - schedule[0]!)).toBeLessThan(1.03);
  });

  it('pushes a schedule lag per request, the hand-off in it, and TTFT from the intended send = TTFT + lag; its ' +
    'figures leave the warm-up out', () => {
    expectWarmupLeftOut(readPlanFile(path.join(dir, 'plan.json')), report);
    const measured = (cell: string) => report.cells.find((r) => r.id === cell)!.requests;
    for (const cell of ['rate_tiny_r20', 'rate_tiny_r60'] as const) {
      const n = measured(cell);
      const of = (name: string) => summary.metrics[`${name}{cell:${cell},phase:measured}`]!.values;
      expect(of(METRICS.scheduleLag.name).count, cell).toBe(n);
      expect(of(METRICS.ttftIntended.name).count, cell).toBe(n);
      // Both count from the record's start, where the agent started the request: per request the same lag.
      const gap = of(METRICS.ttftIntended.name).avg! - of(METRICS.ttft.name).avg!;
      const lag = of(METRICS.scheduleLag.name).avg!;
      expect(Math.abs(gap - lag), cell).toBeLessThan(0.01);
      // The hand-off from k6 to the agent is measured for every request and is part of the lag: a lag taken when
      // k6 made the call would leave it out.
      const handoff = of(METRICS.handoff.name);
      expect(handoff.count, cell).toBe(n);
      expect(handoff.min, cell).toBeGreaterThanOrEqual(0);
      expect(handoff.avg, cell).toBeGreaterThan(0);
      expect(lag, cell).toBeGreaterThanOrEqual(handoff.avg!);
    }
  });

  it('reports the offered and achieved rate, the lag and the capacity in requests per second', () => {
    const cells = report.cells.filter((c) => c.openLoop);
    expect(cells.map((c) => [c.id, c.openLoop!.offeredRate, c.openLoop!.ended])).toEqual([
      ['rate_tiny_r20', 20, 200], ['rate_tiny_r60', 60, 600],
    ]);
    for (const c of cells) expect(c.openLoop!.achievedRate! / c.openLoop!.offeredRate).toBeGreaterThan(0.98);
    expectIntendedAsRecorded(report, readPlanFile(path.join(dir, 'plan.json')), truth);
    expectRateCapacity(report, readFileSync(path.join(dir, 'report.md'), 'utf8'));
  });
});
