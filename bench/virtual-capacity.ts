// The true capacity of a simulator profile for a use case, found in virtual time (no HTTP, no timers). Runs in Node.
//
// What the repeatability benchmark holds the bench's intervals against. A step is n closed-loop users held long
// enough that every user sends REQUESTS_PER_USER requests after its warm-up, so the statistic a limit is checked
// on is read off thousands of requests: with noise on, the noise of the draws averages out and what is left is
// the noisy simulator's own capacity. Users are bisected: the limits' statistics are monotone in users.

import { compare, parseThreshold } from '../lib/thresholds';
import { limitExpression } from '../lib/options';
import type { LimitStat } from '../lib/plan';
import { aggregate } from '../report/capacity-interval';
import type { NoiseSettings } from '../sim/noise';
import type { Profile } from '../sim/profiles';
import { runVirtualClosedLoop, type ClosedLoopRequest } from '../sim/virtual-run';
import type { UseCase } from '../thresholds/use-cases';

/** Measured requests per user of a reference step, after the warm-up. */
export const REQUESTS_PER_USER = 40;
/** Requests of each user left out as warm-up (the users start together, as a burst). */
const WARMUP_PER_USER = 2;

/** The per-request value of a limit's metric, as the suite measures it (lib/record.ts). */
function valueOf(r: ClosedLoopRequest, metric: UseCase['limits'][number]['metric']): number | null {
  switch (metric) {
    case 'ttft':
      return r.ttftMs;
    case 'e2e':
      return r.e2eMs;
    case 'decodeSpeed':
      return r.outputTokens > 1 ? r.decodeTokensPerSecond : null;
    case 'tpot':
    case 'itl':
      return r.outputTokens > 1 ? (r.e2eMs - r.ttftMs) / (r.outputTokens - 1) : null;
  }
}

/**
 * Each limit's statistic over n users' measured requests, as the report computes it from a step (null: the metric has
 * no values, as a one-token answer's decode speed).
 */
export function virtualStepStats(
  profile: Profile, useCase: UseCase, outputTokens: number, users: number, stat: LimitStat, noise?: NoiseSettings,
): (number | null)[] {
  // Long enough for REQUESTS_PER_USER + warm-up requests per user at the single-user pace, and more under load.
  const probe = runVirtualClosedLoop(profile, useCase.contextTokens, outputTokens, [{ users, seconds: 1 }], { noise });
  const e2eSeconds = Math.max(0.05, ...probe.map((r) => r.e2eMs / 1000));
  const seconds = e2eSeconds * (REQUESTS_PER_USER + WARMUP_PER_USER + 1);
  const all = runVirtualClosedLoop(profile, useCase.contextTokens, outputTokens, [{ users, seconds }], { noise });
  const byUser = new Map<number, ClosedLoopRequest[]>();
  for (const r of all) byUser.set(r.user, [...(byUser.get(r.user) ?? []), r]);
  const measured = [...byUser.values()].flatMap((rs) => rs.sort((a, b) => a.startMs - b.startMs).slice(WARMUP_PER_USER));
  return useCase.limits.map((limit) => {
    const values = measured.map((r) => valueOf(r, limit.metric)).filter((v): v is number => v !== null);
    return values.length === 0 ? null : aggregate(values, aggregationOf(limit, stat));
  });
}

function aggregationOf(limit: UseCase['limits'][number], stat: LimitStat): string {
  const parsed = parseThreshold(limitExpression(limit, stat));
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value.aggregation;
}

/**
 * Whether n users hold every limit of the use case, each on its statistic over the measured requests. `scale`: per
 * limit, a factor applied to the statistic first (what the measuring chain adds, bench/repeatability.ts; default 1).
 */
export function virtualStepHolds(
  profile: Profile, useCase: UseCase, outputTokens: number, users: number, stat: LimitStat, noise?: NoiseSettings,
  scale: readonly number[] = [],
): boolean {
  const stats = virtualStepStats(profile, useCase, outputTokens, users, stat, noise);
  return useCase.limits.every((limit, i) => {
    const v = stats[i];
    return v !== null && v !== undefined && compare(v * (scale[i] ?? 1), limit.operator, limit.value);
  });
}

/** The largest number of users (up to maxUsers) that holds every limit; 0 when one user already breaks one. */
export function virtualCapacity(
  profile: Profile, useCase: UseCase, outputTokens: number, maxUsers: number, stat: LimitStat, noise?: NoiseSettings,
  scale: readonly number[] = [],
): number {
  const holds = (n: number) => virtualStepHolds(profile, useCase, outputTokens, n, stat, noise, scale);
  if (!holds(1)) return 0;
  let lo = 1;
  let hi = maxUsers + 1;
  // Gallop up from 1, then bisect [lo, hi): holds(lo), and hi breaks (or lies past maxUsers).
  for (let n = 2; n <= maxUsers; n *= 2) {
    if (!holds(n)) {
      hi = n;
      break;
    }
    lo = n;
  }
  if (hi === maxUsers + 1 && lo < maxUsers && !holds(maxUsers)) hi = maxUsers;
  else if (hi === maxUsers + 1) return maxUsers;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (holds(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}
