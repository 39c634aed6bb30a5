import { describe, expect, it } from 'vitest';
import { findProfile, type Profile } from '../../sim/profiles';
import { fitProfile } from '../../whatif/fit';
import { architectureCandidates, fitChoosingArchitecture } from '../../whatif/fit-architecture';
import type { MeasuredCell } from '../../whatif/fit-cells';
import { fitBaseHardware } from '../../whatif/fit-parameters';
import { predictCell } from '../../whatif/virtual-cell';

/**
 * A grid "measured" on a profile in virtual time, each cell's users started 2 ms apart as a client hands a burst on
 * (the fit run on profile A measured 1 to 5 ms per user), each request moved by a seeded +-1%.
 */
function staggeredGrid(profile: Profile, contexts: number[], users: number[]): MeasuredCell[] {
  let seed = 1;
  const jitter = (x: number) => x * (1 + 0.01 * Math.sin(seed++));
  return contexts.flatMap((promptTokens) => users.map((concurrency) => {
    const userStartMs = Array.from({ length: concurrency }, (_, u) => 2 * u);
    const shape = { promptTokens, outputTokens: 48, concurrency, rounds: 2, userStartMs };
    const requests = predictCell(profile, shape);
    return {
      id: `c${promptTokens}_n${concurrency}`, ...shape,
      ttftMs: Float64Array.from(requests.map((r) => jitter(r.ttftMs))),
      tpotMs: Float64Array.from(requests.map((r) => jitter(r.tpotMs!))),
    };
  }));
}

describe('the fit on a grid whose users started as a client starts them', () => {
  const truth = findProfile('A')!;
  const cells = staggeredGrid(truth, [256, 2048, 16_384], [1, 4, 16, 48]);

  it('recovers the attention term and prefill compute of a 16K grid', () => {
    const base = { ...truth, hardware: fitBaseHardware(truth.hardware, false) };
    const fit = fitProfile(cells, { base, resamples: 0, seed: 1, maxIterations: 25 });
    const value = (n: string) => fit.values[fit.names.indexOf(n as never)]!;
    const alpha = value('alphaSecondsPerPair') / truth.hardware.alphaSecondsPerPair;
    const lambda = value('lambdaUsPerToken') / truth.hardware.lambdaUsPerToken;
    expect(alpha, `alpha ${value('alphaSecondsPerPair')}`).toBeGreaterThan(0.85);
    expect(alpha, `alpha ${value('alphaSecondsPerPair')}`).toBeLessThan(1.15);
    expect(lambda, `lambda ${value('lambdaUsPerToken')}`).toBeGreaterThan(0.85);
    expect(lambda, `lambda ${value('lambdaUsPerToken')}`).toBeLessThan(1.15);
  });

  it("keeps the mixture of experts' shape when the user states no architecture, not a dense model", () => {
    const base = { ...truth, hardware: fitBaseHardware(truth.hardware, true) };
    const { choice } = fitChoosingArchitecture(cells, { base, resamples: 0, seed: 1, maxIterations: 15 },
      architectureCandidates(base));
    expect(choice.how).toBe('chosen');
    expect(choice.label).toBe('moe-128x8');
    const dense = choice.candidates.find((c) => c.label === 'dense')!;
    expect(dense.rmsLogError).toBeGreaterThan(choice.candidates[0]!.rmsLogError);
  });
});
