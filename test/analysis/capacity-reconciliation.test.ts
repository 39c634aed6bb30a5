// Tests analysis/capacity-reconciliation.ts: a use case's capacity in users beside its capacity in requests/s, each
// turned into the other's unit by Little's law, and the reasons given when they differ. Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import type { CellArrivals } from '../../lib/plan';
import { evaluateLadder, ladderLimits, type UseCaseCapacity } from '../../analysis/capacity';
import { reconcileCapacities } from '../../analysis/capacity-reconciliation';
import { wordReconciliation } from '../../report/reconciliation-words';
import { openLoopStats } from '../../analysis/open-loop';
import { rateCapacities } from '../../analysis/rate-capacity';
import type { UseCase } from '../../thresholds/use-cases';
import { cell, flat } from '../report/helpers';

const USE_CASE: UseCase = {
  id: 'u', title: 'U', description: '', contextTokens: 1024, outputTokens: 128, concurrencies: [1],
  limits: [{ metric: 'e2e', operator: '<', value: 2000, label: 'e2e < 2 s' }],
};
const JUDGED = { limitStat: 'avg', minSuccessRate: 0.99, minGoodput: null, requestValues: new Map() } as const;
const ARRIVALS: CellArrivals = {
  process: 'poisson', ratePerSecond: 1, rampFromPerSecond: null, durationSeconds: 30, burstiness: 1, seed: 1,
  requests: 30, lagLimitMs: 10, senders: 1, warmupSeconds: 0,
};

/** A closed-loop step of `users` users, every request `e2eMs` long with TTFT `ttftMs`. */
function usersCell(users: number, e2eMs: number, ttftMs: number) {
  return cell({
    id: `capacity_u_n${users}`, script: 'capacity', useCase: 'u', concurrency: users, requests: 50, succeeded: 50,
    successRate: 1, metrics: { e2e: flat(e2eMs, 50), ttft: flat(ttftMs, 50) },
  });
}

/** An open-loop cell at `rate` req/s, every request `e2eMs` long from its intended send, TTFT `ttftMs`. */
function rateCell(rate: number, e2eMs: number, ttftMs: number, cacheHitShare = 0) {
  const n = rate * 30;
  const lag = flat(1, n);
  return cell({
    id: `rate_u_r${rate}`, script: 'rate', useCase: 'u', requests: n, succeeded: n, successRate: 1, cacheHitShare,
    metrics: { e2e: flat(e2eMs - 5, n), e2eIntended: flat(e2eMs, n), ttft: flat(ttftMs, n), scheduleLag: lag },
    openLoop: openLoopStats({ ...ARRIVALS, ratePerSecond: rate, requests: n }, lag, rate, n),
  });
}

function usersCapacity(cells: ReturnType<typeof usersCell>[]): UseCaseCapacity {
  const limits = ladderLimits(USE_CASE.limits, 'avg', 0.99, null);
  return {
    useCase: USE_CASE, source: 'capacity', cellIds: cells.map((c) => c.id), limits,
    result: evaluateLadder(cells, limits, false), goodputAtCapacity: null,
  };
}

describe('reconcileCapacities', () => {
  it('agrees when the users\' requests/s lie between the last rate held and the first broken', () => {
    const users = [usersCell(18, 1980, 90), usersCell(19, 2020, 90)];
    const rates = [rateCell(8, 1800, 85), rateCell(10, 2100, 85)];
    const [x] = reconcileCapacities([usersCapacity(users)], rateCapacities([USE_CASE], rates, JUDGED),
      [...users, ...rates]);
    // 18 users of 1.98 s send 9.09 req/s, between 8 (held) and 10 (broken); 8 req/s x 1.8 s keep 14.4 in flight.
    expect(x!.users.littles).toBeCloseTo(18 / 1.98, 6);
    expect(x!.rate.littles).toBeCloseTo(14.4, 6);
    expect(x!.agree).toBe(true);
    expect(x!.causes).toEqual([]);
    expect(wordReconciliation(x!).reasons.join(' ')).toContain(
      'lie between the last rate that held and the first that broke',
    );
  });

  it('names the lockstep of a closed loop and a prefix cache that served one side only', () => {
    const users = [usersCell(18, 1980, 150), usersCell(19, 2020, 150)];
    const rates = [rateCell(10, 1910, 86, 0.7), rateCell(12, 2020, 90, 0.7)];
    const [x] = reconcileCapacities([usersCapacity(users)], rateCapacities([USE_CASE], rates, JUDGED),
      [...users, ...rates]);
    expect(x!.agree).toBe(false);
    expect(x!.causes).toEqual(['prefixCache', 'lockstep']);
    const why = wordReconciliation(x!).reasons.join(' ');
    expect(why).toContain('18 users at 1980 ms send 9.1 req/s; 10 req/s at 1910 ms keep 19.1 requests in flight');
    expect(why).toContain("The users' TTFT was 150 ms against 86 ms in the open loop");
    expect(why).toContain('70% served from the prefix cache');
  });

  it('reconciles nothing without both capacities', () => {
    const rates = [rateCell(10, 1910, 86)];
    expect(reconcileCapacities([], rateCapacities([USE_CASE], rates, JUDGED), rates)).toEqual([]);
  });
});
