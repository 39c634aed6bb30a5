// Capacity in concurrent agents per SLO tier, from the agentic part's steps. Pure; runs in Node.
//
// A tier is a few limits, each on a per-request statistic of a step's measured calls (p25 of output speed, p90 of
// TTFT, ...), and the share of calls that succeeded. The steps are read as measured, as a rate ladder is
// (analysis/rate-capacity.ts): the capacity is the last step below the first that breaks a limit, never a point
// interpolated between them, since agents with tool and think time load the server in bursts a straight line does
// not describe. Its 95% interval is the bootstrap of analysis/capacity-interval.ts over the steps' calls.
//
// Steps the bench's search chose (orchestrator/agentic-search.ts) are read the same way. A step the client limited
// (analysis/client-bound.ts) is shown but judges no tier, on a ladder as in a search (it measured the client, as a rate
// ladder's cell the client limited does), and a tier that no clean step broke below it is undetermined above its last
// clean pass.

import { tierLimitLabel, type SloTier, type TierLimit } from '../thresholds/agentic';
import {
  aggregate, measuredLadderInterval, withCapacity, type CapacityInterval, type IntervalLimit,
} from './capacity-interval';
import { compare } from '../lib/threshold-grammar';

/** One step of concurrent agents: its measured calls' values per tier metric, their outcomes, its throughput. */
export interface TierStep {
  readonly cellId: string;
  readonly agents: number;
  /** Per metric key (ttft, decodeSpeed, itl, e2e), each measured call's value: ms, or tok/s for speed. */
  readonly values: Readonly<Partial<Record<TierLimit['metric'], ArrayLike<number>>>>;
  readonly succeeded: number;
  readonly failed: number;
  /** Output tokens per second of the whole step; null without a window. */
  readonly throughput: number | null;
  /** Whether the client limited the step (analysis/client-bound.ts); absent: it did not. */
  readonly clientBound?: boolean;
}

export interface TierCheck {
  readonly label: string;
  /** The statistic compared, or the success share; null without samples. */
  readonly actual: number | null;
  readonly ok: boolean;
}

export interface TierCapacity {
  readonly tier: SloTier;
  readonly labels: readonly string[];
  /**
   * untested: no step ran; below: the first step already breaks a limit; within: the capacity lies between two
   * measured steps; beyond: no step breaks one (more than the largest); undetermined: no clean step broke one, and a
   * larger step was the client's.
   */
  readonly kind: 'untested' | 'below' | 'within' | 'beyond' | 'undetermined';
  /** Agents of the last step before the first broken one; null for untested and below. */
  readonly capacity: number | null;
  readonly firstFail: number | null;
  /** The limits the first failing step broke, as labels; [] when none broke. */
  readonly brokenBy: readonly string[];
  /** The system's output tokens per second at the capacity step. */
  readonly throughputAtCapacity: number | null;
  /** Per step, in rising order of agents: each limit's check. */
  readonly steps: readonly { readonly agents: number; readonly checks: readonly TierCheck[]; readonly ok: boolean }[];
  readonly interval: CapacityInterval | null;
  /** Agents of the steps left out because the client limited them. */
  readonly clientBound: readonly number[];
}

/** The tier's limits as the bootstrap checks them, then the success share. */
function intervalLimits(tier: SloTier, minSuccessRate: number): IntervalLimit[] {
  const limits: IntervalLimit[] = tier.limits.map((l) => ({
    metric: l.metric, operator: l.operator, value: l.value, expression: `${l.stat}${l.operator}${l.value}`,
  }));
  limits.push({ metric: 'successRate', operator: '>=', value: minSuccessRate, expression: `rate>=${minSuccessRate}` });
  return limits;
}

/** One step judged against one tier: each limit's check, then the success share's. */
export function checkTierStep(step: TierStep, tier: SloTier, minSuccessRate: number): TierCheck[] {
  const checks = tier.limits.map((l): TierCheck => {
    const values = step.values[l.metric];
    const actual = values && values.length > 0 ? aggregate(values, l.stat) : null;
    return { label: tierLimitLabel(l), actual, ok: actual !== null && compare(actual, l.operator, l.value) };
  });
  const n = step.succeeded + step.failed;
  const share = n > 0 ? step.succeeded / n : null;
  checks.push({
    label: `success >= ${minSuccessRate * 100}%`, actual: share, ok: share !== null && share >= minSuccessRate,
  });
  return checks;
}

/** The largest number of concurrent agents whose step met every limit of the tier, with its interval. */
export function tierCapacity(tier: SloTier, steps: readonly TierStep[], minSuccessRate: number): TierCapacity {
  const measured = steps.filter((s) => s.succeeded + s.failed > 0);
  const ran = measured.filter((s) => !s.clientBound).sort((a, b) => a.agents - b.agents);
  const clientBound = measured.filter((s) => s.clientBound).map((s) => s.agents).sort((a, b) => a - b);
  const judged = ran.map((s) => {
    const checks = checkTierStep(s, tier, minSuccessRate);
    return { agents: s.agents, checks, ok: checks.every((c) => c.ok) };
  });
  const labels = judged[0]?.checks.map((c) => c.label) ?? checkTierStep(
    { cellId: '', agents: 0, values: {}, succeeded: 0, failed: 0, throughput: null }, tier, minSuccessRate,
  ).map((c) => c.label);
  const fail = judged.findIndex((s) => !s.ok);
  const above = (n: number) => clientBound.some((c) => c > n);
  const kind = fail >= 0 ? (fail === 0 ? 'below' : 'within')
    : ran.length > 0 ? (above(ran.at(-1)!.agents) ? 'undetermined' : 'beyond')
      : clientBound.length > 0 ? 'undetermined' : 'untested';
  const at = kind === 'beyond' || (kind === 'undetermined' && ran.length > 0) ? ran.length - 1
    : kind === 'within' ? fail - 1 : -1;
  const limits = intervalLimits(tier, minSuccessRate);
  const measuredInterval = measuredLadderInterval(ran.map((s) => ({
    users: s.agents, succeeded: s.succeeded, failed: s.failed,
    values: [...tier.limits.map((l) => s.values[l.metric] ?? null), null],
  })), limits);
  // Widened to hold the capacity stated, as the searches' intervals are (analysis/capacity-interval.ts withCapacity).
  const interval = withCapacity(measuredInterval, at >= 0 ? ran[at]!.agents : null);
  return {
    tier, labels, kind, interval, steps: judged,
    capacity: at >= 0 ? ran[at]!.agents : null,
    firstFail: fail >= 0 ? ran[fail]!.agents : null,
    brokenBy: fail >= 0 ? judged[fail]!.checks.filter((c) => !c.ok).map((c) => c.label) : [],
    throughputAtCapacity: at >= 0 ? ran[at]!.throughput : null,
    clientBound,
  };
}
