// Tests analysis/request-spans.ts: how many of a part's requests ran between two times. Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { addRequestSpan, newRequestSpans, ownPeriods, runningWithin, spanIndex } from '../../analysis/request-spans';

describe('runningWithin', () => {
  it('counts the requests that ran at some time strictly between t0 and t1', () => {
    const spans = newRequestSpans();
    // [start, end]: one before, one across t0, one inside, one across t1, one after, one over the whole interval.
    for (const [start, end] of [[0, 100], [50, 150], [200, 300], [350, 450], [500, 600], [0, 600]]) {
      addRequestSpan(spans, end!, end! - start!);
    }
    const index = spanIndex(spans);
    expect(runningWithin(index, 100, 400)).toBe(4);
    // Touching an edge is not running between: ended at t0, or started at t1.
    expect(runningWithin(index, 150, 350)).toBe(2);
    expect(runningWithin(index, 450, 500)).toBe(1);
    expect(runningWithin(spanIndex(newRequestSpans()), 0, 1)).toBe(0);
  });
});

describe('ownPeriods', () => {
  it("splits a cell's requests where another request ran between two of them", () => {
    const spans = newRequestSpans();
    // The cell's: 0-100, 100-250 (back to back), then 600-700 after another cell's 300-500; 650-800 overlaps it.
    const own = [[0, 100], [100, 250], [600, 700], [650, 800]];
    for (const [start, end] of [...own, [300, 500]]) addRequestSpan(spans, end!, end! - start!);
    const e2e = own.map(([s, e]) => e! - s!);
    const ends = own.map(([, e]) => e!);
    expect(ownPeriods(e2e, ends, spanIndex(spans))).toEqual([
      { window: { startMs: 0, endMs: 250 }, requests: 2 }, { window: { startMs: 600, endMs: 800 }, requests: 2 },
    ]);
    // Nothing else between them: one stretch, however long the pause.
    const alone = newRequestSpans();
    for (const [start, end] of own) addRequestSpan(alone, end!, end! - start!);
    expect(ownPeriods(e2e, ends, spanIndex(alone))).toEqual([{ window: { startMs: 0, endMs: 800 }, requests: 4 }]);
  });
});
