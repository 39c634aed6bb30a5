// Tests bench/virtual-capacity.ts: the true capacity in virtual time is the largest step that holds. Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { virtualCapacity, virtualStepHolds, virtualStepStats } from '../../bench/virtual-capacity';
import { DEFAULT_NOISE } from '../../sim/noise';
import { findProfile } from '../../sim/profiles';
import { USE_CASES } from '../../thresholds/use-cases';

const A = findProfile('A')!;
const code = USE_CASES.find((u) => u.id === 'code_completion')!;

describe('virtualCapacity', () => {
  it('is the last number of users within every limit, the next one breaking one', () => {
    const c = virtualCapacity(A, code, 128, 64, 'avg');
    expect(c).toBeGreaterThan(8);
    expect(virtualStepHolds(A, code, 128, c, 'avg')).toBe(true);
    expect(virtualStepHolds(A, code, 128, c + 1, 'avg')).toBe(false);
  });

  it('stops at maxUsers when nothing breaks, and is lower or equal with the noise on (its stalls slow decoding)', () => {
    expect(virtualCapacity(A, code, 128, 4, 'avg')).toBe(4);
    const noisy = virtualCapacity(A, code, 128, 64, 'avg', { model: DEFAULT_NOISE, seed: 3 });
    expect(noisy).toBeLessThanOrEqual(virtualCapacity(A, code, 128, 64, 'avg'));
  });

  it("judges each limit on its statistic times the chain's factor, so a slower client moves the capacity down", () => {
    const c = virtualCapacity(A, code, 128, 64, 'avg');
    const [e2e] = virtualStepStats(A, code, 128, c, 'avg');
    expect(e2e).toBeLessThan(2000);
    // A chain adding just enough to the e2e at c users that c breaks the 2 s limit.
    const scale = [2000 / e2e! * 1.001];
    expect(virtualStepHolds(A, code, 128, c, 'avg', undefined, scale)).toBe(false);
    expect(virtualCapacity(A, code, 128, 64, 'avg', undefined, scale)).toBe(c - 1);
  });
});
