// Tests analysis/stats.ts: k6's percentile method on hand-worked numbers and on the golden k6 run. Node (vitest).
import { readFileSync } from 'node:fs';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import {
  crossingX, FloatList, maxBy, minBy, percentile, sortValues, statistic, summarize, toK6Values, valueAt,
} from '../../analysis/stats';
import { metricName } from '../../lib/metrics';
import { GOLDEN_DIR } from '../fixtures/golden';

const GOLDEN = GOLDEN_DIR;

describe('percentile (k6 method)', () => {
  it('interpolates linearly between closest ranks', () => {
    const s = sortValues([40, 10, 30, 20]);
    // i = p x (n - 1): p50 -> 1.5 -> 20 + 0.5 x 10 = 25; p90 -> 2.7 -> 30 + 0.7 x 10 = 37
    expect(percentile(s, 0.5)).toBeCloseTo(25, 10);
    expect(percentile(s, 0.9)).toBeCloseTo(37, 10);
    expect(percentile(s, 0.95)).toBeCloseTo(38.5, 10);
    expect(percentile(s, 0.99)).toBeCloseTo(39.7, 10);
    expect(percentile(s, 0)).toBe(10);
    expect(percentile(s, 1)).toBe(40);
  });

  it('handles zero and one value as k6 does', () => {
    expect(percentile(sortValues([]), 0.5)).toBe(0);
    expect(percentile(sortValues([7]), 0.99)).toBe(7);
    expect(summarize(sortValues([]))).toBeNull();
  });

  it('summarizes mean, min, max and percentiles', () => {
    const list = new FloatList(2);
    for (const v of [5, 1, 4, 2, 3]) list.push(v);
    const d = summarize(list.sorted())!;
    expect(d).toEqual({
      count: 5, mean: 3, min: 1, max: 5, p50: 3, p90: 4.6, p95: 4.8, p99: expect.closeTo(4.96, 10) as unknown as number,
      // Sample standard deviation: squares 4 + 1 + 0 + 1 + 4 = 10 over n - 1 = 4.
      stdDev: expect.closeTo(Math.sqrt(2.5), 12) as unknown as number,
    });
    expect(toK6Values(d)['p(95)']).toBe(4.8);
    expect(toK6Values(d).avg).toBe(3);
  });

  it('matches the golden k6 summary of the same samples (samples.csv and handle-summary-data.json: one run)', () => {
    const csv = Papa.parse<string[]>(readFileSync(`${GOLDEN}/samples.csv`, 'utf8'), { skipEmptyLines: true }).data;
    const header = csv[0]!;
    const iName = header.indexOf('metric_name');
    const iVal = header.indexOf('metric_value');
    const iTags = header.indexOf('extra_tags');
    const summary = JSON.parse(readFileSync(`${GOLDEN}/handle-summary-data.json`, 'utf8')) as {
      metrics: Record<string, { values: Record<string, number> }>;
    };
    const cases: [string, (tags: string) => boolean][] = [
      [metricName('ttft'), () => true],
      [`${metricName('ttft')}{cell:ctx1k_c4}`, (t) => t.split('&').includes('cell=ctx1k_c4')],
      [`${metricName('ttft')}{cell:ctx1k_c2}`, (t) => t.split('&').includes('cell=ctx1k_c2')],
      [metricName('decodeSpeed'), () => true],
    ];
    for (const [key, filter] of cases) {
      const base = key.split('{')[0];
      const values = csv.slice(1)
        .filter((r) => r[iName] === base && filter(r[iTags] ?? ''))
        .map((r) => Number(r[iVal]));
      const d = summarize(sortValues(values))!;
      const k6 = summary.metrics[key]!.values;
      expect(d.count).toBe(k6.count);
      // The CSV rounds values to 6 decimals, so compare to 1e-5 relative.
      for (const [mine, theirs] of [
        [d.mean, k6.avg], [d.p50, k6.med], [d.p90, k6['p(90)']], [d.p95, k6['p(95)']], [d.p99, k6['p(99)']],
        [d.max, k6.max], [d.min, k6.min],
      ] as const) {
        expect(Math.abs(mine - theirs!)).toBeLessThan(1e-5 * Math.max(1, Math.abs(theirs!)));
      }
    }
  });
});

describe('interpolation', () => {
  it('finds the crossing of a line', () => {
    // (32, 1800) -> (48, 2300): 2000 is crossed at 32 + 200 x 16 / 500 = 38.4
    expect(crossingX(32, 1800, 48, 2300, 2000)).toBeCloseTo(38.4, 10);
    expect(crossingX(1, 5, 2, 5, 6)).toBeNull();
    expect(valueAt(32, 1800, 48, 2300, 40)).toBe(2050);
  });
});

describe('maxBy, minBy, statistic', () => {
  it('pick the extreme element, skipping nulls, first on ties', () => {
    const xs = [{ v: 2 }, { v: null }, { v: 5 }, { v: 5 }, { v: -1 }];
    expect(maxBy(xs, (x) => x.v)).toBe(xs[2]);
    expect(minBy(xs, (x) => x.v)).toBe(xs[4]);
    expect(maxBy([{ v: null }], (x) => x.v)).toBeNull();
  });

  it('reads a statistic by its k6 name, the same one thresholds use', () => {
    const d = summarize(sortValues([1, 2, 3, 4, 100]))!;
    expect(statistic(d, 'avg')).toBe(22);
    expect(statistic(d, 'med')).toBe(3);
    expect(statistic(d, 'p(95)')).toBe(toK6Values(d)['p(95)']);
    expect(statistic(null, 'avg')).toBeNull();
    expect(statistic(d, 'p(42)')).toBeNull();
  });
});
