// A fitted profile's prediction interval from the resampled profiles' capacities. Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { capacityIntervals, INTERVAL_REFITS, intervalRefits } from '../../whatif/prediction-interval';

describe('capacityIntervals', () => {
  it('is the 5th-95th percentile of each use case\'s predictions', () => {
    const values = Array.from({ length: 21 }, (_, i) => 10 + i);
    const intervals = capacityIntervals(values.map((v) => new Map([['chat', v], ['code', 7]])));
    expect(intervals).toEqual([
      { useCase: 'chat', low: 11, high: 29, resamples: 21 },
      { useCase: 'code', low: 7, high: 7, resamples: 21 },
    ]);
  });

  it('counts only the resamples that predicted the use case', () => {
    expect(capacityIntervals([new Map([['a', 3]]), new Map()])).toEqual([
      { useCase: 'a', low: 3, high: 3, resamples: 1 },
    ]);
    expect(capacityIntervals([])).toEqual([]);
  });
});

describe('intervalRefits', () => {
  it('keeps every refit up to the cap, and an even spread of them beyond it', () => {
    expect(intervalRefits([1, 2, 3])).toEqual([1, 2, 3]);
    const many = Array.from({ length: 200 }, (_, i) => i);
    const kept = intervalRefits(many);
    expect(kept).toHaveLength(INTERVAL_REFITS);
    expect(kept.slice(0, 3)).toEqual([0, 10, 20]);
    expect(kept.at(-1)).toBe(190);
  });
});
