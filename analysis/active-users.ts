// Capacity in active users per use case, from the sessions part's steps, beside the concurrent-request capacity. Node.
//
// A step of N active users passes when its measured turns meet the use case's limits, checked as a capacity step is
// (analysis/capacity.ts). At the capacity step the report states the requests those users kept in flight (mean, p95),
// users per slot = N / mean concurrent requests, and by Little's law the users a pure time-share would allow:
//   k = mean think time / mean request time (e2e of the measured turns),
//   expected users = (k + 1) x concurrent capacity.

import type { LimitStat, Plan } from '../lib/plan';
import { thinkMeanSeconds } from '../lib/sessions';
import type { SessionModel } from '../thresholds/sessions';
import type { UseCase } from '../thresholds/use-cases';
import { evaluateLadder, ladderLimits, type LadderLimit, type LadderResult, type UseCaseCapacity } from './capacity';
import type { CellStats } from './cells';
import type { TurnStats } from './sessions';

/** The capacity step's figures. */
export interface ActiveUsersStep {
  readonly cellId: string;
  readonly users: number;
  readonly concurrentMean: number | null;
  readonly concurrentP95: number | null;
  /** users / concurrentMean. */
  readonly usersPerSlot: number | null;
  /** Mean e2e of the measured turns, seconds. */
  readonly requestSeconds: number | null;
  readonly ttftMeanMs: number | null;
  /** Cached / prompt tokens from the responses' usage, and the server's own rate over the step (its metrics). */
  readonly hitRate: number | null;
  readonly serverHitRate: number | null;
  readonly turns: readonly TurnStats[];
}

export interface ActiveUsersCapacity {
  readonly useCase: UseCase;
  readonly session: SessionModel;
  readonly cellIds: readonly string[];
  readonly limits: readonly LadderLimit[];
  /** The capacity in active users; searched steps are read as measured, a plain-k6 ladder interpolated. */
  readonly result: LadderResult;
  readonly atCapacity: ActiveUsersStep | null;
  /** The same use case's concurrent-request capacity in this run (its capacity part), else null. */
  readonly concurrentCapacity: number | null;
  /** active users / concurrent capacity. */
  readonly ratioToConcurrent: number | null;
  /** Mean think time over mean request time at the capacity step (k), and Little's (k + 1) x concurrent capacity. */
  readonly thinkToRequest: number | null;
  readonly littleLawUsers: number | null;
}

/** The measured step a capacity stands on: the last passing one, else (nothing passed) none. */
function capacityStep(result: LadderResult, steps: readonly CellStats[]): CellStats | null {
  return result.lastPass === null ? null : (steps.find((c) => c.concurrency === result.lastPass) ?? null);
}

function stepFigures(c: CellStats): ActiveUsersStep {
  const s = c.sessions;
  const mean = s?.concurrentMean ?? null;
  return {
    cellId: c.id, users: c.concurrency, concurrentMean: mean, concurrentP95: s?.concurrentP95 ?? null,
    usersPerSlot: mean !== null && mean > 0 ? c.concurrency / mean : null,
    requestSeconds: c.metrics.e2e ? c.metrics.e2e.mean / 1000 : null, ttftMeanMs: c.metrics.ttft?.mean ?? null,
    hitRate: s?.hitRate ?? null, serverHitRate: c.server?.prefixCacheHitRate ?? null, turns: s?.turns ?? [],
  };
}

/** Every use case the sessions parts measured, with its capacity in active users; [] without a sessions part. */
export function activeUsersCapacities(
  plans: readonly Plan[], cells: readonly CellStats[], limitStat: LimitStat, minSuccessRate: number | null,
  concurrent: readonly UseCaseCapacity[],
): ActiveUsersCapacity[] {
  const out: ActiveUsersCapacity[] = [];
  for (const plan of plans) {
    if (plan.script !== 'sessions' || !plan.sessions) continue;
    for (const [id, session] of Object.entries(plan.sessions.models)) {
      const useCase = plan.useCases.find((u) => u.id === id);
      const steps = cells.filter((c) => c.script === 'sessions' && c.useCase === id);
      if (!useCase || steps.every((c) => c.requests === 0) || out.some((a) => a.useCase.id === id)) continue;
      const limits = ladderLimits(useCase.limits, limitStat, minSuccessRate);
      const searched = steps.every((c) => c.measurement === 'search');
      const result = evaluateLadder(steps, limits, !searched);
      const step = capacityStep(result, steps);
      const atCapacity = step ? stepFigures(step) : null;
      const c = concurrent.find((u) => u.useCase.id === id && u.source === 'capacity')?.result.estimate ?? null;
      const k = atCapacity?.requestSeconds ? thinkMeanSeconds(session.thinkTime) / atCapacity.requestSeconds : null;
      const users = result.estimate;
      out.push({
        useCase, session, cellIds: steps.map((s) => s.id), limits, result, atCapacity, concurrentCapacity: c,
        ratioToConcurrent: users !== null && c ? users / c : null, thinkToRequest: k,
        littleLawUsers: k !== null && c !== null ? (k + 1) * c : null,
      });
    }
  }
  return out;
}
