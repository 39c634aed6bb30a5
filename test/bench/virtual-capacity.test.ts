// Tests bench/virtual-capacity.ts: the true capacity in virtual time is the largest step that holds. Runs in Node
// (vitest).
import { describe, expect, it } from 'vitest';
import {
  boundaryCrossing, virtualCapacity, virtualCrossing, virtualStepHolds, virtualStepStats,
} from '../../bench/virtual-capacity';
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

  it('stops at maxUsers when nothing breaks, and is lower or equal with the noise on (its stalls slow ' +
    'decoding)', () => {
    expect(virtualCapacity(A, code, 128, 4, 'avg')).toBe(4);
    const noisy = virtualCapacity(A, code, 128, 64, 'avg', { model: DEFAULT_NOISE, seed: 3 });
    expect(noisy).toBeLessThanOrEqual(virtualCapacity(A, code, 128, 64, 'avg'));
  });

  it('places the boundary between the capacity and one more user, where the breaking limit crosses its value', () => {
    const c = virtualCapacity(A, code, 128, 64, 'avg');
    const x = virtualCrossing(A, code, 128, 64, 'avg')!;
    expect(x).toBeGreaterThanOrEqual(c);
    expect(x).toBeLessThanOrEqual(c + 1);
    const [e0] = virtualStepStats(A, code, 128, c, 'avg');
    const [e1] = virtualStepStats(A, code, 128, c + 1, 'avg');
    expect(e0! + (e1! - e0!) * (x - c)).toBeCloseTo(2000, 6);
    expect(virtualCrossing(A, code, 128, 4, 'avg')).toBeNull();
  });
});

describe('boundaryCrossing', () => {
  const limits = [{ metric: 'e2e', operator: '<', value: 2000, label: 'e2e < 2 s' }] as const;
  it('interpolates the first broken limit linearly, and is the failing step where none can be placed', () => {
    expect(boundaryCrossing(limits, 10, [1900], 12, [2100])).toBeCloseTo(11, 9);
    expect(boundaryCrossing(limits, 10, [1900], 12, [1990])).toBe(12);
    expect(boundaryCrossing(limits, 10, [2100], 12, [2200])).toBe(10);
  });
});
