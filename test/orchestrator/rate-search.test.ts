// Tests orchestrator/rate-search.ts: the search over offered rate lands on any monotone system's capacity within its
// resolution, measures a step the client limited again and ends there when limited twice, and states an interval
// holding its capacity. Runs in Node.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  checkRateSearchConfig, fromGrid, nextRateStep, rateSearchInterval, toGrid, type RateSearchConfig, type RateStep,
} from '../../orchestrator/rate-search';
import type { LadderLimit } from '../../analysis/capacity';

const e2eLimit: LadderLimit = {
  metric: 'e2e', operator: '<', value: 2000, label: 'e2e < 2000 ms', expression: 'avg<2000',
};
const cfg: RateSearchConfig = { startRate: 1, maxRate: 100, resolutionPercent: 5 };

/** A queue's mean e2e at `rate`: `base` ms alone, growing without bound towards `saturation` requests/s. */
function queueE2e(base: number, saturation: number): (rate: number) => number {
  return (rate) => (rate >= saturation ? 1e6 : base / (1 - rate / saturation));
}

function step(rate: number, e2e: (r: number) => number, clientLimited: string | null = null): RateStep {
  const actual = e2e(rate);
  const ok = actual < e2eLimit.value;
  const check = { metric: 'e2e' as const, label: e2eLimit.label, expression: e2eLimit.expression, actual, ok };
  // Twenty requests spread 2% around the mean: the interval's bootstrap resamples these.
  const values = Float64Array.from({ length: 20 }, (_, i) => actual * (0.98 + (0.04 * i) / 19));
  const sample = { users: rate, values: [values], succeeded: 20, failed: 0 };
  return { rate, ok, checks: [check], sample, clientLimited };
}

/** Runs the search against `e2e` to its end; the rates tried and the outcome. */
function search(
  e2e: (r: number) => number, c = cfg, limitedAt: (rate: number, again: boolean) => boolean = () => false,
) {
  const steps: RateStep[] = [];
  for (let i = 0; i < 60; i++) {
    const s = nextRateStep(steps, c, [e2eLimit]);
    if (s.kind === 'done') return { steps, outcome: s };
    expect(steps.some((p) => p.rate === s.rate), `retries ${s.rate}`).toBe(s.again);
    steps.push(step(s.rate, e2e, limitedAt(s.rate, s.again) ? `sender achieved less than ${s.rate}` : null));
  }
  throw new Error('the rate search did not end in 60 steps');
}

/** The highest grid rate meeting the limit. */
function trueCapacity(e2e: (r: number) => number, maxRate: number): number {
  let best = 0;
  for (let u = 1; u <= toGrid(maxRate); u++) if (e2e(fromGrid(u)) < e2eLimit.value) best = u;
  return fromGrid(best);
}

describe('nextRateStep', () => {
  it('finds 11-12 requests/s for a server saturating at 20/s, within 5%, in few steps', () => {
    const e2e = queueE2e(900, 20);
    const { steps, outcome } = search(e2e);
    expect(outcome.kind).toBe('done');
    if (outcome.kind !== 'done') return;
    const truth = trueCapacity(e2e, cfg.maxRate);
    // The last pass measured is within the resolution below the true capacity; the first fail above it.
    expect(outcome.lastPass).toBeLessThanOrEqual(truth);
    expect(outcome.firstFail).toBeGreaterThan(truth);
    expect(outcome.firstFail! - outcome.lastPass!).toBeLessThanOrEqual(Math.max(0.1, outcome.lastPass! * 0.05) + 1e-9);
    // The breaking rate is a measured step.
    expect(steps.some((s) => s.rate === outcome.firstFail && !s.ok)).toBe(true);
    expect(steps.length).toBeLessThanOrEqual(10);
  });

  it('lands on any monotone queue capacity within its resolution', () => {
    fc.assert(fc.property(
      fc.integer({ min: 100, max: 3000 }), fc.integer({ min: 5, max: 900 }),
      (base, saturationTenths) => {
        const saturation = saturationTenths / 10;
        const e2e = queueE2e(base, saturation);
        const { outcome } = search(e2e);
        if (outcome.kind !== 'done') return false;
        const truth = trueCapacity(e2e, cfg.maxRate);
        if (truth === 0) return outcome.lastPass === null;
        if (outcome.lastPass === null || outcome.lastPass > truth) return false;
        if (outcome.firstFail === null) return truth === cfg.maxRate && outcome.lastPass === truth;
        const lo = toGrid(outcome.lastPass);
        return outcome.firstFail > truth && toGrid(outcome.firstFail) - lo <= Math.max(1, Math.floor((lo * 5) / 100));
      },
    ), { numRuns: 200 });
  });

  it('ends with no break when the highest rate holds', () => {
    const { outcome } = search(() => 500, { ...cfg, maxRate: 8 });
    expect(outcome).toEqual({ kind: 'done', lastPass: 8, firstFail: null, clientLimited: null });
  });

  it('measures a client-limited step again, and stops there when it is limited again', () => {
    const { steps, outcome } = search(queueE2e(900, 20), cfg, (rate) => rate >= 8);
    if (outcome.kind !== 'done') throw new Error('not done');
    expect(outcome.clientLimited?.rate).toBe(8);
    expect(steps.map((s) => s.rate)).toEqual([1, 2, 4, 8, 8]);
    expect(outcome.lastPass).toBe(4);
    expect(outcome.firstFail).toBeNull();
  });

  it('goes on from a step the client limited once, as if measured clean', () => {
    const e2e = queueE2e(900, 20);
    const { steps, outcome } = search(e2e, cfg, (rate, again) => rate === 8 && !again);
    const clean = search(e2e);
    expect(steps.filter((s) => s.rate === 8)).toHaveLength(2);
    expect(outcome).toEqual(clean.outcome);
  });

  it('climbs at least one resolution step when a limit nears its value slowly', () => {
    const { steps } = search((rate) => (rate < 12.5 ? 1900 + rate : 2100));
    // The climb: the steps before the first that broke the limit.
    const climbs = steps.slice(0, steps.findIndex((s) => !s.ok)).map((s) => s.rate);
    expect(climbs.length).toBeGreaterThan(1);
    for (let i = 1; i < climbs.length; i++) {
      const resolution = fromGrid(Math.max(1, Math.floor((toGrid(climbs[i - 1]!) * 5) / 100)));
      expect(climbs[i]! - climbs[i - 1]!).toBeGreaterThanOrEqual(resolution - 1e-9);
    }
  });
});

describe('rateSearchInterval', () => {
  it('holds the stated capacity and the breaking rate bounds it', () => {
    const { steps, outcome } = search(queueE2e(900, 20));
    if (outcome.kind !== 'done') throw new Error('not done');
    const interval = rateSearchInterval(steps, [e2eLimit], outcome.lastPass)!;
    expect(interval.low).toBeLessThanOrEqual(outcome.lastPass!);
    expect(interval.high).not.toBeNull();
    expect(interval.high!).toBeGreaterThanOrEqual(outcome.lastPass!);
    expect(interval.high!).toBeLessThan(outcome.firstFail!);
  });

  it('is null when a step kept no request values', () => {
    const steps = [{ ...step(2, () => 500), sample: null }];
    expect(rateSearchInterval(steps, [e2eLimit], 2)).toBeNull();
  });
});

describe('checkRateSearchConfig', () => {
  it('rejects a start below the grid, a max below the start, a resolution out of range', () => {
    expect(() => checkRateSearchConfig({ ...cfg, startRate: 0 })).toThrow(/startRate/);
    expect(() => checkRateSearchConfig({ ...cfg, maxRate: 0.5 })).toThrow(/maxRate/);
    expect(() => checkRateSearchConfig({ ...cfg, resolutionPercent: 0 })).toThrow(/resolutionPercent/);
    expect(() => checkRateSearchConfig(cfg)).not.toThrow();
  });
});
