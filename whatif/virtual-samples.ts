// A predicted request as the report's samples interface takes it (report/predicted-samples.ts PredictedRequest): the
// done report of it (figures) with the phase its step gave it, the cell's scenario tags (lib/options.ts cellTags) and
// what the batcher served (prompt and cached tokens). Pure. Runs in Node.
//
// Its inputs are lib/drive.ts's shapes, not the orchestrator's Driver: what becomes a sample is the request, not how
// the steps were decided.

import type { DoneReport, Phase, Ticket } from '../lib/drive';
import { cellTags } from '../lib/options';
import type { PredictedRequest } from '../report/predicted-samples';
import type { RequestExtras } from './virtual-drive';

/**
 * One completed request of a cell, stamped at its end in whole milliseconds (k6 stamps a measured request's samples
 * when it ends); `originMs` is the epoch time the virtual clock's 0 stands for.
 */
export function predictedRequest(
  cell: Ticket['cell'], request: DoneReport & { readonly phase: Phase }, extras: RequestExtras, originMs: number,
): PredictedRequest {
  return {
    tags: cellTags(cell),
    phase: request.phase,
    endMs: Math.round(originMs + request.endMs),
    ttftMs: request.ttftMs,
    ttfcMs: request.ttfcMs,
    e2eMs: request.e2eMs,
    tpotMs: request.tpotMs,
    decodeTokensPerSecond: request.decodeTokensPerSecond,
    prefillTokensPerSecond: request.prefillTokensPerSecond,
    itlMs: request.itlMs,
    inputTokens: extras.inputTokens,
    outputTokens: request.outputTokens,
    cachedTokens: extras.cachedTokens,
    goodput: request.goodput,
  };
}
