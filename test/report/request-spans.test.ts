// Tests report/request-spans.ts: how many of a part's requests ran between two times. Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { addRequestSpan, newRequestSpans, runningWithin, spanIndex } from '../../report/request-spans';

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
