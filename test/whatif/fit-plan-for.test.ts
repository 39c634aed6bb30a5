import { describe, expect, it } from 'vitest';
import { resolvePlan, type PlanInput } from '../../lib/plan';
import { FIT_PLAN, FULL_PLAN, QUICK_PLAN } from '../../orchestrator/default-plans';
import { mulberry32, standardNormal } from '../../lib/random';
import { findProfile, type Profile } from '../../sim/profiles';
import { fitProfile } from '../../whatif/fit';
import type { MeasuredCell } from '../../whatif/fit-cells';
import { fitBaseHardware } from '../../whatif/fit-parameters';
import { estimatedSeconds, fitPlanFor, targetReach } from '../../whatif/fit-plan-for';
import { predictCell } from '../../whatif/virtual-cell';

const truth = findProfile('A')!;
/** A target whose use case reads 128K-token prompts: the fixed fit plan stops at 16K. */
const LONG_TARGET: PlanInput = {
  name: 'long', sweep: { contexts: [1024, 131_072], concurrencies: [1, 2, 4], rounds: 1, outputTokens: 256 },
};

/**
 * A plan's sweep cells "measured" on a profile in virtual time: users 2 ms apart as a client hands a burst on, each
 * request's TTFT and time per output token off by a seeded lognormal factor of 5% (a shared host's noise).
 */
function measured(profile: Profile, plan: PlanInput, seed: number): MeasuredCell[] {
  const random = mulberry32(seed);
  const noisy = (x: number) => x * Math.exp(0.05 * standardNormal(random));
  return resolvePlan(plan, 'sweep').cells.map((c) => {
    const userStartMs = Array.from({ length: c.concurrency }, (_, u) => 2 * u);
    const shape = { promptTokens: c.contextTokens, outputTokens: 48, concurrency: c.concurrency, rounds: 2,
      userStartMs };
    const requests = predictCell(profile, shape);
    return {
      id: c.id, ...shape,
      ttftMs: Float64Array.from(requests.map((r) => noisy(r.ttftMs))),
      tpotMs: Float64Array.from(requests.map((r) => noisy(r.tpotMs!))),
    };
  });
}

describe('the fit plan sized to a target plan', () => {
  it("reaches the target's longest prompt and most users, and keeps the fixed plan's grid", () => {
    const sized = fitPlanFor(QUICK_PLAN, ['sweep', 'capacity'], 10, truth);
    const reach = targetReach(QUICK_PLAN, ['sweep', 'capacity']);
    const cells = resolvePlan(sized.plan, 'sweep').cells;
    expect(Math.max(...cells.map((c) => c.contextTokens))).toBe(reach.longestPrompt);
    expect(Math.max(...cells.map((c) => c.concurrency))).toBeGreaterThanOrEqual(Math.min(reach.mostUsers, 256));
    // Two users of the longest prompt at least: the KV read in a batch.
    expect(cells.filter((c) => c.contextTokens === reach.longestPrompt).map((c) => c.concurrency)).toContain(2);
    const ids = new Set(cells.map((c) => `${c.contextTokens}x${c.concurrency}`));
    const fixed = resolvePlan(FIT_PLAN, 'sweep').cells.filter((c) => c.contextTokens * c.concurrency <= 2 ** 19);
    for (const c of fixed) expect(ids.has(`${c.contextTokens}x${c.concurrency}`), c.id).toBe(true);
    expect(sized.estimatedMinutes).toBeLessThanOrEqual(10);
  });

  it('trims the plan to meet a tighter budget, and says when it cannot', () => {
    const roomy = fitPlanFor(QUICK_PLAN, ['sweep', 'capacity'], 60, truth);
    const tight = fitPlanFor(QUICK_PLAN, ['sweep', 'capacity'], 4, truth);
    expect(tight.maxTokensInFlight).toBeLessThan(roomy.maxTokensInFlight);
    expect(estimatedSeconds(tight.plan, truth)).toBeLessThan(estimatedSeconds(roomy.plan, truth));
    const impossible = fitPlanFor(QUICK_PLAN, ['sweep', 'capacity'], 0.5, truth);
    expect(impossible.notes.join(' ')).toMatch(/over the 0.5-minute budget/);
    // Past the cap: no more users than the fixed plan's, and only the longest context beyond 16K.
    const trimmed = resolvePlan(fitPlanFor(FULL_PLAN, ['sweep', 'capacity'], 1, truth).plan, 'sweep').cells;
    expect(Math.max(...trimmed.map((c) => c.concurrency))).toBe(64);
    expect([...new Set(trimmed.map((c) => c.contextTokens))]).toEqual([256, 1024, 4096, 16_384, 262_144]);
  });

  it('recovers the attention term and the KV read when the target has 128K prompts', () => {
    // The server's attention and KV read are twice the base profile's: the fit has to find them, not keep them.
    const hw = truth.hardware;
    const server = { ...truth,
      hardware: { ...hw, alphaSecondsPerPair: 2 * hw.alphaSecondsPerPair, kvBytesPerToken: 2 * hw.kvBytesPerToken } };
    const sized = fitPlanFor(LONG_TARGET, ['sweep'], 10, truth);
    expect(sized.reach.longestPrompt).toBe(131_072);
    const base = { ...truth, hardware: fitBaseHardware(hw, false) };
    const errors = (plan: PlanInput) => {
      const fit = fitProfile(measured(server, plan, 2), { base, resamples: 0, seed: 1, maxIterations: 25 });
      const off = (n: 'alphaSecondsPerPair' | 'kvBytesPerToken') =>
        Math.abs(fit.values[fit.names.indexOf(n)]! / server.hardware[n] - 1);
      return { alpha: off('alphaSecondsPerPair'), kv: off('kvBytesPerToken') };
    };
    const fitted = errors(sized.plan);
    expect(fitted.alpha).toBeLessThan(0.1);
    expect(fitted.kv).toBeLessThan(0.05);
    // The fixed plan, to 16K only, reads the KV term off 64 users of 16K: further off on the same noise.
    expect(fitted.kv).toBeLessThan(errors(FIT_PLAN).kv);
  }, 120_000);
});
