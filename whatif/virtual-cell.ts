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
}

/** One predicted request as a client measures it: TTFT from send, time per output token after the first. */
export interface PredictedRequest {
  readonly ttftMs: number;
  /** (e2e - ttft) / (output - 1), ms; null for a one-token answer. */
  readonly tpotMs: number | null;
}

/**
 * The requests of one cell in virtual time. Prompts are unique (the suite's prompts differ in their first line), so
 * the prefix cache finds nothing; the client's own time on loopback is left out (well under a millisecond).
 */
export function predictCell(profile: Profile, cell: CellShape): PredictedRequest[] {
  const requests = runVirtualClosedLoop(
    profile, cell.promptTokens, cell.outputTokens, [{ users: cell.concurrency, seconds: Infinity }],
    { requestsPerUser: cell.rounds },
  );
  return requests.map((r) => ({
    ttftMs: r.ttftMs,
    tpotMs: timePerOutputTokenMs(r.e2eMs, r.ttftMs, r.outputTokens),
  }));
}
