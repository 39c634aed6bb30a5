// Tests analysis/figure-grades.ts and report/judgement.ts: bands ascend and end open, a bound belongs to the band
// above it, the cut-offs' edges, and a capacity with low goodput.
// Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import type { UseCaseCapacity } from '../../analysis/capacity';
import {
  bandOf, LOW_GOODPUT, lowGoodput, prefixCacheHit, queueSaturated, severeContention, withBounds,
} from '../../analysis/figure-grades';
import { capacityFinding, capacityGuidance, JUDGEMENT } from '../../report/judgement';

const GRADED = { decodeSpeedTokS: JUDGEMENT.decodeSpeedTokS, ttftMs: JUDGEMENT.ttftMs, itlMs: JUDGEMENT.itlMs };

describe('judgement bands', () => {
  it.each(Object.entries(GRADED))('%s: bounds ascend and only the last band is open', (_name, bands) => {
    const bounds = bands.map((b) => b.below);
    expect(bounds.at(-1)).toBeNull();
    const closed = bounds.slice(0, -1) as number[];
    expect(closed.every((v) => v !== null)).toBe(true);
    expect([...closed].sort((a, b) => a - b)).toEqual(closed);
    expect(new Set(closed).size).toBe(closed.length);
  });

  it('puts a bound in the band above it, and past the last bound (or NaN) in the open band', () => {
    const speed = JUDGEMENT.decodeSpeedTokS;
    expect(bandOf(speed, 14.99)).toBe(speed[0]);
    expect(bandOf(speed, 15)).toBe(speed[1]);
    expect(bandOf(speed, 50)).toBe(speed[3]);
    expect(bandOf(speed, NaN)).toBe(speed[3]);
    expect(bandOf(JUDGEMENT.itlMs, 19.9).atHighest).toBe('still imperceptible to users');
    expect(bandOf(JUDGEMENT.itlMs, 70).atHighest).toMatch(/individual tokens become visible/);
  });

  it('gives every bound its words and refuses a band without them', () => {
    expect(withBounds([10, null], [{ word: 'low' }, { word: 'high' }])).toEqual([
      { below: 10, word: 'low' }, { below: null, word: 'high' },
    ]);
    expect(() => withBounds([10, null], [{ word: 'low' }])).toThrow('2 bounds for 1 bands');
  });

  it('judges queue wait, scaling efficiency and prefix-cache hits at their edges', () => {
    expect(queueSaturated(1000)).toBe(false);
    expect(queueSaturated(1000.1)).toBe(true);
    expect(severeContention(0.5)).toBe(false);
    expect(severeContention(0.49)).toBe(true);
    // A hit is a rate the one-decimal column does not show as 0.0%.
    expect(prefixCacheHit(0.0005)).toBe(true);
    expect((0.0005 * 100).toFixed(1)).toBe('0.1');
    expect(prefixCacheHit(0.00049)).toBe(false);
    expect((0.00049 * 100).toFixed(1)).toBe('0.0');
  });
});

describe('a capacity whose requests mostly broke a limit', () => {
  const ladder = (kind: 'within' | 'beyond' | 'below', goodput: number | null) => ({
    useCase: { id: 'coding_assistant', title: 'Coding assistant', contextTokens: 98_304 },
    goodputAtCapacity: goodput,
    result: {
      kind, display: '2', displayShort: '2', estimate: kind === 'below' ? null : 2, firstFail: 3, lastPass: 2,
      brokenBy: { label: 'TTFT < 12 s' }, steps: [], interpolated: false,
    },
  }) as unknown as UseCaseCapacity;

  it('is not supported below half its requests within every limit, and says so in the finding', () => {
    // The quick example's 96K coding assistant: 2 users within the mean limits, 0% of its requests within them.
    expect(lowGoodput(ladder('within', 0))).toBe(true);
    expect(lowGoodput(ladder('within', 0.49))).toBe(true);
    expect(lowGoodput(ladder('within', LOW_GOODPUT))).toBe(false);
    expect(lowGoodput(ladder('beyond', 0.2))).toBe(true);
    // No capacity to qualify, or no goodput judged (a cell without a use case's limits).
    expect(lowGoodput(ladder('below', 0))).toBe(false);
    expect(lowGoodput(ladder('within', null))).toBe(false);
    expect(capacityGuidance(ladder('within', 0)))
      .toMatch(/^Within the thresholds on the step's statistic at 2 .* only 0\.0% .*not supported/);
    expect(capacityGuidance(ladder('within', 0.625))).toMatch(/^Supports 2 concurrent requests/);
    expect(capacityFinding(ladder('within', 0))).toBe(
      "2 concurrent requests @ 96K context, on the step's statistic only: 0.0% of its requests met every limit on " +
        'their own figures',
    );
  });
});
