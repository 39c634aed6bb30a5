// Tests orchestrator/capacity-search.ts: the search's moves and its resolution. Runs in Node (vitest).
// It also checks that the search lands on the capacity of any monotone system.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { nextSearchStep, type SearchPoint } from '../../orchestrator/capacity-search';
import { extrapolateCrossing, powerLawBase } from '../../analysis/stats';
import { resolutionAt } from '../../lib/plan';
import type { LadderLimit } from '../../analysis/capacity';

const cfg = { startUsers: 1, exactBelow: 16, resolutionPercent: 5 };
const speedLimit: LadderLimit = {
  metric: 'decodeSpeed', operator: '>', value: 15, label: 'speed > 15 tok/s', expression: 'avg>15',
};

/** A point of a system whose per-user speed is 150 / n^b, checked against speed > 15. */
function point(users: number, speed: (n: number) => number): SearchPoint {
  const actual = speed(users);
  const ok = actual > speedLimit.value;
  return {
    users, ok,
    checks: [{ metric: 'decodeSpeed', label: speedLimit.label, expression: speedLimit.expression, actual, ok }],
  };
}

/** Runs the search to the end against `speed`; returns the steps tried and the outcome. */
function search(
  speed: (n: number) => number, maxUsers: number,
): { tried: number[]; lastPass: number | null; firstFail: number | null } {
  const points: SearchPoint[] = [];
  for (let i = 0; i < 100; i++) {
    const s = nextSearchStep(points, cfg, maxUsers, [speedLimit]);
    if (s.kind === 'done') return { tried: points.map((p) => p.users), lastPass: s.lastPass, firstFail: s.firstFail };
    expect(points.some((p) => p.users === s.users), `retries ${s.users}`).toBe(false);
    points.push(point(s.users, speed));
  }
  throw new Error('the search did not end in 100 steps');
}

describe('resolutionAt', () => {
  it('is one user below exactBelow, and the percentage of n above', () => {
    expect(resolutionAt(1, cfg)).toBe(1);
    expect(resolutionAt(15, cfg)).toBe(1);
    expect(resolutionAt(16, cfg)).toBe(1);
    expect(resolutionAt(40, cfg)).toBe(2);
    expect(resolutionAt(100, cfg)).toBe(5);
  });
});

describe('powerLawBase', () => {
  it('is the largest step at most half of the top, else the smallest', () => {
    expect(powerLawBase([1, 2, 4, 8, 16, 17, 18], 6)).toBe(3);
    expect(powerLawBase([32, 64, 73, 74], 3)).toBe(0);
    expect(powerLawBase([60, 64], 1)).toBe(0);
    expect(powerLawBase([60], 0)).toBe(-1);
  });
});

describe('extrapolateCrossing', () => {
  it('finds where a power law reaches the limit', () => {
    // 160 / n: 160 at 1, 80 at 2, reaches 16 at 10.
    expect(extrapolateCrossing(1, 160, 2, 80, 16)).toBeCloseTo(10, 6);
    // Rising TTFT: 1000 at 1, 2000 at 2, reaches 8000 at 8.
    expect(extrapolateCrossing(1, 1000, 2, 2000, 8000)).toBeCloseTo(8, 6);
  });

  it('gives none when the statistic does not move or moves away', () => {
    expect(extrapolateCrossing(1, 100, 2, 100, 15)).toBeNull();
    expect(extrapolateCrossing(1, 100, 2, 120, 15)).toBeNull();
  });
});

describe('nextSearchStep climbing', () => {
  it('starts at startUsers, doubles without a prediction, and climbs to the predicted crossing (at most x2)', () => {
    expect(nextSearchStep([], cfg, 64, [speedLimit])).toEqual({ kind: 'next', users: 1 });
    const p1 = point(1, () => 150);
    expect(nextSearchStep([p1], cfg, 64, [speedLimit])).toEqual({ kind: 'next', users: 2 });
    // 150, 75 -> 15 at 10, but a climb is at most x2 of 2.
    expect(nextSearchStep([p1, point(2, () => 75)], cfg, 64, [speedLimit])).toEqual({ kind: 'next', users: 4 });
    // 150, 50 (b = -1.58) -> 15 at 2 x 3^(1/1.58) = 4.0...: the prediction, below x2.
    expect(nextSearchStep([p1, point(2, () => 40)], cfg, 64, [speedLimit])).toEqual({ kind: 'next', users: 3 });
    // 150, 140: a slow fall predicts far away: x2.
    expect(nextSearchStep([p1, point(2, () => 140)], cfg, 64, [speedLimit])).toEqual({ kind: 'next', users: 4 });
  });

  it('climbs on a base at most half its largest pass, so two neighbouring steps\' noise does not send it to x2', () => {
    // 30 tok/s at 32 users, 20 at 60, and 20.2 at 64 (noise: flat from 60). From 60 and 64 the speed does not fall,
    // which would double to 128; from 32 and 64: b = log(20.2 / 30) / log 2, 15 tok/s at 64 x (15 / 20.2)^(1/b)
    // = 107.8.
    const speeds: Record<number, number> = { 32: 30, 60: 20, 64: 20.2 };
    const points = [32, 60, 64].map((n) => point(n, () => speeds[n]!));
    expect(nextSearchStep(points, cfg, 256, [speedLimit])).toEqual({ kind: 'next', users: 107 });
  });
});

describe('nextSearchStep narrowing and ending', () => {
  it('tries the interpolated crossing between the last pass and the first fail, then one resolution beyond it, and ' +
    'ends at the resolution', () => {
    const s = (n: number) => (n <= 5 ? 20 : 10);
    // 20 at 1, 10 at 8: speed 15 is crossed at 8^(log(0.75)/log(0.5)) = 2.37 on a power law.
    expect(nextSearchStep([point(1, s), point(8, s)], cfg, 64, [speedLimit])).toEqual({ kind: 'next', users: 2 });
    // 2 passed next to the predicted crossing: probe one user above it.
    expect(nextSearchStep([point(1, s), point(8, s), point(2, s)], cfg, 64, [speedLimit])).toEqual({
      kind: 'next', users: 3,
    });
    // Two tries that did not halve the interval: bisect.
    expect(nextSearchStep([point(1, s), point(8, s), point(2, s), point(3, s)], cfg, 64, [speedLimit])).toEqual({
      kind: 'next', users: 5,
    });
    // Without figures to interpolate (a step where every request failed), bisect.
    const blind: SearchPoint = {
      users: 8, ok: false,
      checks: [
        { metric: 'decodeSpeed', label: speedLimit.label, expression: speedLimit.expression, actual: null, ok: false },
      ],
    };
    expect(nextSearchStep([point(1, s), blind], cfg, 64, [speedLimit])).toEqual({ kind: 'next', users: 4 });
    expect(nextSearchStep([point(5, s), point(6, s)], cfg, 64, [speedLimit])).toEqual({
      kind: 'done', lastPass: 5, firstFail: 6,
    });
  });

  it('says "below 1" when one user already breaks a limit, and stops at maxUsers', () => {
    expect(nextSearchStep([point(1, () => 5)], cfg, 64, [speedLimit])).toEqual({
      kind: 'done', lastPass: null, firstFail: 1,
    });
    expect(nextSearchStep([point(64, () => 50)], cfg, 64, [speedLimit])).toEqual({
      kind: 'done', lastPass: 64, firstFail: null,
    });
  });
});

describe('the search run to its end', () => {
  it('lands on the capacity of any monotone system, exact below 16 users and within 5% above', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 300 }), fc.double({ min: 0.2, max: 2, noNaN: true }), (capacity, b) => {
        // speed(n) = 15 * (capacity + 0.5)^b / n^b: above 15 up to `capacity`, below from capacity + 1.
        const speed = (n: number) => (15 * Math.pow(capacity + 0.5, b)) / Math.pow(n, b);
        const r = search(speed, 256);
        if (capacity >= 256) {
          expect(r).toMatchObject({ lastPass: 256, firstFail: null });
          return;
        }
        expect(r.firstFail).not.toBeNull();
        expect(r.lastPass).not.toBeNull();
        expect(r.lastPass!).toBeLessThanOrEqual(capacity);
        expect(r.firstFail!).toBeGreaterThan(capacity);
        expect(r.firstFail! - r.lastPass!).toBeLessThanOrEqual(resolutionAt(r.lastPass!, cfg));
        if (capacity < 16) expect(r.lastPass).toBe(capacity);
      }),
      { numRuns: 300 },
    );
  });

  it('takes few steps on a smooth system: 8 from a 1/n system, 80 from a 1/n^0.9 one', () => {
    const r = search((n) => (15 * 8.5) / n, 256);
    expect(r.lastPass).toBe(8);
    expect(r.tried.length).toBeLessThanOrEqual(5);
    const big = search((n) => (15 * Math.pow(80.5, 0.9)) / Math.pow(n, 0.9), 256);
    expect(big.lastPass).toBeGreaterThanOrEqual(77);
    expect(big.lastPass).toBeLessThanOrEqual(80);
    expect(big.tried.length).toBeLessThanOrEqual(9);
  });
});
