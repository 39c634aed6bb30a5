// Tests for the plan as a bench run uses it after its one resolution (lib/plan.ts bindTarget, reschedulePlan,
// isResolvedPlan): binding the server and sizing slots again give what resolving again would. Runs in Node (vitest).

import { describe, expect, it } from 'vitest';
import { bindTarget, isResolvedPlan, reschedulePlan, resolvePlan, type PlanInput } from '../../lib/plan';
import { QUICK_PLAN } from '../../orchestrator/default-plans';

const SERVER = { baseUrl: 'http://127.0.0.1:9/v1', model: 'tiny' };

describe('bindTarget', () => {
  it('points the plan at the server, its metrics URL at the server\'s origin, as resolving with BASE_URL would', () => {
    const bound = bindTarget(resolvePlan(QUICK_PLAN, 'sweep'), SERVER, undefined);
    const input: PlanInput = { ...QUICK_PLAN, target: { ...QUICK_PLAN.target, ...SERVER } };
    expect(bound).toEqual(resolvePlan(input, 'sweep'));
    expect(bound.target.metricsUrl).toBe('http://127.0.0.1:9/metrics');
  });

  it('keeps a metrics URL the plan input named, or none', () => {
    const named = bindTarget(resolvePlan(QUICK_PLAN, 'sweep'), SERVER, 'http://gpu:9400/metrics');
    expect(named.target.metricsUrl).toBe('http://gpu:9400/metrics');
    expect(bindTarget(resolvePlan(QUICK_PLAN, 'sweep'), SERVER, null).target.metricsUrl).toBeNull();
  });
});

describe('reschedulePlan', () => {
  it.each(['sweep', 'capacity', 'rate', 'sessions'] as const)(
    'sizes the %s script\'s slots from new speeds as resolving with those speeds would', (script) => {
      const speeds = { prefillTokensPerSecond: 900, decodeTokensPerSecond: 12.5 };
      const resolved = resolvePlan(QUICK_PLAN, script);
      const again = resolvePlan({ ...QUICK_PLAN, schedule: { ...QUICK_PLAN.schedule, ...speeds } }, script);
      const rescheduled = reschedulePlan(resolved, { ...resolved.schedule, ...speeds });
      expect(rescheduled).toEqual(again);
      expect(rescheduled.totalSeconds).not.toBe(resolved.totalSeconds);
    },
  );

  it('uses a model\'s predicted seconds per cell in place of the estimate', () => {
    const resolved = resolvePlan(QUICK_PLAN, 'sweep');
    const predictedCellSeconds = Object.fromEntries(resolved.cells.map((c) => [c.id, 1]));
    const tight = reschedulePlan(resolved, { ...resolved.schedule, predictedCellSeconds, minCellSeconds: 2 });
    expect(tight.cells.map((c) => c.id)).toEqual(resolved.cells.map((c) => c.id));
    expect(tight.cells.every((c) => c.maxDurationSeconds === 2)).toBe(true);
  });
});

describe('isResolvedPlan', () => {
  it('tells a resolved plan (plan.json) from a plan input', () => {
    const resolved = JSON.parse(JSON.stringify(resolvePlan(QUICK_PLAN, 'sweep')));
    expect(isResolvedPlan(resolved)).toBe(true);
    expect(isResolvedPlan(QUICK_PLAN)).toBe(false);
    expect(isResolvedPlan({ ...resolved, schemaVersion: 0 })).toBe(false);
  });
});
