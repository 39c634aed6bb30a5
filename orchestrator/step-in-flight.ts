// The load a bench-driven step delivered: the mean requests the client held in flight while its measured requests
// ran. Pure. Runs in Node.

import { spanUnion, timeInside, type Span } from '../lib/span-union';
import type { StepRequest, StepResult } from './driver';

/**
 * The mean requests in flight over a step's measured requests (every measurement of it, `measurements`): each request
 * of the run (`runRequests`: any step, any phase) counted for its time inside the union of the measured requests'
 * spans, over that union's length (Little's law on the client's own start and end of each request). Warm-up and
 * transition requests hold users too, so they count here while the statistics leave them out. Each k6 process of a
 * split run has its own run clock: each runner's requests are read on their own and the runners' means added. Null
 * without a measured request.
 */
export function stepInFlight(
  measurements: readonly StepResult[], runRequests: readonly StepRequest[],
): number | null {
  const measured = measurements.flatMap((r) => r.requests).filter((q) => q.phase === 'measured');
  if (measured.length === 0) return null;
  let total = 0;
  for (const runner of new Set(measured.map((q) => q.runner))) {
    const parts = spanUnion(measured.filter((q) => q.runner === runner).map(spanOf));
    const length = parts.reduce((sum, [from, to]) => sum + to - from, 0);
    if (length <= 0) continue;
    let held = 0;
    for (const q of runRequests) if (q.runner === runner) held += timeInside(spanOf(q), parts);
    total += held / length;
  }
  return total;
}

function spanOf(q: StepRequest): Span {
  return [q.startMs, q.endMs];
}
