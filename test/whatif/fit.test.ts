import { describe, expect, it } from 'vitest';
import { findProfile, type Profile } from '../../sim/profiles';
import { virtualCapacity } from '../../bench/virtual-capacity';
import { USE_CASES } from '../../thresholds/use-cases';
import { fitProfile } from '../../whatif/fit';
import type { MeasuredCell } from '../../whatif/fit-cells';
import { fitBaseHardware } from '../../whatif/fit-parameters';
import { predictCell } from '../../whatif/virtual-cell';

/** A grid "measured" on a profile in virtual time: the model's own requests, each moved by a seeded +-1%. */
function gridOf(profile: Profile, contexts: number[], users: number[]): MeasuredCell[] {
  let seed = 1;
  const jitter = (x: number) => x * (1 + 0.01 * Math.sin(seed++));
  return contexts.flatMap((promptTokens) => users.map((concurrency) => {
    const shape = { promptTokens, outputTokens: 48, concurrency, rounds: 2 };
    const requests = predictCell(profile, shape);
    return {
      id: `c${promptTokens}_n${concurrency}`, ...shape,
      ttftMs: Float64Array.from(requests.map((r) => jitter(r.ttftMs))),
      tpotMs: Float64Array.from(requests.map((r) => jitter(r.tpotMs!))),
    };
  }));
}

describe('fitProfile', () => {
  const truth = findProfile('B')!;
  const cells = gridOf(truth, [256, 2048, 8192], [1, 4, 16, 48]);
  // The architecture is the truth's (a user states experts and top-k); every timing parameter starts from the data.
  const base = { ...truth, hardware: fitBaseHardware(truth.hardware, false) };
  const fit = fitProfile(cells, { base, resamples: 30, seed: 3, maxIterations: 25 });

  it("predicts every cell's medians within 6% of what the profile it was fitted to gives", () => {
    fit.observations.forEach((o, i) => {
      expect(Math.abs(fit.predicted[i]! / o.measured - 1), `${cells[o.cell]!.id} ${o.metric}`).toBeLessThan(0.06);
    });
  });

  it("recovers the parameters the grid shows: the overhead, prefill's compute and attention", () => {
    const value = (n: string) => fit.values[fit.names.indexOf(n as never)]!;
    expect(value('requestOverheadMs') / truth.hardware.requestOverheadMs).toBeGreaterThan(0.7);
    expect(value('requestOverheadMs') / truth.hardware.requestOverheadMs).toBeLessThan(1.4);
    expect(value('lambdaUsPerToken') / truth.hardware.lambdaUsPerToken).toBeGreaterThan(0.8);
    expect(value('lambdaUsPerToken') / truth.hardware.lambdaUsPerToken).toBeLessThan(1.25);
  });

  it('gives capacities within one user of the true profile for use cases inside the grid', () => {
    for (const id of ['code_completion', 'short_chatbot']) {
      const useCase = USE_CASES.find((u) => u.id === id)!;
      const want = virtualCapacity(truth, useCase, 128, 200, 'avg');
      expect(Math.abs(virtualCapacity(fit.profile, useCase, 128, 200, 'avg') - want), id).toBeLessThanOrEqual(1);
    }
  });

  it('refits spread around the fit, each with every parameter positive', () => {
    expect(fit.resampled).toHaveLength(30);
    for (const values of fit.resampled) for (const v of values) expect(v).toBeGreaterThan(0);
    const overhead = fit.resampled.map((v) => v[fit.names.indexOf('requestOverheadMs')]!);
    expect(new Set(overhead.map((v) => v.toFixed(6))).size).toBeGreaterThan(1);
  });
});
