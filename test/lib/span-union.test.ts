import { describe, expect, it } from 'vitest';
import { spanUnion, spanUnionMs, timeInside } from '../../lib/span-union';

describe('spanUnionMs', () => {
  it('is 0 without spans', () => {
    expect(spanUnionMs([])).toBe(0);
  });

  it('counts an overlap once and leaves a gap out', () => {
    // [0, 100] and [50, 150] overlap (150 ms), [400, 500] after a gap (100 ms), [420, 480] inside it.
    expect(spanUnionMs([[0, 100], [50, 150], [400, 500], [420, 480]])).toBe(250);
  });

  it('does not depend on the order of the spans', () => {
    expect(spanUnionMs([[400, 500], [50, 150], [420, 480], [0, 100]])).toBe(250);
  });

  it('joins spans that touch, and a span inside another adds nothing', () => {
    expect(spanUnionMs([[0, 10], [10, 20]])).toBe(20);
    expect(spanUnionMs([[0, 100], [20, 30]])).toBe(100);
  });

  it('counts an empty or reversed span as nothing', () => {
    expect(spanUnionMs([[5, 5]])).toBe(0);
    expect(spanUnionMs([[10, 4], [20, 30]])).toBe(10);
  });
});

describe('spanUnion', () => {
  it('gives the runs in time order: overlapping or touching spans merged, empty ones left out', () => {
    expect(spanUnion([[400, 500], [50, 150], [420, 480], [0, 100], [150, 160], [300, 300], [700, 650]])).toEqual([
      [0, 160], [400, 500],
    ]);
    expect(spanUnion([])).toEqual([]);
  });
});

describe('timeInside', () => {
  it('is the time of a span inside the runs: each overlap, nothing in the gaps or past the last run', () => {
    const runs = spanUnion([[0, 100], [200, 300]]);
    expect(timeInside([50, 250], runs)).toBe(50 + 50);
    expect(timeInside([100, 200], runs)).toBe(0);
    expect(timeInside([-50, 400], runs)).toBe(200);
    expect(timeInside([250, 260], runs)).toBe(10);
    expect(timeInside([10, 20], [])).toBe(0);
  });
});
