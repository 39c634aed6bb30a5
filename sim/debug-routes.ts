// The simulator's debug routes, on only with --ground-truth: the per-request records (GET lists, DELETE clears) and a
// server-wide stall on request. Runs in Node.

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GroundTruthStore } from './ground-truth';
import { ApiError } from './api-error';
import { sendJson } from './http-exchange';
import type { Scheduler } from './scheduler';

/** The longest stall POST /debug/stall accepts, ms: a hiccup, not a way to hang the server for good. */
const MAX_STALL_MS = 600_000;

/**
 * GET /debug/ground-truth lists the records (`records`: generations; `embeds`: embeddings and rerank answers),
 * DELETE clears them; false for any other method, which is then not
 * found. `enabled`: the server records ground truth.
 */
export function groundTruthRoute(
  enabled: boolean, truth: GroundTruthStore, method: string, res: ServerResponse,
): boolean {
  if (!enabled) throw new ApiError(404, 'Ground truth is not enabled: start the simulator with --ground-truth.');
  if (method === 'DELETE') {
    truth.clear();
    res.writeHead(204).end();
    return true;
  }
  if (method === 'GET') {
    sendJson(res, 200, { records: truth.all(), embeds: truth.embeds() });
    return true;
  }
  return false;
}

/**
 * POST /debug/stall?ms=N: a server-wide stall (a GPU hiccup) from now, answered with its window in epoch ms, the
 * ground truth's clock; false for any other method. A debug route like the ground truth's, so only with it.
 */
export function stallRoute(
  enabled: boolean, scheduler: Pick<Scheduler, 'stall'>, method: string, req: IncomingMessage, res: ServerResponse,
): boolean {
  if (!enabled) throw new ApiError(404, 'The stall route is not enabled: start the simulator with --ground-truth.');
  if (method !== 'POST') return false;
  req.resume();
  const ms = Number(new URL(req.url ?? '/', 'http://sim').searchParams.get('ms') ?? NaN);
  if (!(ms > 0 && ms <= MAX_STALL_MS))
    throw new ApiError(400, `ms must be a number of milliseconds above 0 and at most ${MAX_STALL_MS}.`, 'ms');
  const { startMs, endMs } = scheduler.stall(ms);
  sendJson(res, 200, { startEpochMs: performance.timeOrigin + startMs, endEpochMs: performance.timeOrigin + endMs });
  return true;
}
