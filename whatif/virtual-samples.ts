// A predicted request as the report's samples interface takes it (report/predicted-samples.ts PredictedRequest): the
// Driver's record of it (phase, figures) with the cell's scenario tags (lib/options.ts cellTags) and what the batcher
// served (prompt and cached tokens). Pure. Runs in Node.

import { cellTags } from '../lib/options';
import type { StepRequest, StepResult } from '../orchestrator/driver';
import type { PredictedRequest } from '../report/predicted-samples';
import type { RequestExtras } from './virtual-drive';

/**
 * One completed request of a step, stamped at its end in whole milliseconds (k6 stamps a measured request's samples
 * when it ends); `originMs` is the epoch time the virtual clock's 0 stands for.
 */
export function predictedRequest(
  step: StepResult, request: StepRequest, extras: RequestExtras, originMs: number,
): PredictedRequest {
  return {
    tags: cellTags(step.spec.cell),
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
