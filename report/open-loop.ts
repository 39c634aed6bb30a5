// What a rate cell's sender did against its schedule, and whether the load it offered was the load planned. Pure;
// runs in Node.
//
// An open-loop cell measures the server at a rate only if the requests went at that rate: a sender that fell behind
// offered less (vLLM issue #21104: 183 of 200 requests/s, unreported), and a late send hides the wait a user arriving
// on time would have had (coordinated omission). So a cell whose achieved rate falls short of the offered one by more
// than ACHIEVED_SHORTFALL, or whose schedule lag p99 exceeds the plan's limit, is flagged, and the rate capacity
// (report/rate-capacity.ts) does not stand on it.

import { meanRate } from '../lib/arrivals';
import type { CellArrivals } from '../lib/plan';
import { fmtRate } from './format';
import type { Distribution } from './stats';

/** The share of the offered rate an achieved rate may fall short by before the cell is flagged. */
export const ACHIEVED_SHORTFALL = 0.02;

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
  /** Why the sender did not offer the planned load, a sentence each; empty when it did. */
  readonly problems: readonly string[];
}

/** The cell's open-loop figures and problems; `ended` counts its requests with an outcome. */
export function openLoopStats(
  arrivals: CellArrivals, lag: Distribution | null, achievedRate: number | null, ended: number,
): OpenLoopStats {
  const offeredRate = meanRate(arrivals);
  const problems: string[] = [];
  if (achievedRate !== null && achievedRate < offeredRate * (1 - ACHIEVED_SHORTFALL)) {
    const short = (1 - achievedRate / offeredRate) * 100;
    problems.push(
      `its sender achieved ${fmtRate(achievedRate)} of the ${fmtRate(offeredRate)} offered ` +
        `(${short.toFixed(1)}% short)`,
    );
  }
  if (lag !== null && lag.p99 > arrivals.lagLimitMs) {
    problems.push(
      `its requests went up to ${lag.p99.toFixed(1)} ms after their intended times ` +
        `(p99; limit ${arrivals.lagLimitMs} ms)`,
    );
  }
  return {
    process: arrivals.process, speed: arrivals.speed ?? null, burstiness: arrivals.burstiness,
    rampFromRate: arrivals.rampFromPerSecond,
    offeredRate, achievedRate, durationSeconds: arrivals.durationSeconds, scheduled: arrivals.requests, ended,
    lag: lag && { p50: lag.p50, p99: lag.p99, max: lag.max }, lagLimitMs: arrivals.lagLimitMs, problems,
  };
}

