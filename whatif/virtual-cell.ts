// What a profile predicts for one measured grid cell, in virtual time: n users each sending `rounds` requests back to
// back, all starting together, as the sweep script drives a cell. Runs in Node, pure.

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
}

/** One predicted request as a client measures it: TTFT from send, time per output token after the first. */
export interface PredictedRequest {
  readonly ttftMs: number;
  /** (e2e - ttft) / (output - 1), ms; null for a one-token answer. */
  readonly tpotMs: number | null;
}

/**
 * The requests of one cell in virtual time. Prompts are unique (the suite's prompts differ in their first line), so
 * the prefix cache finds nothing. Each user starts when the measured cell's did (userStartMs); the client's time
 * between a user's requests is left out (a few ms).
 */
export function predictCell(profile: Profile, cell: CellShape): PredictedRequest[] {
  const requests = runVirtualClosedLoop(
    profile, cell.promptTokens, cell.outputTokens, [{ users: cell.concurrency, seconds: Infinity }],
    { requestsPerUser: cell.rounds, userStartMs: cell.userStartMs },
  );
  return requests.map((r) => ({
    ttftMs: r.ttftMs,
    tpotMs: timePerOutputTokenMs(r.e2eMs, r.ttftMs, r.outputTokens),
  }));
}
