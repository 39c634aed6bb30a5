import { describe, expect, it } from 'vitest';
import type { CellArrivals } from '../../lib/plan';
import { measuredLadderInterval } from '../../analysis/capacity-interval';
import { ACHIEVED_SHORTFALL, openLoopStats, queueGrowth } from '../../analysis/open-loop';
import { judgeRateCell, rateCapacities } from '../../analysis/rate-capacity';
import { ladderLimits } from '../../analysis/capacity';
import type { UseCase } from '../../thresholds/use-cases';
import { cell, flat } from '../report/helpers';
import { clientLimitWords, formatInterval, openLoopProblemWords } from '../../report/capacity-words';
import { ladderDisplay } from '../../report/capacity-words';

const JUDGED = { limitStat: 'avg', minSuccessRate: 0.99, minGoodput: null, requestValues: new Map() } as const;

const ARRIVALS: CellArrivals = {
  process: 'poisson', ratePerSecond: 4, rampFromPerSecond: null, durationSeconds: 10, burstiness: 1, seed: 1,
  requests: 40, lagLimitMs: 10, senders: 1, warmupSeconds: 0,
};
const USE_CASE: UseCase = {
  id: 'u', title: 'U', description: '', contextTokens: 1024, outputTokens: 64, concurrencies: [1],
  limits: [{ metric: 'ttft', operator: '<', value: 500, label: 'TTFT < 500 ms' }],
};

/** A rate cell at `rate` req/s whose every TTFT is `ttftMs`; `over` changes its sender's figures. */
function rateCell(rate: number, ttftMs: number, over: { achieved?: number; lagP99?: number; ended?: number } = {}) {
  const arrivals = { ...ARRIVALS, ratePerSecond: rate, requests: rate * 10 };
  const ended = over.ended ?? arrivals.requests;
  const lag = { ...flat(1, ended), p99: over.lagP99 ?? 2 };
  return cell({
    id: `rate_u_r${rate}`, script: 'rate', useCase: 'u', requests: ended, succeeded: ended, successRate: 1,
    metrics: { ttft: flat(ttftMs, ended), scheduleLag: lag },
    openLoop: openLoopStats(arrivals, lag, over.achieved ?? rate, ended),
  });
}

describe('openLoopStats', () => {
  it('flags a sender more than 2% short of its rate or over its lag limit, and nothing else', () => {
    expect(openLoopStats(ARRIVALS, flat(1), 4 * (1 - ACHIEVED_SHORTFALL) + 1e-9, 40).problems).toEqual([]);
    const short = openLoopStats(ARRIVALS, flat(1), 3.8, 40).problems;
    expect(short).toEqual([{ kind: 'underOffered', achievedRate: 3.8, offeredRate: 4 }]);
    expect(openLoopProblemWords(short[0]!))
      .toBe('its sender achieved 3.80 req/s of the 4.00 req/s offered (5.0% short)');
    const late = openLoopStats(ARRIVALS, { ...flat(1), p99: 12 }, 4, 40).problems;
    expect(late).toEqual([{ kind: 'late', lagP99Ms: 12, lagLimitMs: 10 }]);
    expect(openLoopProblemWords(late[0]!))
      .toBe('its requests went up to 12.0 ms after their intended times (p99; limit 10 ms)');
    // A ramp from 2 to 4 per second offers 3 on average.
    expect(openLoopStats({ ...ARRIVALS, rampFromPerSecond: 2 }, null, null, 0).offeredRate).toBe(3);
  });
});

describe('rateCapacities', () => {
  it('is the highest offered rate within every limit, as measured, never interpolated', () => {
    const cells = [rateCell(2, 100), rateCell(4, 300), rateCell(8, 900)];
    const [r] = rateCapacities([USE_CASE], cells, JUDGED);
    expect([r!.result.kind, r!.result.estimate, ladderDisplay(r!.result), r!.result.brokenBy?.label]).toEqual([
      'within', 4, '4', 'TTFT < 500 ms',
    ]);
  });

  it('leaves out a cell whose sender did not offer its load, and counts a cut request as failed', () => {
    const short = rateCapacities([USE_CASE], [rateCell(2, 100), rateCell(4, 100, { achieved: 3 })], JUDGED)[0]!;
    expect(short.excluded).toEqual(['rate_u_r4']);
    expect(ladderDisplay(short.result)).toBe('more than 2');
    // 35 of 40 requests ended: the other 5 waited past the slot, 87.5% success, below 99%.
    const cut = rateCapacities([USE_CASE], [rateCell(2, 100), rateCell(4, 100, { ended: 35 })], JUDGED)[0]!;
    expect(ladderDisplay(cut.result)).toBe('2');
    expect(cut.result.brokenBy?.metric).toBe('successRate');
  });

  it("counts a cell's warm-up requests neither measured nor failed", () => {
    // 8 of the 40 went in the warm-up and ended; the 32 measured all succeeded: 100%, within the limits.
    const warm = (ended: number) => {
      const c = rateCell(4, 100);
      return { ...c, requests: ended, succeeded: ended, warmupRequests: 8 };
    };
    expect(ladderDisplay(rateCapacities([USE_CASE], [warm(32)], JUDGED)[0]!.result)).toBe('more than 4');
    // One measured request cut: 31 of 32.
    expect(rateCapacities([USE_CASE], [warm(31)], JUDGED)[0]!.result.brokenBy?.metric).toBe('successRate');
  });
});

describe('measuredLadderInterval', () => {
  const limit = { metric: 'ttft', operator: '<' as const, value: 500, expression: 'avg<500' };
  const step = (users: number, values: number[]) => ({ users, values: [values], succeeded: values.length, failed: 0 });

  it('is the step itself when every resample agrees, and spans two steps when the second is a coin toss', () => {
    const clear = measuredLadderInterval([step(2, [100, 120]), step(4, [900, 950])], [limit]);
    expect([clear!.low, clear!.high]).toEqual([2, 2]);
    // At 4 req/s half the requests take 100 ms and half 900: the mean is 500 and resamples fall either side.
    const unclear = measuredLadderInterval([step(2, [100, 120]), step(4, [100, 900, 100, 900])], [limit]);
    expect([unclear!.low, unclear!.high]).toEqual([2, null]);
    expect(unclear!.largestStep).toBe(4);
    const beyond = measuredLadderInterval([step(2, [100, 120]), step(4, [110, 130])], [limit])!;
    expect([beyond.low, beyond.high]).toEqual([4, null]);
    expect(formatInterval(beyond)).toBe('more than 4');
  });
});

describe('a limit on its own statistic', () => {
  it('breaks on its p99 while the mean is within it', () => {
    const p99Case: UseCase = {
      ...USE_CASE, limits: [{ metric: 'ttft', operator: '<', value: 500, label: 'TTFT p99 < 500 ms', stat: 'p(99)' }],
    };
    const tail = rateCell(4, 100);
    const slow = { ...tail, metrics: { ...tail.metrics, ttft: { ...flat(100, 40), p99: 800 } } };
    const [mean] = rateCapacities([USE_CASE], [rateCell(2, 100), slow], JUDGED);
    const [p99] = rateCapacities([p99Case], [rateCell(2, 100), slow], JUDGED);
    expect(ladderDisplay(mean!.result)).toBe('more than 4');
    expect([ladderDisplay(p99!.result), p99!.limits[0]!.expression]).toEqual(['2', 'p(99)<500']);
  });
});

describe('rate capacity judged on latency from the intended send', () => {
  /** A cell whose TTFT from the send is 100 ms and from the intended send `intendedMs` (a late sender). */
  const lateCell = (rate: number, intendedMs: number) => {
    const c = rateCell(rate, 100);
    return { ...c, metrics: { ...c.metrics, ttftIntended: flat(intendedMs, c.requests) } };
  };

  it('reads TTFT from the intended send by default, and from the send when asked', () => {
    const cells = [lateCell(2, 150), lateCell(4, 700)];
    const intended = rateCapacities([USE_CASE], cells, JUDGED)[0]!;
    expect([intended.latencyFrom, ladderDisplay(intended.result)]).toEqual(['intended', '2']);
    const sent = rateCapacities([USE_CASE], cells, { ...JUDGED, latencyFrom: 'sent' })[0]!;
    expect([sent.latencyFrom, ladderDisplay(sent.result)]).toEqual(['sent', 'more than 4']);
  });
});

describe('a late sender', () => {
  it('leaves its cell in when latency is read from the intended send, out when from the send', () => {
    const cells = [rateCell(2, 100), rateCell(4, 100, { lagP99: 40 }), rateCell(8, 900)];
    const intended = rateCapacities([USE_CASE], cells, JUDGED)[0]!;
    expect([intended.excluded, ladderDisplay(intended.result)]).toEqual([[], '4']);
    const sent = rateCapacities([USE_CASE], cells, { ...JUDGED, latencyFrom: 'sent' })[0]!;
    expect([sent.excluded, ladderDisplay(sent.result)]).toEqual([['rate_u_r4'], '2']);
  });
});

describe('judgeRateCell', () => {
  const limits = ladderLimits(USE_CASE.limits, 'avg', 0.99);
  const offered = (c: { openLoop: { offeredRate: number } | null }): number => c.openLoop!.offeredRate;

  it('says how the client limited a step in figures, and the search words them as the report does', () => {
    const short = judgeRateCell(rateCell(4, 100, { achieved: 3.8 }), limits, offered, JUDGED);
    expect(short.clientLimited).toEqual({ kind: 'underOffered', achievedRate: 3.8, offeredRate: 4, lagP99Ms: null });
    expect(clientLimitWords(short.clientLimited!)).toBe('sender achieved 3.80 of 4 requests/s');
    const late = judgeRateCell(rateCell(4, 100, { lagP99: 40 }), limits, offered, { ...JUDGED, latencyFrom: 'sent' });
    expect(clientLimitWords(late.clientLimited!)).toBe('sender achieved 4.00 of 4 requests/s, lag p99 40.0 ms');
    const clean = judgeRateCell(rateCell(4, 100), limits, offered, JUDGED);
    expect([clean.clientLimited, clean.ok]).toEqual([null, true]);
    expect(clientLimitWords({ kind: 'clientBound', cause: { agentCpuShare: 0.95, reading: null, stall: null } }))
      .toBe('client-bound: the measuring agent used 95% of its cores');
  });
});

describe('queueGrowth', () => {
  it('says a queue grew when later requests wait longer than earlier ones, past the fill and the noise', () => {
    // Steady: the same 2 s, a little noise, after a fill of short requests.
    const steady = [...Array(20).fill(500), ...Array.from({ length: 80 }, (_, i) => 2000 + (i % 5) * 10)];
    expect(queueGrowth(steady)!.growing).toBe(false);
    // Growing: each request waits 20 ms longer than the one before.
    const growing = Array.from({ length: 100 }, (_, i) => 2000 + 20 * i);
    const g = queueGrowth(growing)!;
    expect(g.growing).toBe(true);
    expect(g.lateMs).toBeGreaterThan(g.earlyMs * 1.05);
    expect(queueGrowth([2000, 2100, 2200])).toBeNull();
  });
});
