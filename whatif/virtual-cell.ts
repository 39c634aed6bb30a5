// What a profile predicts for one measured grid cell, in virtual time: n users each sending `rounds` requests back to
// back, all starting together, as the sweep script drives a cell. Runs in Node, pure.

import { mulberry32 } from '../lib/random';
import { timePerOutputTokenMs } from '../lib/request-figures';
import type { Profile } from '../sim/profiles';
import { runVirtualClosedLoop } from '../sim/virtual-run';

/** A grid cell's shape: what the fit compares a profile's prediction with. */
export interface CellShape {
  readonly promptTokens: number;
  readonly outputTokens: number;
  readonly concurrency: number;
  readonly rounds: number;
  /**
   * Per user, when its first request started after the cell's first (ms), as measured: the client hands a cell's
   * first requests on over tens to hundreds of ms, so the server never sees them as one burst. Missing: all at once.
   */
  readonly userStartMs?: readonly number[];
  /**
   * How long after a request ended its user's next one started (ms), as measured (whatif/fit-cells.ts): the
   * client's turnaround, 5 to 100+ ms over HTTP. Missing or 0: at once. Each gap is drawn within +-50% of it.
   */
  readonly requestGapMs?: number;
}

/** One predicted request as a client measures it: TTFT from send, time per output token after the first. */
export interface PredictedRequest {
  readonly ttftMs: number;
  /** (e2e - ttft) / (output - 1), ms; null for a one-token answer. */
  readonly tpotMs: number | null;
}

/** Each user's gaps between requests are drawn within this share either side of the client's measured gap. */
const GAP_SPREAD = 0.5;

/**
 * The requests of one cell in virtual time. Prompts are unique (the suite's prompts differ in their first line), so
 * the prefix cache finds nothing. Each user starts when the measured cell's did (userStartMs) and sends its next
 * request a drawn gap after its last ended. With `draws` > 1, the cell runs that many times with other gaps (seeded)
 * and their requests are pooled: a cell of few users and rounds can turn on a millisecond (whether a user's next
 * prompt reaches the server before another's last decode step, profile B's 8K x 2 users: its 6.5 ms overhead against
 * a 7.0 ms step), so one schedule's median is not what a client, whose turnaround varies by milliseconds, measures.
 */
export function predictCell(profile: Profile, cell: CellShape, draws = 1): PredictedRequest[] {
  const gap = cell.requestGapMs ?? 0;
  return Array.from({ length: draws }, (_, d) => {
    const random = mulberry32(0x9a9 + d);
    const requests = runVirtualClosedLoop(
      profile, cell.promptTokens, cell.outputTokens, [{ users: cell.concurrency, seconds: Infinity }],
      {
        requestsPerUser: cell.rounds, userStartMs: cell.userStartMs,
        requestGapMs: gap > 0 ? () => gap * (1 - GAP_SPREAD + 2 * GAP_SPREAD * random()) : undefined,
      },
    );
    return requests.map((r) => ({
      ttftMs: r.ttftMs,
      tpotMs: timePerOutputTokenMs(r.e2eMs, r.ttftMs, r.outputTokens),
    }));
  }).flat();
}
