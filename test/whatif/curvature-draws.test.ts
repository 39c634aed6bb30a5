import { describe, expect, it } from 'vitest';
import { curvatureDraws } from '../../whatif/fit';

const spread = (draws: number[][], i: number) => {
  const xs = draws.map((d) => d[i]!);
  const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
  return Math.sqrt(xs.reduce((s, x) => s + (x - mean) ** 2, 0) / xs.length);
};

describe('curvatureDraws', () => {
  // Three parameters, four figures: the first is seen alone; the other two only ever as their sum (one prompt length
  // cannot tell prefill's compute from its attention).
  const jacobian = [[1, 0, 0], [0, 1, 1], [0, 1, 1], [1, 1, 1]];
  const residuals = [0.05, -0.05, 0.05, -0.05];
  const draws = curvatureDraws([0, 0, 0], jacobian, residuals, 400, 7);

  it('spreads a parameter the figures pin by about the misfit', () => {
    expect(spread(draws, 0)).toBeGreaterThan(0.02);
    expect(spread(draws, 0)).toBeLessThan(0.06);
  });

  it('spreads parameters the figures see only together far wider, and against each other', () => {
    expect(spread(draws, 1)).toBeGreaterThan(10 * spread(draws, 0));
    const sums = draws.map((d) => [d[1]! + d[2]!]);
    expect(spread(sums, 0)).toBeLessThan(0.06);
  });

  it('is seeded: the same draws for the same seed', () => {
    expect(curvatureDraws([0, 0, 0], jacobian, residuals, 3, 7)).toEqual(draws.slice(0, 3));
  });
});
