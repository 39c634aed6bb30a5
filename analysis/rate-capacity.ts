// Capacity in requests per second per use case, from the rate part's cells: the highest offered rate whose cell met
// every limit (MLPerf's server scenario states capacity so). Pure; runs in Node.
//
// A rate ladder is read as measured, never interpolated: between two rates the queue either keeps up or grows without
// bound, and a straight line between them says nothing about where that turns. A request a cell's slot cut off
// counts as failed here: in an open loop it is a user who waited past the slot, the surest sign of overload. A cell
// whose sender did not offer its load (analysis/open-loop.ts) measured another rate than its own and is left out.

import type { LimitStat } from '../lib/plan';
import type { UseCase } from '../thresholds/use-cases';
import {
  checkLimit, evaluateLadder, isShareLimit, ladderLimits, limitTrend, shareCounts, type LadderLimit, type LadderResult,
  type LimitCheck, type RequestValues,
} from './capacity';
import { measuredLadderInterval, type CapacityInterval, type IntervalStep } from './capacity-interval';
import type { CellStats } from './cells';
import type { ClientBoundCause } from './client-bound';
import { ACHIEVED_SHORTFALL, type OpenLoopStats } from './open-loop';
import type { TrendKey } from './cell-accumulator';

export interface RateCapacity {
  readonly useCase: UseCase;
  /** The use case's rate cells, by offered rate. */
  readonly cellIds: readonly string[];
  readonly limits: readonly LadderLimit[];
  /** Which TTFT and e2e its limits were judged on. */
  readonly latencyFrom: LatencyFrom;
  /** The ladder over offered rates (requests/s) of the cells whose sender kept its schedule. */
  readonly result: LadderResult;
  /** Cells left out: their sender did not offer the planned load. */
  readonly excluded: readonly string[];
  /** 95% bootstrap interval over the cells' requests, in requests/s; null without per-request values. */
  readonly interval: CapacityInterval | null;
}

/**
 * A rate cell's failed requests, those its slot cut off included (its schedule's requests that never ended); the
 * warm-up's requests ended, and are neither measured nor failed.
 */
function failedWithCut(c: CellStats): number {
  return Math.max(c.requests, c.openLoop!.scheduled - c.warmupRequests) - c.succeeded;
}

/** Where an open-loop cell stands on its ladder: its offered rate (rate cells) or its replay speed (trace cells). */
export type LadderAxis = (c: CellStats) => number;

/**
 * Which latency an open-loop cell's TTFT and e2e limits are judged on: `intended`, from each request's intended send
 * (what a user arriving on the schedule saw: a late sender cannot hide a slow server), or `sent`, from its actual
 * send (as a closed loop's are).
 */
export type LatencyFrom = 'intended' | 'sent';
export const LATENCY_FROM: readonly LatencyFrom[] = ['intended', 'sent'];

/** The figure a limit on `metric` reads on an open-loop cell: TTFT and e2e from the intended send when asked. */
function judgedTrend(metric: TrendKey, from: LatencyFrom): TrendKey {
  if (from === 'sent') return metric;
  return metric === 'ttft' ? 'ttftIntended' : metric === 'e2e' ? 'e2eIntended' : metric;
}

/**
 * An open-loop cell as a ladder step: its axis value in place of users, its cut requests counted as failed, and its
 * TTFT and e2e those the limits are judged on (a cell without intended-send figures keeps its own).
 */
function rateStep(c: CellStats, axis: LadderAxis, from: LatencyFrom): CellStats {
  const successRate = c.requests > 0 ? c.succeeded / (c.succeeded + failedWithCut(c)) : c.successRate;
  const m = c.metrics;
  const metrics = {
    ...m, ttft: m[judgedTrend('ttft', from)] ?? m.ttft, e2e: m[judgedTrend('e2e', from)] ?? m.e2e,
  };
  return { ...c, concurrency: axis(c), successRate, metrics };
}

/** An open-loop cell's requests as a bootstrap step: its axis value, each limit's values, cut requests failed. */
function intervalStep(
  c: CellStats, axis: LadderAxis, limits: readonly LadderLimit[], values: RequestValues | undefined,
  from: LatencyFrom,
): IntervalStep {
  const valuesOf = (trend: TrendKey) => values?.[judgedTrend(trend, from)] ?? values?.[trend] ?? null;
  return {
    users: axis(c),
    values: limits.map((l) => (isShareLimit(l) ? shareCounts(c, l) : valuesOf(limitTrend(l)!))),
    succeeded: c.succeeded,
    failed: failedWithCut(c),
  };
}

/** Each use case the rate cells measured, with its capacity in requests per second and its interval. */
export function rateCapacities(
  useCases: readonly UseCase[], cells: readonly CellStats[], judged: LadderJudgement,
): RateCapacity[] {
  const out: RateCapacity[] = [];
  for (const useCase of useCases) {
    const mine = cells.filter((c) => c.script === 'rate' && c.useCase === useCase.id && c.openLoop !== null);
    const capacity = openLoopCapacity(useCase, mine, (c) => c.openLoop!.offeredRate, judged);
    if (capacity) out.push(capacity);
  }
  return out;
}

/**
 * Whether a cell measured the load planned: its sender achieved the offered rate, and, where its limits read latency
 * from the send, kept its lag limit. Judged from the intended send, a late request's lag is in its latency already
 * (the figure can only read worse for it), so lag alone leaves no cell out: on a loaded client the cell just past the
 * limit, where lag is likeliest, is the one that would be lost.
 */
function offeredItsLoad(o: OpenLoopStats, from: LatencyFrom): boolean {
  const short = o.achievedRate !== null && o.achievedRate < o.offeredRate * (1 - ACHIEVED_SHORTFALL);
  const late = o.lag !== null && o.lag.p99 > o.lagLimitMs;
  return !short && (from === 'intended' || !late);
}

/** How a ladder's cells are judged: the plan's statistic and shares, and each cell's per-request values. */
export interface LadderJudgement {
  readonly limitStat: LimitStat;
  readonly minSuccessRate: number | null;
  readonly minGoodput: number | null;
  readonly requestValues: ReadonlyMap<string, RequestValues>;
  /** Which TTFT and e2e an open-loop cell's limits read (default: from the intended send). */
  readonly latencyFrom?: LatencyFrom;
}

/**
 * The highest axis value whose cell met every limit of the use case, read as measured, with its 95% interval; cells
 * whose sender did not offer the planned load left out. Null when no cell has a request.
 */
export function openLoopCapacity(
  useCase: UseCase, cells: readonly CellStats[], axis: LadderAxis, j: LadderJudgement,
): RateCapacity | null {
  if (cells.every((c) => c.requests === 0)) return null;
  const mine = [...cells].sort((a, b) => axis(a) - axis(b));
  const from = j.latencyFrom ?? 'intended';
  const kept = mine.filter((c) => offeredItsLoad(c.openLoop!, from));
  const limits = ladderLimits(useCase.limits, j.limitStat, j.minSuccessRate, j.minGoodput);
  const steps = kept.filter((c) => j.requestValues.has(c.id))
    .map((c) => intervalStep(c, axis, limits, j.requestValues.get(c.id), from));
  return {
    useCase, cellIds: mine.map((c) => c.id), limits, latencyFrom: from,
    result: evaluateLadder(kept.map((c) => rateStep(c, axis, from)), limits, false),
    excluded: mine.filter((c) => !kept.includes(c) && c.requests > 0).map((c) => c.id),
    interval: steps.length === kept.length ? measuredLadderInterval(steps, limits) : null,
  };
}

/**
 * One open-loop cell judged as a step of a searched ladder (orchestrator/rate-search.ts), as the ladder judges it;
 * `rate` is its place on the axis (offered rate, or a trace's speed).
 */
export interface JudgedRateCell {
  readonly rate: number;
  readonly ok: boolean;
  readonly checks: readonly LimitCheck[];
  readonly sample: IntervalStep | null;
  /** Why the client limited it (the ladder leaves such a cell out too); null when it did not. */
  readonly clientLimited: ClientLimit | null;
}

/**
 * `underOffered`: its sender did not offer its load (analysis/open-loop.ts): the rate it achieved, and the lateness
 * p99 of its sends when latency is read from the actual send; `clientBound`: the measuring agent was
 * (analysis/client-bound.ts). report/capacity-words.ts writes it.
 */
export type ClientLimit =
  | {
    readonly kind: 'underOffered'; readonly achievedRate: number | null; readonly offeredRate: number;
    readonly lagP99Ms: number | null;
  }
  | { readonly kind: 'clientBound'; readonly cause: ClientBoundCause };

/**
 * A rate cell judged on its own, by the rules openLoopCapacity applies to a ladder: its limits on the latency the
 * judgement reads, its cut requests failed, and whether its sender offered its load.
 */
export function judgeRateCell(
  cell: CellStats, limits: readonly LadderLimit[], axis: LadderAxis, j: LadderJudgement,
): JudgedRateCell {
  const from = j.latencyFrom ?? 'intended';
  const step = rateStep(cell, axis, from);
  const checks = limits.map((l) => checkLimit(step, l));
  const o = cell.openLoop!;
  const values = j.requestValues.get(cell.id);
  return {
    rate: axis(cell), ok: checks.every((k) => k.ok), checks,
    sample: values ? intervalStep(cell, axis, limits, values, from) : null,
    clientLimited: !offeredItsLoad(o, from)
      ? {
        kind: 'underOffered', achievedRate: o.achievedRate, offeredRate: o.offeredRate,
        lagP99Ms: from === 'sent' && o.lag !== null ? o.lag.p99 : null,
      }
      : cell.clientBound ? { kind: 'clientBound', cause: cell.clientBound } : null,
  };
}
