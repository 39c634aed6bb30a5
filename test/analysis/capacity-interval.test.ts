// Tests for analysis/capacity-interval.ts: the bootstrap interval of a capacity, against hand-worked ladders.
// Runs in Node (vitest).

import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../lib/random';
import {
  aggregate, capacityInterval, ladderCapacity, sharedNoise, withCapacity, type IntervalLimit, type IntervalStep,
} from '../../analysis/capacity-interval';
import { formatInterval } from '../../report/capacity-words';

const TTFT_BELOW_300: IntervalLimit = { metric: 'ttft', operator: '<', value: 300, expression: 'avg<300' };
const SPEED_ABOVE_10: IntervalLimit = { metric: 'decodeSpeed', operator: '>', value: 10, expression: 'p(95)>10' };
const SUCCESS: IntervalLimit = { metric: 'successRate', operator: '>=', value: 0.99, expression: 'rate>=0.99' };

/** A step whose requests all read `mean` (no spread), or spread evenly by +-spread around it. */
function step(users: number, mean: number, requests: number, spread = 0): IntervalStep {
  // Request i of n sits at mean + spread x (2i / (n - 1) - 1): from mean - spread to mean + spread.
  const offset = (i: number): number => (requests === 1 ? 0 : spread * (2 * i / (requests - 1) - 1));
  const values = Array.from({ length: requests }, (_, i) => mean + offset(i));
  return { users, values: [values], succeeded: requests, failed: 0 };
}

describe('aggregate', () => {
  it('reads the threshold aggregations as k6 does', () => {
    expect(aggregate([1, 2, 3, 10], 'avg')).toBe(4);
    expect(aggregate([10, 1, 3, 2], 'med')).toBe(2.5);
    expect(aggregate([1, 2, 3, 10], 'max')).toBe(10);
    expect(aggregate([1, 2, 3, 10], 'min')).toBe(1);
    // k6's p(x): linear between ranks, rank (n - 1) * x = 2.85 -> 3 + 0.85 * (10 - 3).
    expect(aggregate([1, 2, 3, 10], 'p(95)')).toBeCloseTo(8.95, 10);
  });
});

describe('ladderCapacity', () => {
  const users = [1, 2, 4];
  it('interpolates the crossing between the last passing and the first failing step', () => {
    // 200 ms at 2 users, 360 ms at 4: 300 ms is crossed at 2 + 2 * 100 / 160 = 3.25 users -> 3.
    expect(ladderCapacity(users, [[100], [200], [360]], [TTFT_BELOW_300])).toBe(3);
    // Crossed exactly at 3 users (200 -> 400): a strict limit already fails there -> 2.
    expect(ladderCapacity(users, [[100], [200], [400]], [TTFT_BELOW_300])).toBe(2);
  });
  it('is 0 when the first step fails and Infinity when none does', () => {
    expect(ladderCapacity(users, [[400], [500], [600]], [TTFT_BELOW_300])).toBe(0);
    expect(ladderCapacity(users, [[100], [120], [150]], [TTFT_BELOW_300])).toBe(Infinity);
  });
  it('takes the limit that breaks first, and a step without samples as broken', () => {
    // TTFT crosses at 3.25 users, speed (12 -> 6 over 2..4) at 2 + 2 * 2 / 6 = 2.67 -> 2.
    expect(ladderCapacity(users, [[100, 20], [200, 12], [360, 6]], [TTFT_BELOW_300, SPEED_ABOVE_10])).toBe(2);
    expect(ladderCapacity(users, [[100], [200], [null]], [TTFT_BELOW_300])).toBe(2);
  });
});

describe('capacityInterval: how far the noise of the requests moves the capacity', () => {
  it('collapses to the capacity when the requests do not vary', () => {
    const steps = [step(1, 100, 5), step(2, 200, 5), step(4, 360, 5)];
    expect(capacityInterval(steps, [TTFT_BELOW_300])).toMatchObject({ level: 0.95, low: 3, high: 3, largestStep: 4 });
  });

  it('widens with the spread of the requests, contains the capacity, and repeats for a seed', () => {
    // One user's requests do not vary: no noise shared by the larger steps' requests, only their own spread.
    const noisy = [step(1, 100, 5), step(2, 200, 5, 120), step(4, 360, 5, 200)];
    const interval = capacityInterval(noisy, [TTFT_BELOW_300], { seed: 7 })!;
    expect(interval.low).toBeLessThanOrEqual(3);
    expect(interval.high ?? Infinity).toBeGreaterThanOrEqual(3);
    expect(interval.low).toBeLessThan(interval.high ?? Infinity);
    expect(capacityInterval(noisy, [TTFT_BELOW_300], { seed: 7 })).toEqual(interval);
    // The same spread over 20 times the requests: the step means move less, the interval narrows.
    const many = [step(1, 100, 100), step(2, 200, 100, 120), step(4, 360, 100, 200)];
    const narrow = capacityInterval(many, [TTFT_BELOW_300], { seed: 7 })!;
    expect((narrow.high ?? 99) - narrow.low).toBeLessThan((interval.high ?? 99) - interval.low);
  });

  it('extrapolates where a ladder that breaks nothing would break, up to twice its largest step', () => {
    // 100 ms at 1 user, 200 at 2: a power law of exponent 1 reaches 350 ms at 3.5 users -> 3.
    const below350 = { ...TTFT_BELOW_300, value: 350, expression: 'avg<350' };
    expect(capacityInterval([step(1, 100, 4), step(2, 200, 4)], [below350])).toMatchObject({ low: 3, high: 3 });
    // Exactly at 3 users for a 300 ms strict limit: 3 already breaks it -> 2.
    expect(capacityInterval([step(1, 100, 4), step(2, 200, 4)], [TTFT_BELOW_300])).toMatchObject({ low: 2, high: 2 });
  });

  it('is open above when some replicates break no limit and their trend does not reach it', () => {
    // The last step sits near the limit, flat from the first: about half the replicates pass it and go nowhere.
    const steps = [step(1, 290, 4), step(2, 295, 4, 100)];
    const interval = capacityInterval(steps, [TTFT_BELOW_300])!;
    expect(interval.high).toBeNull();
    expect(formatInterval(interval)).toBe(`${interval.low}-more than 2`);
  });

  it('moves a many-user step by the noise one user\'s requests show, once for all its requests', () => {
    // 20 users whose 40 requests agree to the ms: alone they leave the capacity exact.
    const quiet = [step(1, 100, 4), step(10, 200, 40), step(20, 290, 40), step(30, 400, 40)];
    expect(capacityInterval(quiet, [TTFT_BELOW_300])).toMatchObject({ low: 20, high: 20 });
    // One user's requests spread by +-5% (a server's hiccups): the 20-user step's mean moves by as much, so 290 ms
    // may break 300 and the capacity falls to the crossing below it.
    const shaky = [step(1, 100, 4, 5), ...quiet.slice(1)];
    const interval = capacityInterval(shaky, [TTFT_BELOW_300])!;
    expect(interval.low).toBeLessThan(20);
    expect(interval.high).toBeGreaterThan(20);
    expect(sharedNoise(shaky, [TTFT_BELOW_300])[0]).toBeCloseTo(Math.sqrt((25 + 25 + (5 / 3) ** 2 * 2) / 3) / 100, 6);
    // Measured twice, the step averages two stretches of the server's time: narrower.
    const twice = [shaky[0]!, shaky[1]!, { ...shaky[2]!, measurements: 2 }, shaky[3]!];
    const narrower = capacityInterval(twice, [TTFT_BELOW_300])!;
    expect(narrower.high! - narrower.low).toBeLessThanOrEqual(interval.high! - interval.low);
  });

});

describe('capacityInterval: share limits, a capacity stated off the steps, no steps', () => {
  it('widens to hold a capacity stated off the measured steps', () => {
    const interval = { level: 0.95, low: 53, high: 55, largestStep: 58, replicates: 1000 };
    expect(withCapacity(interval, 51)).toMatchObject({ low: 51, high: 55 });
    expect(withCapacity(interval, 54)).toEqual(interval);
    expect(withCapacity({ ...interval, high: null }, 60)).toMatchObject({ low: 53, high: null });
    expect(withCapacity(null, 51)).toBeNull();
  });

  it('draws the success rate as a binomial of the step', () => {
    const steps: IntervalStep[] = [
      { users: 1, values: [null], succeeded: 100, failed: 0 },
      { users: 2, values: [null], succeeded: 90, failed: 10 },
    ];
    // 90% success can never resample to 99%: the capacity is 1 in every replicate.
    expect(capacityInterval(steps, [SUCCESS])).toMatchObject({ low: 1, high: 1 });
  });

  it('draws goodput as a binomial of its own counts, apart from the success rate', () => {
    const goodput = { metric: 'goodput', operator: '>=', value: 0.95, expression: 'rate>=0.95' } as const;
    const at = (users: number, passes: number): IntervalStep =>
      ({ users, values: [{ passes, fails: 200 - passes }], succeeded: 200, failed: 0 });
    // 99% and 80% of 200 requests on either side of 95%: every replicate reads 1.
    expect(capacityInterval([at(1, 198), at(2, 160)], [goodput])).toMatchObject({ low: 1, high: 1 });
    // 95.5% of 200 passes in about half the replicates: the interval spans both steps.
    const wide = capacityInterval([at(1, 200), at(2, 191), at(3, 100)], [goodput])!;
    expect([wide.low, wide.high]).toEqual([1, 2]);
  });

  it('has no interval without measured steps', () => {
    expect(capacityInterval([], [TTFT_BELOW_300])).toBeNull();
  });
});

describe('helpers', () => {
  it('mulberry32 repeats for a seed and stays in [0, 1)', () => {
    const a = mulberry32(3);
    const b = mulberry32(3);
    const xs = Array.from({ length: 1000 }, () => a());
    expect(xs).toEqual(Array.from({ length: 1000 }, () => b()));
    expect(Math.min(...xs)).toBeGreaterThanOrEqual(0);
    expect(Math.max(...xs)).toBeLessThan(1);
  });
});
