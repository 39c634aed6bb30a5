// Tests bench/open-loop.ts's and bench/open-loop-figures.ts's pure parts: the arrival statistics, percentiles, targets,
// pinning, the summary reader and the flags, against hand-worked numbers. No timing is judged here. Runs in Node
// (vitest).
import { corePlan } from '../../sim/child';
import { describe, expect, it } from 'vitest';
import { parseArgs } from '../../bench/open-loop';
import {
  coefficientOfVariation, countWithin, interArrivalGapsMs, meanRatePerSecond, percentileOf,
  rateTargetsMet, renderRateTable, stallShown, summaryValue, TARGETS, type RateRow, type Summary,
} from '../../bench/open-loop-figures';

describe('arrival statistics', () => {
  it('takes the gaps between arrivals in time order, whatever order they were read in', () => {
    expect(interArrivalGapsMs([300, 0, 100])).toEqual([100, 200]);
    expect(interArrivalGapsMs([5])).toEqual([]);
  });

  it('reads the mean rate as (n - 1) / (last - first): four arrivals over 600 ms are 5 per second', () => {
    expect(meanRatePerSecond([600, 0, 300, 100])).toBeCloseTo(5, 12);
    expect(meanRatePerSecond([1])).toBeNaN();
    expect(meanRatePerSecond([7, 7])).toBeNaN();
  });

  it('computes the coefficient of variation with the sample SD (n - 1)', () => {
    // Mean 5, squared deviations 9+1+1+1+0+0+4+16 = 32, variance 32/7.
    expect(coefficientOfVariation([2, 4, 4, 4, 5, 5, 7, 9])).toBeCloseTo(Math.sqrt(32 / 7) / 5, 12);
    expect(coefficientOfVariation([3, 3, 3])).toBe(0);
    expect(coefficientOfVariation([3])).toBeNaN();
  });

  it("takes percentiles as k6's summary does: linear between the closest ranks", () => {
    expect(percentileOf([4, 1, 3, 2], 0.5)).toBeCloseTo(2.5, 12);
    // i = 0.99 x 3 = 2.97: 3 + 0.97 x (4 - 3).
    expect(percentileOf([4, 1, 3, 2], 0.99)).toBeCloseTo(3.97, 12);
    expect(percentileOf([4, 1, 3, 2], 1)).toBe(4);
    expect(percentileOf([8], 0.99)).toBe(8);
    expect(percentileOf([], 0.5)).toBeNaN();
  });

  it('counts the times inside a window, its start in and its end out', () => {
    expect(countWithin([0, 10, 15, 20, 30], 10, 20)).toBe(2);
  });
});

describe('targets', () => {
  const good = { targetRate: 50, meanRate: 50.4, cv: 0.96, lagP99Ms: 4.9, sent: 3000, scheduled: 3000 };

  it('meets each target inside its bound and misses it just outside', () => {
    expect(rateTargetsMet(good)).toEqual({ rate: true, cv: true, lag: true, allSent: true });
    expect(rateTargetsMet({ ...good, meanRate: 50 * (1 + TARGETS.rateShare) + 0.01 }).rate).toBe(false);
    expect(rateTargetsMet({ ...good, meanRate: 49.4 }).rate).toBe(false);
    expect(rateTargetsMet({ ...good, cv: 1.06 }).cv).toBe(false);
    expect(rateTargetsMet({ ...good, cv: 0.94 }).cv).toBe(false);
    expect(rateTargetsMet({ ...good, lagP99Ms: 5.01 }).lag).toBe(false);
    expect(rateTargetsMet({ ...good, sent: 2999 }).allSent).toBe(false);
  });

  it('meets nothing with a missing figure', () => {
    expect(rateTargetsMet({ ...good, meanRate: NaN, cv: NaN, lagP99Ms: NaN, sent: NaN })).toEqual({
      rate: false, cv: false, lag: false, allSent: false,
    });
  });

  it('says a stall shows in a p99 of half its length or more', () => {
    expect(stallShown(1000, 2000)).toBe(true);
    expect(stallShown(999, 2000)).toBe(false);
    expect(stallShown(NaN, 2000)).toBe(false);
  });
});

describe('corePlan', () => {
  it('pins the simulator to the first core and the client to the last', () => {
    const p = corePlan(4, true);
    expect(p.sim).toEqual(['taskset', '-c', '0']);
    expect(p.client).toEqual(['taskset', '-c', '3']);
    expect(p.note).toMatch(/core 0.*core 3/);
  });

  it('pins nothing on one core or without taskset, and says so', () => {
    for (const p of [corePlan(1, true), corePlan(2, false)]) {
      expect(p.sim).toEqual([]);
      expect(p.client).toEqual([]);
      expect(p.note).toMatch(/nothing pinned/);
    }
  });
});

describe('summaryValue', () => {
  const summary: Summary = {
    metrics: {
      llm_schedule_lag: { values: { 'p(99)': 9, count: 10 } },
      'llm_schedule_lag{cell:rate_u_r5}': { values: { 'p(99)': 3, count: 4 } },
    },
  };

  it("reads the cell's sub-metric when there is one, else the metric", () => {
    expect(summaryValue(summary, 'llm_schedule_lag', 'rate_u_r5', 'p(99)')).toBe(3);
    expect(summaryValue(summary, 'llm_schedule_lag', 'rate_u_r50', 'count')).toBe(10);
  });

  it('is NaN for a metric, a statistic or a summary that is not there', () => {
    expect(summaryValue(summary, 'llm_ttft', 'rate_u_r5', 'med')).toBeNaN();
    expect(summaryValue(summary, 'llm_schedule_lag', 'rate_u_r5', 'med')).toBeNaN();
    expect(summaryValue(null, 'llm_schedule_lag', 'rate_u_r5', 'count')).toBeNaN();
  });
});

describe('parseArgs', () => {
  it('defaults to the issue: 5, 20 and 50 requests/s for 60 s, a 2 s stall in 30 s, a 2,000-row trace', () => {
    expect(parseArgs([])).toEqual({
      rates: [5, 20, 50], seconds: 60, coSeconds: 30, stallMs: 2000, seed: 1, parts: ['rates', 'stall', 'trace'],
      build: true, csv: true, traceRows: 2000,
    });
    expect(() => parseArgs(['--trace-rows', '1'])).toThrow(/--trace-rows/);
  });

  it('shortens and selects', () => {
    const a = parseArgs(['--rates', '50', '--seconds', '20', '--parts', 'rates', '--no-build', '--no-csv']);
    expect(a).toMatchObject({ rates: [50], seconds: 20, parts: ['rates'], build: false, csv: false });
  });

  it.each([
    [['--rates', '0'], /--rates/], [['--seconds', '1.5'], /--seconds/], [['--stall-ms', '20000'], /--stall-ms/],
    [['--parts', 'soak'], /--parts/], [['--seed', '-1'], /--seed/],
  ])('refuses %j naming the flag', (argv, message) => {
    expect(() => parseArgs(argv)).toThrow(message);
  });
});

describe('renderRateTable', () => {
  it('marks each target met or missed, and shows the intended figures beside the measured ones', () => {
    const row: RateRow = {
      targetRate: 5, seconds: 60, scheduled: 300, sent: 299, arrived: 299, meanRate: 5.02, intendedMeanRate: 5.017,
      cv: 1.08, intendedCv: 1.079, lagP50Ms: 0.8, lagP99Ms: 2.5, lagMaxMs: 3.1, achievedRate: 4.998, failed: 0,
      problem: 'a | b',
    };
    const line = renderRateTable([row]).split('\n')[2]!;
    expect(line).toBe(
      '| 5 | 60 | 5.020 (5.017) | met | 1.080 (1.079) | **missed** | 0.80 / 2.50 / 3.10 | met | 4.998 | ' +
      '299 / 300 (299) | **missed** | a \\| b |',
    );
  });
});
