// What a rate cell's sender did against its schedule, and whether the load it offered was the load planned. Pure;
// runs in Node.
//
// An open-loop cell measures the server at a rate only if the requests went at that rate: a sender that fell behind
// offered less (vLLM issue #21104: 183 of 200 requests/s, unreported), and a late send hides the wait a user arriving
// on time would have had (coordinated omission). So a cell whose achieved rate falls short of the offered one by more
// than ACHIEVED_SHORTFALL, or whose schedule lag p99 exceeds the plan's limit, is flagged, and the rate capacity
// (analysis/rate-capacity.ts) does not stand on it.

import { meanRate } from '../lib/arrivals';
import type { CellArrivals } from '../lib/plan';
import type { Distribution } from './stats';

/** The share of the offered rate an achieved rate may fall short by before the cell is flagged. */
export const ACHIEVED_SHORTFALL = 0.02;

/** The share of a cell's first requests (in the order they ended) left out of the queue's trend: the server filling. */
export const FILL_SHARE = 0.2;
/** How much later requests' latency from the intended send must exceed earlier ones' for the queue to be growing. */
export const GROWTH_MIN = 0.05;
/** Fewer requests than this say nothing of a trend. */
const GROWTH_MIN_REQUESTS = 20;

/**
 * Whether the queue grew through a cell: its requests' e2e from the intended send, in the order they ended, the first
 * FILL_SHARE left out (the server filling from empty); the rest split in halves. Growing when the later half's mean
 * exceeds the earlier's by more than GROWTH_MIN and by more than twice the difference's standard error: a server that
 * keeps up serves the later requests as fast as the earlier, one that cannot makes every request wait longer than the
 * last (the wait grows by 1 - capacity / rate seconds each second), and no mean over the cell is a steady state.
 */
export interface QueueGrowth {
  /** Mean e2e from the intended send of the earlier and the later half, ms. */
  readonly earlyMs: number;
  readonly lateMs: number;
  readonly growing: boolean;
}

function meanAndVariance(values: ArrayLike<number>, from: number, to: number): { mean: number; variance: number } {
  let sum = 0;
  for (let i = from; i < to; i++) sum += values[i]!;
  const mean = sum / (to - from);
  let sq = 0;
  for (let i = from; i < to; i++) sq += (values[i]! - mean) ** 2;
  return { mean, variance: to - from > 1 ? sq / (to - from - 1) : 0 };
}

/** The queue's trend through a cell from its e2e from the intended send, in end order; null with too few requests. */
export function queueGrowth(e2eIntended: ArrayLike<number>): QueueGrowth | null {
  const start = Math.floor(e2eIntended.length * FILL_SHARE);
  const n = e2eIntended.length - start;
  if (n < GROWTH_MIN_REQUESTS) return null;
  const mid = start + Math.floor(n / 2);
  const early = meanAndVariance(e2eIntended, start, mid);
  const late = meanAndVariance(e2eIntended, mid, e2eIntended.length);
  const se = Math.sqrt(early.variance / (mid - start) + late.variance / (e2eIntended.length - mid));
  const rise = late.mean - early.mean;
  return {
    earlyMs: early.mean, lateMs: late.mean, growing: rise > GROWTH_MIN * early.mean && rise > 2 * se,
  };
}

export interface OpenLoopStats {
  readonly process: CellArrivals['process'];
  /** A trace cell's replay speed (2: twice as fast as recorded); null for a drawn schedule. */
  readonly speed: number | null;
  /** Gamma shape of the gaps (1 for Poisson). */
  readonly burstiness: number;
  /** The ramp's start rate, requests/s; null: none. */
  readonly rampFromRate: number | null;
  /** The schedule's mean rate, requests/s (the schedule holds exactly this rate x its duration). */
  readonly offeredRate: number;
  /** llm_achieved_rate, requests/s; null when the cell never finished its schedule (cut, interrupted). */
  readonly achievedRate: number | null;
  readonly durationSeconds: number;
  /** Requests in the schedule, and those that ended with an outcome (the rest were cut at the slot's end). */
  readonly scheduled: number;
  readonly ended: number;
  /** Schedule lag (actual minus intended send), ms; null without samples. */
  readonly lag: Pick<Distribution, 'p50' | 'p99' | 'max'> | null;
  readonly lagLimitMs: number;
  /** Why the sender did not offer the planned load; empty when it did. report/capacity-words.ts words them. */
  readonly problems: readonly OpenLoopProblem[];
  /** Whether the server's queue grew through the cell (over-saturated); null without enough requests. */
  readonly queue: QueueGrowth | null;
}

/** How a sender failed to offer its planned load: short of the offered rate, or its sends' lag p99 over the limit. */
export type OpenLoopProblem =
  | { readonly kind: 'underOffered'; readonly achievedRate: number; readonly offeredRate: number }
  | { readonly kind: 'late'; readonly lagP99Ms: number; readonly lagLimitMs: number };

/** The cell's open-loop figures and problems; `ended` counts its requests with an outcome. */
export function openLoopStats(
  arrivals: CellArrivals, lag: Distribution | null, achievedRate: number | null, ended: number,
  queue: QueueGrowth | null = null,
): OpenLoopStats {
  const offeredRate = meanRate(arrivals);
  const problems: OpenLoopProblem[] = [];
  if (achievedRate !== null && achievedRate < offeredRate * (1 - ACHIEVED_SHORTFALL)) {
    problems.push({ kind: 'underOffered', achievedRate, offeredRate });
  }
  if (lag !== null && lag.p99 > arrivals.lagLimitMs) {
    problems.push({ kind: 'late', lagP99Ms: lag.p99, lagLimitMs: arrivals.lagLimitMs });
  }
  return {
    process: arrivals.process, speed: arrivals.speed ?? null, burstiness: arrivals.burstiness,
    rampFromRate: arrivals.rampFromPerSecond,
    offeredRate, achievedRate, durationSeconds: arrivals.durationSeconds, scheduled: arrivals.requests, ended,
    lag: lag && { p50: lag.p50, p99: lag.p99, max: lag.max }, lagLimitMs: arrivals.lagLimitMs, problems,
    queue,
  };
}
