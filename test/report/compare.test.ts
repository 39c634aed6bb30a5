// Tests report/compare.ts: relative changes, regression direction, gated metrics and capacity regressions.
// Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { isRegression, relativeChange } from '../../analysis/regression';
import { compareReports } from '../../report/compare';
import { useCaseCapacity } from '../../analysis/capacity';
import type { Comparison, MetricDelta, Report } from '../../report/report-types';
import { USE_CASES } from '../../thresholds/use-cases';
import type { CellStats } from '../../analysis/cells';
import { cell, flat } from './helpers';

const chat = USE_CASES.find((u) => u.id === 'general_chatbot')!;

function fakeReport(cells: CellStats[]): Report {
  return {
    cells,
    useCases: [useCaseCapacity(chat, cells, 'avg', null)],
    bursts: [],
    limitStat: 'avg',
    runDir: '/tmp/x',
    run: null,
  } as unknown as Report;
}

function ladder(ttftAt8: number, speed = 100, throughput = 300): CellStats[] {
  return [
    cell({
      id: 'capacity_general_chatbot_n1', useCase: 'general_chatbot', concurrency: 1, throughput: 100,
      metrics: { ttft: flat(1000), decodeSpeed: flat(150) },
    }),
    cell({
      id: 'capacity_general_chatbot_n8', useCase: 'general_chatbot', concurrency: 8, throughput,
      metrics: { ttft: flat(ttftAt8), decodeSpeed: flat(speed) },
    }),
    cell({
      id: 'capacity_general_chatbot_n16', useCase: 'general_chatbot', concurrency: 16, throughput: 320,
      metrics: { ttft: flat(12000), decodeSpeed: flat(50) },
    }),
  ];
}

describe('relative change and regression direction', () => {
  it('flags only moves in the bad direction beyond the tolerance', () => {
    expect(relativeChange(100, 89)).toBeCloseTo(-0.11, 10);
    expect(isRegression(-0.11, 'higher', 0.1)).toBe(true);
    expect(isRegression(-0.09, 'higher', 0.1)).toBe(false);
    expect(isRegression(0.11, 'lower', 0.1)).toBe(true);
    expect(isRegression(-0.5, 'lower', 0.1)).toBe(false);
    expect(relativeChange(0, 5)).toBeNull();
    expect(isRegression(null, 'lower', 0.1)).toBe(false);
  });
});

describe('compareReports', () => {
  it('finds no regression between identical runs', () => {
    const c = compareReports(fakeReport(ladder(4000)), fakeReport(ladder(4000)), 0.1);
    expect(c.gatedRegression).toBe(false);
    expect(c.cells.length).toBe(3);
  });

  it('gates on a use-case limit metric and on capacity', () => {
    // Baseline: TTFT 4000 at 8 -> crossing of 8000 at 8 + 4000 x 8 / 8000 = 12 -> ~12 (strict: 11).
    // Current: TTFT 7000 at 8 -> 8 + 1000 x 8 / 5000 = 9.6 -> ~9: capacity falls 25%.
    const c = compareReports(fakeReport(ladder(7000)), fakeReport(ladder(4000)), 0.1);
    expect(c.gatedRegression).toBe(true);
    const cap = c.capacities.find((x) => x.id === 'general_chatbot')!;
    expect(cap.baseline).toBe('~11');
    expect(cap.current).toBe('~9');
    expect(cap.regression).toBe(true);
    const n8 = c.cells.find((x) => x.cellId === 'capacity_general_chatbot_n8')!;
    expect(n8.deltas.find((d) => d.metric === 'ttft')).toMatchObject({ regression: true, gated: true });
    expect(c.regressions.some((r) => /TTFT/.test(r))).toBe(true);
  });

  it('marks but does not gate a non-limit metric', () => {
    const c = compareReports(fakeReport(ladder(4000, 100, 200)), fakeReport(ladder(4000, 100, 300)), 0.1);
    const n8 = c.cells.find((x) => x.cellId === 'capacity_general_chatbot_n8')!;
    expect(n8.deltas.find((d) => d.metric === 'throughput')).toMatchObject({ regression: true, gated: false });
    expect(c.gatedRegression).toBe(false);
  });

  it('does not flag a mean that moved beyond the tolerance but within its noise, and says so', () => {
    // TTFT at 8 users 4000 -> 4600 ms (+15%). 8 users running together count as one sample per round: 10 requests
    // are 2 samples (at least), so with a standard deviation of 2000 ms the noise is 1.96 x sqrt(2 x 2000^2 / 2) =
    // 3920 ms: no regression. Over 1000 requests (125 rounds) it is 1.96 x sqrt(2 x 2000^2 / 125) = 496 ms.
    const noisy = (ttft: number, sd: number, count: number) => {
      const cells = ladder(ttft);
      const n8 = cells[1]!;
      const spread = { ...flat(ttft, count), stdDev: sd };
      return cells.map((c) => (c === n8 ? { ...c, metrics: { ...c.metrics, ttft: spread } } : c));
    };
    const few = compareReports(fakeReport(noisy(4600, 2000, 10)), fakeReport(noisy(4000, 2000, 10)), 0.1);
    const ttftDelta = (c: Comparison): MetricDelta =>
      c.cells.find((x) => x.cellId === 'capacity_general_chatbot_n8')!.deltas.find((d) => d.metric === 'ttft')!;
    const fewTtft = ttftDelta(few);
    expect(fewTtft.noise).toBeCloseTo(3920, 0);
    expect(fewTtft.regression).toBe(false);
    const many = compareReports(fakeReport(noisy(4600, 2000, 1000)), fakeReport(noisy(4000, 2000, 1000)), 0.1);
    const manyTtft = ttftDelta(many);
    expect(manyTtft.noise).toBeCloseTo(495.8, 0);
    expect(manyTtft).toMatchObject({ regression: true, gated: true });
    expect(many.regressions.find((r) => /TTFT/.test(r))).toMatch(/and its noise \(±496\)/);
  });

  it('does not flag a capacity whose fall stays inside both 95% intervals', () => {
    const withInterval = (cells: CellStats[], low: number, high: number | null): Report => {
      const report = fakeReport(cells);
      const interval = { level: 0.95, low, high, largestStep: 16, replicates: 1000 };
      const useCases = report.useCases.map((u) => ({ ...u, interval }));
      return { ...report, useCases } as Report;
    };
    // ~11 -> ~9 is a 25% fall; intervals 8-13 and 7-12 overlap: the noise of the measurement.
    const overlapping = compareReports(withInterval(ladder(7000), 7, 12), withInterval(ladder(4000), 8, 13), 0.1);
    const cap = overlapping.capacities.find((x) => x.id === 'general_chatbot')!;
    expect(cap).toMatchObject({
      regression: false, withinNoise: true, baselineInterval: '8-13', currentInterval: '7-12',
    });
    // Intervals 10-12 and 8-9 do not overlap: a regression, written with both intervals.
    const apart = compareReports(withInterval(ladder(7000), 8, 9), withInterval(ladder(4000), 10, 12), 0.1);
    expect(apart.capacities.find((x) => x.id === 'general_chatbot'))
      .toMatchObject({ regression: true, withinNoise: false });
    expect(apart.regressions).toContain(
      'General Chatbot: capacity fell from ~11 (95% interval 10-12) to ~9 (95% interval 8-9) concurrent requests.',
    );
  });
});
