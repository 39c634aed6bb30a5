// Capacity per SLO tier, judged on hand-worked steps of agents. Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { tierCapacity, type TierStep } from '../../analysis/slo-tiers';
import type { SloTier } from '../../thresholds/agentic';
import { tierDisplay } from '../../report/capacity-words';

const tier: SloTier = {
  id: 'standard',
  limits: [
    { metric: 'decodeSpeed', stat: 'p(25)', operator: '>=', value: 20 },
    { metric: 'ttft', stat: 'p(90)', operator: '<=', value: 1000 },
  ],
};

function step(agents: number, speeds: number[], ttfts: number[], failed = 0, throughput = agents * 100): TierStep {
  return {
    cellId: `agentic_n${agents}`, agents, values: { decodeSpeed: speeds, ttft: ttfts },
    succeeded: speeds.length, failed, throughput,
  };
}

describe('tierCapacity', () => {
  // k6's percentiles, rank p x (n - 1) interpolated: p25 of 5 values is the 2nd, p90 is 0.6 past the 4th.
  const one = step(1, [30, 40, 50, 60, 70], [100, 200, 300, 400, 500]); // p25 40, p90 460
  const two = step(2, [10, 25, 30, 35, 40], [500, 600, 700, 800, 1200]); // p25 25, p90 800 + 0.6 x 400 = 1040
  const four = step(4, [5, 6, 7, 8, 9], [900, 1000, 1100, 1200, 1300]); // p25 6, p90 1200 + 0.6 x 100 = 1260

  it('is the last step before the first broken one, with what broke and the throughput there', () => {
    const t = tierCapacity(tier, [four, one, two], 0.99);
    expect(t.kind).toBe('within');
    expect(t.capacity).toBe(1);
    expect(t.firstFail).toBe(2);
    expect(t.brokenBy).toEqual(['TTFT p90 <= 1 s']);
    expect(t.throughputAtCapacity).toBe(100);
    expect(t.steps.map((s) => s.checks.map((c) => c.actual))).toEqual([
      [40, 460, 1], [25, 1040, 1], [6, 1260, 1],
    ]);
    expect(t.labels).toEqual(['speed p25 >= 20 tok/s', 'TTFT p90 <= 1 s', 'success >= 99%']);
    expect(tierDisplay(t)).toBe('1');
    expect(t.interval!.low).toBeLessThanOrEqual(1);
  });

  it('says more than the largest step when none breaks, and below the first when it breaks', () => {
    const loose: SloTier = { id: 'batch', limits: [{ metric: 'ttft', stat: 'p(90)', operator: '<=', value: 5000 }] };
    const beyond = tierCapacity(loose, [one, two, four], 0.99);
    expect([beyond.kind, beyond.capacity, tierDisplay(beyond)]).toEqual(['beyond', 4, 'more than 4']);
    const strict: SloTier = { id: 'fast', limits: [{ metric: 'ttft', stat: 'p(90)', operator: '<=', value: 100 }] };
    const below = tierCapacity(strict, [one, two], 0.99);
    expect([below.kind, below.capacity, tierDisplay(below)]).toEqual(['below', null, 'below 1']);
  });

  it('breaks a step whose calls failed too often, whatever their speed', () => {
    // 5 of 6 succeeded: 83% < 99%.
    const t = tierCapacity(tier, [one, step(2, [30, 40, 50, 60, 70], [100, 200, 300, 400, 500], 1)], 0.99);
    expect([t.capacity, t.brokenBy]).toEqual([1, ['success >= 99%']]);
  });

  it('leaves out a searched step the client limited: the tier is undetermined above it, not more than it', () => {
    const loose: SloTier = { id: 'batch', limits: [{ metric: 'ttft', stat: 'p(90)', operator: '<=', value: 5000 }] };
    const limited = { ...four, cellId: 'agentic_n4_again', clientBound: true };
    const t = tierCapacity(loose, [one, two, limited], 0.99);
    expect([t.kind, t.capacity, t.clientBound, tierDisplay(t)])
      .toEqual(['undetermined', 2, [4], 'undetermined above 2']);
    expect(t.steps.map((s) => s.agents)).toEqual([1, 2]);
    // A clean break below the limited step still decides the tier.
    const broken = tierCapacity(tier, [one, two, limited], 0.99);
    expect([broken.kind, broken.capacity, broken.firstFail]).toEqual(['within', 1, 2]);
    expect(tierCapacity(loose, [limited], 0.99).kind).toBe('undetermined');
  });

  it('states an interval that holds the capacity it states', () => {
    const t = tierCapacity(tier, [one, two, four], 0.99);
    expect(t.interval!.low).toBeLessThanOrEqual(t.capacity!);
    expect(t.interval!.high === null || t.interval!.high >= t.capacity!).toBe(true);
  });
});
