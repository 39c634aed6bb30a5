// Tests orchestrator/agentic-search.ts: the search over concurrent agents resolves every tier of any monotone system
// to the resolution from one set of steps (each step judging all tiers), narrows the strictest tier first, measures a
// step the client limited again and ends there when limited twice. Runs in Node.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  checkAgenticSearchConfig, nextAgentsStep, tierSearchLimits, type AgenticSearchConfig, type AgentsStep,
} from '../../orchestrator/agentic-search';
import { resolutionAt } from '../../lib/plan';
import type { SloTier } from '../../thresholds/agentic';

const floor = (id: string, tokS: number): SloTier => ({
  id, limits: [{ metric: 'decodeSpeed', stat: 'p(25)', operator: '>=', value: tokS }],
});
const TIERS = [floor('interactive', 50), floor('standard', 20), floor('batch', 5)];
const LIMITS = TIERS.map((t) => tierSearchLimits(t, 0.99));
const cfg: AgenticSearchConfig = { startAgents: 4, maxAgents: 256, exactBelow: 8, resolutionPercent: 10 };

/** A step of `agents` on a server whose p25 speed is `speed(agents)`: every tier judged on it. */
function step(agents: number, speed: (n: number) => number, clientLimited: string | null = null): AgentsStep {
  const actual = speed(agents);
  const tiers = LIMITS.map((limits) => {
    const checks = limits.map((l) => l.metric === 'successRate'
      ? { metric: l.metric, label: l.label, expression: l.expression, actual: 1, ok: true }
      : { metric: l.metric, label: l.label, expression: l.expression, actual, ok: actual >= l.value });
    return { ok: checks.every((c) => c.ok), checks };
  });
  return { agents, cellId: `agentic_n${agents}`, tiers, clientLimited };
}

/** Runs the search against `speed` to its end: the agents tried and the outcome. */
function search(
  speed: (n: number) => number, c = cfg, limitedAt: (n: number, again: boolean) => boolean = () => false,
) {
  const steps: AgentsStep[] = [];
  for (let i = 0; i < 80; i++) {
    const s = nextAgentsStep(steps, c, LIMITS);
    if (s.kind === 'done') return { steps, outcome: s };
    expect(steps.some((p) => p.agents === s.agents), `retries ${s.agents}`).toBe(s.again);
    const limited = limitedAt(s.agents, s.again) ? 'the measuring agent used 95% of its cores' : null;
    steps.push(step(s.agents, speed, limited));
  }
  throw new Error('the search did not end');
}

/** The largest agents whose speed holds `value` (the true capacity), 0 when none, capped at maxAgents. */
function truth(speed: (n: number) => number, value: number, max = cfg.maxAgents): number {
  let n = 0;
  while (n < max && speed(n + 1) >= value) n++;
  return n;
}

describe('nextAgentsStep', () => {
  it('starts at startAgents and resolves every tier from one set of steps', () => {
    const speed = (n: number) => 1000 / n;
    const { steps, outcome } = search(speed);
    expect(steps[0]!.agents).toBe(4);
    expect(outcome.clientLimited).toBeNull();
    outcome.tiers.forEach((t, i) => {
      const value = TIERS[i]!.limits[0]!.value;
      expect(t.lastPass!).toBeLessThanOrEqual(truth(speed, value));
      expect(t.firstFail!).toBeGreaterThan(truth(speed, value));
      expect(t.firstFail! - t.lastPass!).toBeLessThanOrEqual(resolutionAt(t.lastPass!, cfg));
    });
    // Fewer steps than three searches of their own: each step judges all three tiers.
    expect(steps.length).toBeLessThan(20);
  });

  it('narrows the strictest tier before climbing for the looser ones', () => {
    const { steps } = search((n) => 1000 / n);
    // Interactive breaks above 20, standard above 50: every step at or below 20's first failing step comes before the
    // first step above 50.
    const firstAbove50 = steps.findIndex((s) => s.agents > 50);
    const interactiveSteps = steps.filter((s) => s.agents > 16 && s.agents <= 32).map((s) => steps.indexOf(s));
    expect(firstAbove50).toBeGreaterThan(Math.max(...interactiveSteps));
  });

  it('lands within the resolution on any monotone system (property)', () => {
    fc.assert(fc.property(fc.integer({ min: 50, max: 20_000 }), fc.double({ min: 0.3, max: 2, noNaN: true }),
      (scale, exponent) => {
        const speed = (n: number) => scale / Math.pow(n, exponent);
        const { outcome } = search(speed);
        outcome.tiers.forEach((t, i) => {
          const real = truth(speed, TIERS[i]!.limits[0]!.value);
          if (real >= cfg.maxAgents) return expect([t.lastPass, t.firstFail]).toEqual([cfg.maxAgents, null]);
          expect(t.lastPass ?? 0).toBeLessThanOrEqual(real);
          expect(t.firstFail!).toBeGreaterThan(real);
          const width = t.firstFail! - (t.lastPass ?? 0);
          expect(width).toBeLessThanOrEqual(resolutionAt(Math.max(1, t.lastPass ?? 0), cfg));
        });
      }), { numRuns: 200 });
  });

  it('a tier no step breaks is more than maxAgents; one the first step breaks is bisected down', () => {
    const { outcome } = search(() => 30, { ...cfg, maxAgents: 32 });
    expect(outcome.tiers.map((t) => [t.lastPass, t.firstFail])).toEqual([[null, 1], [32, null], [32, null]]);
  });

  it('measures a step the client limited again, and ends there when limited twice', () => {
    const speed = (n: number) => 1000 / n;
    // Limited once at 8: measured again (clean), and the search goes on as before.
    const once = search(speed, cfg, (n, again) => n === 8 && !again);
    expect(once.steps.map((s) => s.agents).slice(0, 3)).toEqual([4, 8, 8]);
    expect(once.outcome.clientLimited).toBeNull();
    // Limited at 16 and above every time: the search ends at the first, every tier undetermined above 8.
    const twice = search(speed, cfg, (n) => n >= 16);
    expect(twice.outcome.clientLimited?.agents).toBe(16);
    expect(twice.outcome.tiers.map((t) => [t.lastPass, t.firstFail, t.limited])).toEqual([
      [8, null, true], [8, null, true], [8, null, true],
    ]);
  });

  it('refuses a maxAgents below startAgents', () => {
    expect(() => checkAgenticSearchConfig({ ...cfg, maxAgents: 2 })).toThrow(/maxAgents/);
  });
});
