// A fitted profile's prediction interval from the resampled profiles' capacities. Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { capacityIntervals } from '../../whatif/prediction-interval';

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
    expect(capacityIntervals([new Map([['a', 3]]), new Map()])).toEqual([{ useCase: 'a', low: 3, high: 3, resamples: 1 }]);
    expect(capacityIntervals([])).toEqual([]);
  });
});
