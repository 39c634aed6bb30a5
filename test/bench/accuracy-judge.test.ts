// The accuracy study's judge (bench/accuracy-judge.ts) on numbers worked by hand. Runs in Node (vitest).

import { describe, expect, it } from 'vitest';
import {
  itlDifferences, judge, pairRequests, scheduleOrigin, stats, truthFigures, type ClientRequest, type Figures,
  type TruthRecord,
} from '../../bench/accuracy-judge';

const record = (id: string, arrival: number, tokens: number[], end: number, outcome = 'completed'): TruthRecord => ({
  requestId: id, promptHead: '', promptTokens: 100, arrivalEpochMs: arrival, tokenEpochMs: tokens, endEpochMs: end,
  outcome,
});
const NONE: Figures = {
  ttft: null, itl: null, tpot: null, e2e: null, decodeSpeed: null, prefillSpeed: null, sendLag: null,
  ttftIntended: null, e2eIntended: null,
};

// A: arrival 1000, tokens at 1050, 1060, 1070, end 1075: TTFT 50, ITL 10 10, e2e 75, TPOT 12.5, decode 80 tok/s,
// prefill 100 / 50 ms = 2000 tok/s. B: arrival 2000, tokens at 2040, 2050, end 2052: TTFT 40, ITL 10, e2e 52,
// TPOT 12, decode 83.33, prefill 2500.
const A = record('a', 1000, [1050, 1060, 1070], 1075);
const B = record('b', 2000, [2040, 2050], 2052);

describe('truthFigures', () => {
  it('gives the suite\'s definitions on the server\'s clock', () => {
    const t = truthFigures(A, null);
    expect(t).toEqual({
      ttft: 50, itl: [10, 10], e2e: 75, tpot: 12.5, decodeSpeed: 80, prefillSpeed: 2000, sendLag: null,
      ttftIntended: null, e2eIntended: null,
    });
  });

  it('counts from an intended send time when given one', () => {
    const t = truthFigures(A, 995);
    expect([t.sendLag, t.ttftIntended, t.e2eIntended]).toEqual([5, 55, 80]);
  });

  it('has no TPOT or speeds for one token, and nothing but the lag for none', () => {
    const one = truthFigures(record('c', 0, [30], 31), null);
    expect([one.ttft, one.tpot, one.decodeSpeed, one.itl]).toEqual([30, null, null, []]);
    const none = truthFigures(record('d', 0, [], 5), 0);
    expect([none.ttft, none.prefillSpeed, none.sendLag, none.e2e]).toEqual([null, null, 0, 5]);
  });
});

describe('pairRequests', () => {
  it('pairs by key, counts what has no partner, and leaves records that did not complete out', () => {
    const clients: ClientRequest[] = [
      { key: 'a', figures: { ...NONE, ttft: 52 } }, { key: 'x', figures: NONE }, { key: 'f', figures: NONE },
    ];
    const truth = [A, B, record('f', 0, [1], 2, 'aborted')];
    const p = pairRequests(clients, truth, (t) => t.requestId);
    expect(p.pairs.map((x) => x.client.ttft)).toEqual([52]);
    expect(p.pairs[0]!.truth.ttft).toBe(50);
    expect([p.clientOnly, p.truthOnly]).toEqual([2, 1]);
  });
});

describe('itlDifferences', () => {
  it('pairs token by token, aligned on the last token when the counts differ', () => {
    expect(itlDifferences([9, 12], [10, 10])).toEqual([-1, 2]);
    // A role chunk's gap first (vllm bench serve): left out.
    expect(itlDifferences([0.1, 9, 12], [10, 10])).toEqual([-1, 2]);
    expect(itlDifferences([12], [10, 10])).toEqual([2]);
  });
});

describe('stats', () => {
  it('takes the median of the signed differences and the p99 of the absolute ones (k6\'s percentile)', () => {
    // Sorted -1, 0.5, 2: median 0.5. Absolute 0.5, 1, 2: p99 at rank 1.98 = 1 + 0.98 x (2 - 1) = 1.98.
    const s = stats([2, -1, 0.5]);
    expect(s.n).toBe(3);
    expect(s.median).toBeCloseTo(0.5, 12);
    expect(s.p99).toBeCloseTo(1.98, 12);
    expect(stats([])).toEqual({ n: 0, median: NaN, p99: NaN });
  });
});

describe('judge', () => {
  const clientA = { ...NONE, ttft: 52, itl: [9, 12], e2e: 78, tpot: 13, decodeSpeed: 76, prefillSpeed: 100_000 / 52 };
  const clientB = { ...NONE, ttft: 44, itl: [10.5], e2e: 55, tpot: 11, decodeSpeed: 1000 / 11 };
  const j = judge([
    { client: clientA, truth: truthFigures(A, null) }, { client: clientB, truth: truthFigures(B, null) },
  ]);

  it('judges every figure over the pairs', () => {
    expect(j.requests).toBe(2);
    // TTFT +2, +4: median 3, p99 2 + 0.99 x 2 = 3.98.
    expect(j.figures.ttft.median).toBeCloseTo(3, 12);
    expect(j.figures.ttft.p99).toBeCloseTo(3.98, 12);
    // ITL per token -1, +2, +0.5.
    expect(j.figures.itl.n).toBe(3);
    expect(j.figures.itl.median).toBeCloseTo(0.5, 12);
    expect(j.figures.e2e.median).toBeCloseTo(3, 12);
    // TPOT +0.5, -1: median -0.25, p99 of 0.5, 1 = 0.995.
    expect(j.figures.tpot.median).toBeCloseTo(-0.25, 12);
    expect(j.figures.tpot.p99).toBeCloseTo(0.995, 12);
  });

  it('judges the speeds relative to the truth, in %', () => {
    // Decode 76 against 80: -5%; 90.909 against 83.333: +9.0909%. Median 2.04545.
    expect(j.figures.decodeSpeed.median).toBeCloseTo((-5 + 100 / 11) / 2, 9);
    // Prefill only A's: 1923.08 against 2000 = -3.846%.
    expect(j.figures.prefillSpeed.n).toBe(1);
    expect(j.figures.prefillSpeed.median).toBeCloseTo((50 / 52 - 1) * 100, 9);
    expect(j.figures.sendLag.n).toBe(0);
  });

  it('counts tokens read together and ITL counts that differ', () => {
    const k = judge([{ client: { ...NONE, itl: [0.1, 0.2, 19.8] }, truth: truthFigures(A, null) }]);
    expect(k.itlCountMismatches).toBe(1);
    expect(k.together.client).toBeCloseTo(2 / 3, 12);
    expect(k.together.truth).toBe(0);
    expect(k.itlP99.truth).toBe(10);
  });
});

describe('scheduleOrigin', () => {
  it('is the earliest arrival less its intended offset', () => {
    const arrivals = [{ arrivalEpochMs: 1010, atMs: 0 }, { arrivalEpochMs: 1105, atMs: 100 },
      { arrivalEpochMs: 1203, atMs: 200 }];
    expect(scheduleOrigin(arrivals)).toBe(1003);
    expect(scheduleOrigin([])).toBeNaN();
  });
});
