// The plans a prediction resolves: the bench's, against a target no server answers for. Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { EXIT, UserError } from '../../lib/exit-codes';
import { PlanError } from '../../lib/plan';
import { FULL_PLAN, QUICK_PLAN } from '../../orchestrator/default-plans';
import { findProfile } from '../../sim/profiles';
import { predictedPlans, VIRTUAL_BASE_URL } from '../../whatif/predict-run';

const A = findProfile('A')!;

describe('predictedPlans', () => {
  it('resolves each part with the profile\'s model, nothing to scrape and a host that cannot answer', () => {
    const plans = predictedPlans(QUICK_PLAN, ['sweep', 'capacity'], A);
    expect(plans.map((p) => p.script)).toEqual(['sweep', 'capacity']);
    for (const p of plans) {
      expect(p.target).toMatchObject({ baseUrl: VIRTUAL_BASE_URL, model: A.model, metricsUrl: null });
      expect(p.monitor.enabled).toBe(false);
    }
    expect(new URL(VIRTUAL_BASE_URL).hostname.endsWith('.invalid')).toBe(true);
  });

  it('refuses a script it does not predict as a usage error', () => {
    for (const script of ['sessions', 'rate', 'trace', 'gate'] as const) {
      const call = () => predictedPlans(QUICK_PLAN, ['sweep', script], A);
      expect(call).toThrow(UserError);
      expect(call).toThrow(`the ${script} script is not predicted yet`);
      try {
        call();
      } catch (e) {
        expect((e as UserError).exitCode).toBe(EXIT.usage);
      }
    }
  });

  it('keeps a context the window holds once its prompt is cut, and refuses one it cannot', () => {
    expect(predictedPlans(FULL_PLAN, ['sweep'], A)[0]!.cells.some((c) => c.contextTokens === 262_144)).toBe(true);
    const tooLong = { ...QUICK_PLAN, sweep: { ...QUICK_PLAN.sweep, contexts: [600_000] } };
    expect(() => predictedPlans(tooLong, ['sweep'], A)).toThrow(PlanError);
  });
});
