// The true capacity of a simulator profile for a use case, found in virtual time (no HTTP, no timers). Runs in Node.
//
// What the repeatability benchmark holds the bench's intervals against. A step is n closed-loop users held long
// enough that every user sends REQUESTS_PER_USER requests after its warm-up, so the statistic a limit is checked
// on is read off thousands of requests: with noise on, the noise of the draws averages out and what is left is
// the noisy simulator's own capacity. Users are bisected: the limits' statistics are monotone in users.

import { compare, parseThreshold } from '../lib/threshold-grammar';
import { limitExpression } from '../lib/options';
import type { LimitStat } from '../lib/plan';
import { aggregate } from '../analysis/capacity-interval';
import { crossingX } from '../analysis/stats';
import type { NoiseSettings } from '../sim/noise';
import type { Profile } from '../sim/profiles';
import { runVirtualClosedLoop, type ClosedLoopRequest } from '../sim/virtual-run';
import { limitValue, timePerOutputTokenMs, type LimitFigures } from '../lib/request-figures';
import type { UseCase } from '../thresholds/use-cases';

/** Measured requests per user of a reference step, after the warm-up. */
export const REQUESTS_PER_USER = 40;
/** Requests of each user left out as warm-up (the users start together, as a burst). */
const WARMUP_PER_USER = 2;

/**
 * A virtual request's figures as the suite measures them: its mean ITL and TPOT are one (the decode time over the
 * tokens after the first), and the batcher does not think first, so its first token is content.
 */
function closedLoopFigures(r: ClosedLoopRequest): LimitFigures {
  const perToken = timePerOutputTokenMs(r.e2eMs, r.ttftMs, r.outputTokens);
  return {
    ttftMs: r.ttftMs, ttfcMs: r.ttftMs, e2eMs: r.e2eMs, tpotMs: perToken, itlMeanMs: perToken,
    decodeTokensPerSecond: r.decodeTokensPerSecond,
  };
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
  // Requests still running at the step's end finish as the users stop sending: under falling load, faster than the
  // step's, so they are left out, as the bench leaves out a step's transition requests (orchestrator/driver.ts).
  // Kept, they raised short chatbot's capacity on profile A from 70 to 72 users and long document's from 2 to 3.
  const held = all.filter((r) => r.endMs <= seconds * 1000);
  const byUser = new Map<number, ClosedLoopRequest[]>();
  for (const r of held) byUser.set(r.user, [...(byUser.get(r.user) ?? []), r]);
  const measured = [...byUser.values()].flatMap((rs) =>
    rs.sort((a, b) => a.startMs - b.startMs).slice(WARMUP_PER_USER),
  );
  const figures = measured.map(closedLoopFigures);
  return useCase.limits.map((limit) => {
    const values = figures.map((f) => limitValue(f, limit.metric)).filter((v): v is number => v !== null);
    return values.length === 0 ? null : aggregate(values, aggregationOf(limit, stat));
  });
}

function aggregationOf(limit: UseCase['limits'][number], stat: LimitStat): string {
  const parsed = parseThreshold(limitExpression(limit, stat));
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value.aggregation;
}

/** Whether n users hold every limit of the use case, each on its statistic over the measured requests. */
export function virtualStepHolds(
  profile: Profile, useCase: UseCase, outputTokens: number, users: number, stat: LimitStat, noise?: NoiseSettings,
): boolean {
  return statsHold(useCase.limits, virtualStepStats(profile, useCase, outputTokens, users, stat, noise));
}

function statsHold(limits: UseCase['limits'], stats: readonly (number | null)[]): boolean {
  return limits.every((limit, i) => {
    const v = stats[i] ?? null;
    return v !== null && compare(v, limit.operator, limit.value);
  });
}

/**
 * Where between n0 (holding) and n1 users the limits break, in fractional users: the first crossing of a limit that
 * n1 breaks, interpolated linearly between the two steps' statistics (n1 when no crossing can be placed).
 */
export function boundaryCrossing(
  limits: UseCase['limits'], n0: number, stats0: readonly (number | null)[], n1: number,
  stats1: readonly (number | null)[],
): number {
  let x = n1;
  limits.forEach((limit, i) => {
    const v0 = stats0[i];
    const v1 = stats1[i];
    if (v0 === null || v0 === undefined || v1 === null || v1 === undefined || compare(v1, limit.operator, limit.value))
      return;
    const c = crossingX(n0, v0, n1, v1, limit.value);
    if (c !== null && isFinite(c)) x = Math.min(x, Math.max(n0, c));
  });
  return x;
}

/**
 * The virtual capacity in fractional users: where between the capacity and one user more the limits break; null
 * when the capacity is 0 or maxUsers (no boundary to place).
 */
export function virtualCrossing(
  profile: Profile, useCase: UseCase, outputTokens: number, maxUsers: number, stat: LimitStat, noise?: NoiseSettings,
): number | null {
  // The bisection measured c and c + 1 already: each virtual step is thousands of requests, so keep them.
  const measured = new Map<number, (number | null)[]>();
  const at = (n: number) => {
    if (!measured.has(n)) measured.set(n, virtualStepStats(profile, useCase, outputTokens, n, stat, noise));
    return measured.get(n)!;
  };
  const c = largestHolding(maxUsers, (n) => statsHold(useCase.limits, at(n)));
  if (c === 0 || c >= maxUsers) return null;
  return boundaryCrossing(useCase.limits, c, at(c), c + 1, at(c + 1));
}

/** The largest number of users (up to maxUsers) that holds every limit; 0 when one user already breaks one. */
export function virtualCapacity(
  profile: Profile, useCase: UseCase, outputTokens: number, maxUsers: number, stat: LimitStat, noise?: NoiseSettings,
): number {
  return largestHolding(maxUsers, (n) => virtualStepHolds(profile, useCase, outputTokens, n, stat, noise));
}

/** The largest n in 1..maxUsers for which holds(n), holds being monotone; 0 when holds(1) is false. */
function largestHolding(maxUsers: number, holds: (n: number) => boolean): number {
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
