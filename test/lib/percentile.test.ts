// Tests for lib/percentile.ts: k6's percentile of a Trend and the median built on it. Runs in Node (vitest).

import { describe, expect, it } from 'vitest';
import { k6Percentile, median } from '../../lib/percentile';

describe('k6Percentile', () => {
  it('interpolates between the closest ranks, as k6\'s TrendSink does, and is 0 for no values', () => {
    expect(k6Percentile([10, 20, 30, 40], 4, 0.95)).toBeCloseTo(38.5, 12);
    expect(k6Percentile([7], 1, 0.99)).toBe(7);
    expect(k6Percentile([], 0, 0.5)).toBe(0);
  });
});

describe('median', () => {
  it('takes values in any order, averages the middle two of an even count, and is NaN for none', () => {
    expect(median([3, 1, 2, 10])).toBe(2.5);
    expect(median([5, 1, 9])).toBe(5);
    expect(median(Float64Array.from([2, 4]))).toBe(3);
    expect(Number.isNaN(median([]))).toBe(true);
  });
});
