// Tests analysis/capacity.ts: capacity per use case with "~N", "more than N", "below", which limit broke first, burst
// depth.
// Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import {
  evaluateLadder, interpolateMetric, ladderLimits, readLadder, useCaseCapacity,
} from '../../analysis/capacity';
import { burstCapacity } from '../../analysis/burst-capacity';
import { limitExpression } from '../../lib/options';
import { USE_CASES } from '../../thresholds/use-cases';
import type { CellStats } from '../../analysis/cells';
import { cell, flat } from '../report/helpers';
import { ladderDisplay, ladderDisplayShort } from '../../report/capacity-words';

const chat = USE_CASES.find((u) => u.id === 'general_chatbot')!; // TTFT < 8000 ms, speed > 15 tok/s
const code = USE_CASES.find((u) => u.id === 'code_completion')!; // e2e < 2000 ms

function step(n: number, ttft: number, speed: number) {
  return cell({
    id: `capacity_general_chatbot_n${n}`, useCase: 'general_chatbot', concurrency: n,
    metrics: { ttft: flat(ttft), decodeSpeed: flat(speed) },
  });
}

describe('limit expressions', () => {
  it('builds k6 threshold expressions from a use-case limit and the limit statistic', () => {
    expect(limitExpression({ operator: '<', value: 8000 }, 'avg')).toBe('avg<8000');
    expect(limitExpression({ operator: '>', value: 15 }, 'p(95)')).toBe('p(95)>15');
    expect(ladderLimits(chat.limits, 'avg', 0.99).map((l) => l.expression))
      .toEqual(['avg<8000', 'avg>15', 'rate>=0.99']);
  });
});

describe('readLadder', () => {
  const holds = (n: number): boolean => n < 10 || n === 40;
  it('reads bottom up: the last step that holds before the first that breaks, a later hold ignored', () => {
    expect(readLadder([1, 5, 10, 20, 40], holds)).toEqual({ lastHeld: 5, firstBroken: 10 });
  });
  it('has no step that held when the first breaks, and none that broke when every one holds', () => {
    expect(readLadder([10, 40], holds)).toEqual({ lastHeld: null, firstBroken: 10 });
    expect(readLadder([1, 2], holds)).toEqual({ lastHeld: 2, firstBroken: null });
    expect(readLadder([], holds)).toEqual({ lastHeld: null, firstBroken: null });
  });
});

describe('a client-bound step never decides a capacity', () => {
  const cause = { agentCpuShare: 0.95, reading: null, stall: null };
  const bound = (c: CellStats): CellStats => ({ ...c, clientBound: cause });
  const searched = (c: CellStats): CellStats => ({ ...c, measurement: 'search' });

  it('is undetermined when the deciding step was client-bound, whether it passed or failed', () => {
    // 8 passes cleanly, 12 failed but was client-bound, 16 fails cleanly: the capacity lies in 8..15, not measured.
    const ladder = [step(1, 1200, 140), step(8, 5756, 70), bound(step(12, 9000, 50)), step(16, 10427, 40)];
    const r = useCaseCapacity(chat, ladder.map(searched), 'avg', null).result;
    expect(r.kind).toBe('undetermined');
    expect([r.lastPass, r.firstFail, r.estimate]).toEqual([8, 16, null]);
    expect(ladderDisplay(r)).toBe('undetermined: client-bound at 12; more than 8');
    expect(r.clientBound).toEqual([{ users: 12, cause: { agentCpuShare: 0.95, reading: null, stall: null } }]);
    // A client-bound top step that passed says no more: the capacity is not "more than 12".
    const top = useCaseCapacity(chat, [step(8, 5756, 70), bound(step(12, 7000, 50))].map(searched), 'avg', null);
    expect([top.result.kind, top.result.lastPass, top.result.firstFail]).toEqual(['undetermined', 8, null]);
  });

  it('stands on the clean steps when the client-bound one does not decide, or was measured again cleanly', () => {
    const low = [bound(step(1, 1200, 140)), step(8, 5756, 70), step(16, 10427, 40)];
    expect(ladderDisplay(useCaseCapacity(chat, low.map(searched), 'avg', null).result)).toBe('8');
    const again = [step(8, 5756, 70), bound(step(12, 9000, 50)), { ...step(12, 7000, 60), id: 'again' }];
    const r = useCaseCapacity(chat, [...again, step(16, 10427, 40)].map(searched), 'avg', null).result;
    expect([r.kind, ladderDisplay(r)]).toEqual(['within', '12']);
  });
});

describe('evaluateLadder', () => {
  it('interpolates the crossing between the last passing and first failing step ("~N")', () => {
    // TTFT 5756 at 8 and 10427 at 16: 8000 is crossed at 8 + 2244 x 8 / 4671 = 11.84 -> ~11
    const ladder = [step(1, 1200, 140), step(4, 3400, 90), step(8, 5756, 70), step(16, 10427, 40)];
    const r = useCaseCapacity(chat, ladder, 'avg', null).result;
    expect(r.kind).toBe('within');
    expect(r.lastPass).toBe(8);
    expect(r.firstFail).toBe(16);
    expect(r.estimate).toBe(11);
    expect(r.interpolated).toBe(true);
    expect(ladderDisplay(r)).toBe('~11');
    expect(r.brokenBy?.metric).toBe('ttft');
  });

  it('reports "more than N" when no step breaks a limit', () => {
    const r = useCaseCapacity(chat, [step(1, 1000, 150), step(2, 1500, 120)], 'avg', 0.99).result;
    expect(r.kind).toBe('beyond');
    expect(ladderDisplay(r)).toBe('more than 2');
    expect(ladderDisplayShort(r)).toBe('2+');
    expect(r.brokenBy).toBeNull();
  });

  it('reports "below N" when the first step already fails', () => {
    const r = useCaseCapacity(chat, [step(1, 9000, 150), step(2, 12000, 120)], 'avg', null).result;
    expect(r.kind).toBe('below');
    expect(ladderDisplay(r)).toBe('below 1');
    expect(r.estimate).toBeNull();
  });

  it('names the limit that broke first when two break in the same step', () => {
    // speed 30 -> 10 between 4 and 8 crosses 15 at 4 + 15/20 x 4 = 7;
    // TTFT 6000 -> 9000 crosses 8000 at 4 + 2/3 x 4 = 6.67 -> 6
    const r = useCaseCapacity(chat, [step(1, 1000, 150), step(4, 6000, 30), step(8, 9000, 10)], 'avg', null).result;
    expect(r.estimate).toBe(6);
    expect(r.brokenBy?.metric).toBe('ttft');
    const r2 = useCaseCapacity(chat, [step(1, 1000, 150), step(4, 6000, 30), step(8, 8500, 10)], 'avg', null).result;
    // TTFT now crosses at 4 + 2000/2500 x 4 = 7.2 -> 7; speed crosses at exactly 7.0, strict ">" fails there -> 6
    expect(r2.estimate).toBe(6);
    expect(r2.brokenBy?.metric).toBe('decodeSpeed');
  });

  it('shows a tested step without "~" when the crossing is right after it', () => {
    const ladder = [1, 2, 4].map((n, i) =>
      cell({ concurrency: n, useCase: 'code_completion', metrics: { e2e: flat([900, 1990, 4000][i]!) } }),
    );
    const r = useCaseCapacity(code, ladder, 'avg', null).result;
    // 2000 is crossed at 2 + 10 x 2 / 2010 = 2.01 -> 2 (tested)
    expect(r.estimate).toBe(2);
    expect(r.interpolated).toBe(false);
    expect(ladderDisplay(r)).toBe('2');
  });

  it('fails a step on the success-rate limit and one with no samples of the metric', () => {
    const ladder = [
      step(1, 1000, 150),
      cell({
        concurrency: 2, useCase: 'general_chatbot', successRate: 0.9, succeeded: 9, failed: 1,
        metrics: { ttft: flat(1500), decodeSpeed: flat(120) },
      }),
    ];
    const r = useCaseCapacity(chat, ladder, 'avg', 0.99).result;
    expect(r.kind).toBe('within');
    expect(r.brokenBy?.metric).toBe('successRate');
    expect(r.estimate).toBe(1);
    const noSamples = [step(1, 1000, 150), cell({ concurrency: 2, metrics: {} })];
    expect(evaluateLadder(noSamples, ladderLimits(chat.limits, 'avg', null)).firstFail).toBe(2);
  });

  it('uses the limit statistic: p(95) reads the P95, not the mean', () => {
    const d = { count: 10, mean: 5000, min: 1000, max: 12000, p50: 4000, p90: 8500, p95: 9000, p99: 11000 };
    const ladder = [cell({ concurrency: 1, useCase: 'general_chatbot', metrics: { ttft: d, decodeSpeed: flat(100) } })];
    expect(useCaseCapacity(chat, ladder, 'avg', null).result.kind).toBe('beyond');
    expect(useCaseCapacity(chat, ladder, 'p(95)', null).result.kind).toBe('below');
  });

  it('leaves out cells that never ran and reports untested ladders', () => {
    expect(evaluateLadder([cell({ requests: 0 })], []).kind).toBe('untested');
  });
});

describe('burst and interpolation helpers', () => {
  it('finds the max safe queue depth at TTFT <= 3 s', () => {
    const cells = [1, 64, 128, 256].map((q, i) =>
      cell({
        id: `burst_chatbot_q${q}`, script: 'burst', profile: 'chatbot', concurrency: q,
        metrics: { ttft: flat([190, 1500, 2900, 8250][i]!) },
      }),
    );
    const b = burstCapacity('chatbot', 'Chatbot', cells, 'avg', 3000);
    // 3000 between (128, 2900) and (256, 8250): 128 + 100 x 128 / 5350 = 130.4 -> ~130
    expect(ladderDisplay(b.result)).toBe('~130');
    expect(b.limit.expression).toBe('avg<=3000');
  });

  it('states goodput at the capacity: the step\'s own, interpolated at "~N", null without a capacity', () => {
    const judged = (n: number, ttft: number, goodput: number | null) => ({ ...step(n, ttft, 100), goodput });
    // TTFT 8000 crossed at 8 + 2000 x 8 / 4000 = 12 -> ~11 (strict);
    // goodput 0.9 -> 0.5 over 8..16: 0.9 - 0.4 x 3/8 = 0.75.
    const within = useCaseCapacity(chat, [judged(8, 6000, 0.9), judged(16, 10_000, 0.5)], 'avg', null);
    expect(ladderDisplay(within.result)).toBe('~11');
    expect(within.goodputAtCapacity).toBeCloseTo(0.75, 10);
    // No step breaks a limit: the largest step's goodput.
    const goodputAt = (ladder: CellStats[]): number | null =>
      useCaseCapacity(chat, ladder, 'avg', null).goodputAtCapacity;
    expect(goodputAt([judged(8, 6000, 0.97), judged(16, 7000, 0.93)])).toBe(0.93);
    // Below the first step: no capacity, no goodput at it; steps without goodput (old runs): null.
    expect(goodputAt([judged(8, 9000, 0.2)])).toBeNull();
    expect(goodputAt([judged(8, 6000, null), judged(16, 7000, null)])).toBeNull();
  });

  it('judges capacity on goodput with a plan minGoodput: the step mean may pass while too few requests do', () => {
    const judged = (n: number, ttft: number, goodput: number) =>
      ({ ...step(n, ttft, 100), goodput, goodputJudged: 200 });
    const limits = ladderLimits(chat.limits, 'avg', 0.99, 0.95);
    expect(limits.map((l) => [l.label, l.expression])).toContainEqual(['goodput >= 95%', 'rate>=0.95']);
    expect(ladderLimits(chat.limits, 'avg', 0.99, 0.995).at(-2)!.label).toBe('goodput >= 99.5%');
    // The mean TTFT passes at 16 users (7000 < 8000), but only 85% of requests met every limit.
    const ladder = [judged(8, 5000, 0.99), judged(16, 7000, 0.85)];
    expect(useCaseCapacity(chat, ladder, 'avg', null).result.kind).toBe('beyond');
    const r = useCaseCapacity(chat, ladder, 'avg', null, 0.95).result;
    // Goodput 0.99 -> 0.85 over 8..16 crosses 0.95 at 8 + 0.04 x 8 / 0.14 = 10.3 -> ~10.
    expect([ladderDisplay(r), r.brokenBy?.label]).toEqual(['~10', 'goodput >= 95%']);
    // A cell nobody judged (a run from before goodput) cannot meet a goodput limit.
    const unjudged = { ...step(8, 5000, 100), goodput: null };
    expect(useCaseCapacity(chat, [unjudged], 'avg', null, 0.95).result.kind).toBe('below');
  });

  it('interpolates a metric at a concurrency between steps', () => {
    const cells = [cell({ concurrency: 8, throughput: 200 }), cell({ concurrency: 16, throughput: 300 })];
    expect(interpolateMetric(cells, 12, (c) => c.throughput)).toBe(250);
    expect(interpolateMetric(cells, 8, (c) => c.throughput)).toBe(200);
    expect(interpolateMetric(cells, 40, (c) => c.throughput)).toBeNull();
  });
});
