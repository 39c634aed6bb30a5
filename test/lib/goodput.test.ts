// A request's goodput, judged as the agent judges a measured one (agent/slo.go, lib/request-figures.ts).
// Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { judgeGoodput } from '../../lib/request-figures';

const request = { ttftMs: 500, ttfcMs: 800, e2eMs: 3000, tpotMs: 20, decodeTokensPerSecond: 50, itlMs: [10, 30] };

describe('judgeGoodput', () => {
  it('holds when every limit holds on the request\'s own figures, ITL on its mean', () => {
    expect(judgeGoodput(request, [
      { metric: 'ttft', operator: '<', value: 600 }, { metric: 'itl', operator: '<', value: 21 },
    ])).toBe(true);
    expect(judgeGoodput(request, [{ metric: 'itl', operator: '<', value: 20 }])).toBe(false);
    expect(judgeGoodput(request, [{ metric: 'decodeSpeed', operator: '>', value: 50 }])).toBe(false);
    expect(judgeGoodput(request, [{ metric: 'e2e', operator: '<=', value: 3000 }])).toBe(true);
    // A reasoning model's answer begins after its thinking: the content limit is judged on that.
    expect(judgeGoodput(request, [{ metric: 'ttfc', operator: '<', value: 600 }])).toBe(false);
  });

  it('does not judge a figure a one-token answer lacks', () => {
    const one = { ttftMs: 500, ttfcMs: null, e2eMs: 500, tpotMs: null, decodeTokensPerSecond: null, itlMs: [] };
    expect(judgeGoodput(one, [
      { metric: 'decodeSpeed', operator: '>', value: 10 }, { metric: 'itl', operator: '<', value: 1 },
    ])).toBe(true);
    expect(judgeGoodput(one, [{ metric: 'ttft', operator: '<', value: 400 }])).toBe(false);
    expect(judgeGoodput(one, [{ metric: 'ttfc', operator: '<', value: 400 }]), 'no content: not judged').toBe(true);
  });
});
