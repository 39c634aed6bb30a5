// End to end: bench-driven runs (lib/drive.ts) on a stock k6 with the measuring agent. Runs in Node (vitest).
// Cells back to back, and the capacity search in steady state (its agreement with a dense ladder:
// capacity-ladder.test.ts).

import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { METRICS } from '../../lib/metrics';
import { readPlanFile } from '../../report/inputs';
import type { Report } from '../../report/report-types';
import { extraTags, readCsv, readJson, runBenchCli, tempDir, writePlan } from './helpers';
import { expectStepClocks } from './real-server';
import { TINY_CHAT_PLAN as PLAN } from './tiny-chat-plan';

/** The sweep's cells ran as planned, each user its rounds, all measured, back to back but for a quiet gap. */
function expectSweepBackToBack(runDir: string): void {
  // The sweep's cells ran as planned, each user its rounds, all measured.
  const sweepPlan = readPlanFile(path.join(runDir, 'sweep', 'plan.json'));
  expect(sweepPlan.cells.map((c) => [c.id, c.driven?.mode, c.driven?.requests.measured])).toEqual([
    ['sweep_c512_o16_n1', 'rounds', 2],
    ['sweep_c512_o16_n2', 'rounds', 4],
    ['sweep_c512_o16_n4', 'rounds', 8],
  ]);
  // Back to back but for the quiet gap that lets a scrape of the simulator's /metrics fall between cells: the
  // monitor's interval (1 s by default) and 250 ms after the previous cell ends. Its length is a timer's, which a
  // loaded machine makes late: what the gap is for is judged instead, a scrape between each cell's last request and
  // the next one's first, on the samples' own times.
  for (let i = 1; i < sweepPlan.cells.length; i++) {
    const prev = sweepPlan.cells[i - 1]!.driven!;
    const gap = sweepPlan.cells[i]!.driven!.startSeconds - (prev.startSeconds + prev.seconds);
    expect(gap).toBeGreaterThanOrEqual(1.25 - 0.005);
  }
  expectScrapeBetweenCells(path.join(runDir, 'sweep', 'samples.csv'), sweepPlan.cells.map((c) => c.id));
}

/** A scrape of the server's /metrics (an llm_server_* sample) fell between each two cells' requests. */
function expectScrapeBetweenCells(samplesFile: string, cellIds: readonly string[]): void {
  const rows = readCsv(samplesFile).rows;
  const scrapes = rows.filter((x) => x.metric_name!.startsWith('llm_server_')).map((x) => Number(x.timestamp));
  // A request's e2e sample is pushed at its end, its value the request's length: its start is the difference.
  const e2e = rows.filter((x) => x.metric_name === METRICS.e2e.name);
  const spans = (cell: string) => e2e.filter((x) => extraTags(x).cell === cell)
    .map((x) => ({ start: Number(x.timestamp) - Number(x.metric_value), end: Number(x.timestamp) }));
  for (let i = 1; i < cellIds.length; i++) {
    const lastEnd = Math.max(...spans(cellIds[i - 1]!).map((s) => s.end));
    const firstStart = Math.min(...spans(cellIds[i]!).map((s) => s.start));
    const between = scrapes.filter((t) => t >= lastEnd && t <= firstStart);
    expect(between.length, `a scrape between ${cellIds[i - 1]} and ${cellIds[i]}`).toBeGreaterThan(0);
  }
}

/** The capacity part ran the steps the search chose, capacity and breaks among them, each with its phases counted. */
function expectCapacitySteps(runDir: string, capacity: number, breaks: number): void {
  // The capacity part's plan lists the steps the search chose, each with its phases counted.
  const capPlan = readPlanFile(path.join(runDir, 'capacity', 'plan.json'));
  const steps = capPlan.cells.map((c) => c.concurrency);
  expect(steps).toContain(capacity);
  expect(steps).toContain(breaks);
  // Each step once, but for a measurement the client limited, measured again under an id of its own (..._again).
  const firsts = capPlan.cells.filter((c) => !c.id.endsWith('_again')).map((c) => c.concurrency);
  expect(new Set(firsts).size).toBe(firsts.length);
  for (const again of capPlan.cells.filter((c) => c.id.endsWith('_again'))) expect(firsts).toContain(again.concurrency);
  for (const c of capPlan.cells) {
    expect(c.driven).toMatchObject({ mode: 'steady', search: true });
    expect(c.driven!.requests.measured).toBeGreaterThanOrEqual(2 * c.concurrency);
    expect(c.driven!.requests.cut).toBe(0);
  }
  // The first step starts all its users together: they warm up; one user (the noise probe) warms the part up. A
  // loaded machine can make the one-user probe look noisy, and the search measure it again at its end, after a step
  // down: requests it sends while the larger step's users finish theirs are warm-ups too (orchestrator/driver.ts).
  const first = capPlan.cells[0]!;
  if (first.driven!.measurements === 1) expect(first.driven!.requests.warmup).toBe(first.concurrency);
  else expect(first.driven!.requests.warmup).toBeGreaterThanOrEqual(first.concurrency);

  // Every request sample carries its step's cell and its phase; only measured ones enter the figures.
  const rows = readCsv(path.join(runDir, 'capacity', 'samples.csv')).rows.filter(
    (x) => x.metric_name === METRICS.requestOk.name,
  );
  const byCell = new Map<string, Record<string, number>>();
  for (const row of rows) {
    const t = extraTags(row);
    expect(t.use_case).toBe('tiny_chat');
    expect(['measured', 'warmup', 'transition']).toContain(t.phase);
    const m = byCell.get(t.cell!) ?? {};
    m[t.phase!] = (m[t.phase!] ?? 0) + 1;
    byCell.set(t.cell!, m);
  }
  for (const c of capPlan.cells) expect(byCell.get(c.id)?.measured ?? 0, c.id).toBe(c.driven!.requests.measured);
}

/** The report states the measured capacity, and the run's time went mostly to requests. */
function expectMeasuredCapacityReported(runDir: string, capacity: number, breaks: number): void {
  // The report reads the steps as a ladder and states the measured capacity, not an interpolation.
  const report = readJson<Report>(path.join(runDir, 'report.json'));
  const tiny = report.useCases.find((u) => u.useCase.id === 'tiny_chat')!;
  expect(tiny.result).toMatchObject({
    kind: 'within', lastPass: capacity, firstFail: breaks, estimate: capacity, display: String(capacity),
  });
  const run = readJson<{ time: { partsWallSeconds: number; requestsRunningSeconds: number } }>(
    path.join(runDir, 'run.json'),
  );
  // Engine start-up and the quiet gaps a scrape of the server needs (between sweep cells, at the edges of each
  // one-user step: 1.25 s each) are the only idle time; in a run this short they are still well under two thirds.
  expect(run.time.requestsRunningSeconds).toBeLessThanOrEqual(run.time.partsWallSeconds);
  expect(run.time.requestsRunningSeconds / run.time.partsWallSeconds).toBeGreaterThan(0.35);
}

describe('npm run bench drives k6', () => {
  it('runs the sweep back to back and finds the capacity by a steady-state search, ' +
    'measured on both sides', async () => {
    const dir = tempDir('driven');
    const r = await runBenchCli([
      '--plan', writePlan(dir, PLAN), '--scripts', 'sweep,capacity', '--results', dir, '--run-id', 'd',
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    const runDir = path.join(dir, 'd');
    // Progress: the step lines, the search table and where the time went.
    expect(r.stderr).toMatch(/sweep: 3 cells, 14 requests, back to back/);
    expect(r.stderr).toMatch(
      /tiny_chat at \d+ users?: within limits \(\d+ measured requests in [\d.]+ s; speed > 100 tok\/s: [\d.]+ ok/,
    );
    expect(r.stderr).toMatch(/tiny_chat at \d+ users: limit broken \(.*BROKEN/);
    const found = /tiny_chat: (\d+) \((\d+) breaks speed > 100 tok\/s\); steps /.exec(r.stderr);
    // The table also says how the search decided (the interval against the resolution, or the repeat budget).
    expect(r.stderr).toMatch(/tiny_chat: .*; (decided: interval within the resolution|undecided: repeat budget spent)/);
    expect(found, r.stderr).not.toBeNull();
    const [capacity, breaks] = [Number(found![1]), Number(found![2])];
    // Exact to the resolution (1 user below 16): the next step up was measured and broke the limit.
    expect(breaks).toBe(capacity + 1);
    expect(r.stderr).toMatch(/time: [\d.]+ s in the parts; requests running [\d.]+ s \(\d+\.\d%\)/);

    expectSweepBackToBack(runDir);
    expectCapacitySteps(runDir, capacity, breaks);
    expectMeasuredCapacityReported(runDir, capacity, breaks);
    // The simulator's histograms over each step's own requests, or none (issue 46).
    const clocks = expectStepClocks(runDir);
    console.log(clocks.lines.join('\n'));
  }, 300_000);
});
