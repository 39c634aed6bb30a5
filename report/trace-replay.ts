// What a trace replay measured: the trace as recorded beside what each speed sent, and the fastest speed the trace
// held within its use case's limits ("holds up to 1.5x its recorded speed"). Pure; runs in Node.
//
// The speed ladder is read as measured, like a rate ladder (report/rate-capacity.ts): between two speeds the queue
// either keeps up or grows, so nothing is interpolated.

import type { TraceConfig } from '../lib/plan';
import type { UseCase } from '../thresholds/use-cases';
import type { CellStats } from './cells';
import { openLoopCapacity, type LadderJudgement, type RateCapacity } from './rate-capacity';

/** One speed's cell, with what it sent against what the trace holds. */
export interface TraceCellFigures {
  readonly cellId: string;
  readonly speed: number;
  /** Prompt tokens the server served from its prefix cache over the prompt tokens sent; null when it did not say. */
  readonly cachedShare: number | null;
  /** Sent prompt tokens over the trace's: 1 when every request was sent at its exact length and ended. */
  readonly inputTokensSentShare: number | null;
}

export interface TraceReplayReport {
  readonly trace: TraceConfig;
  readonly useCase: UseCase;
  readonly cells: readonly TraceCellFigures[];
  /** The speed ladder: the highest speed that met every limit (result.display is the speed), with its interval. */
  readonly capacity: RateCapacity | null;
}

/** The replay's report, or null when the run replayed no trace. */
export function traceReplayReport(
  trace: TraceConfig | null, useCases: readonly UseCase[], cells: readonly CellStats[], judged: LadderJudgement,
): TraceReplayReport | null {
  if (trace === null) return null;
  const useCase = useCases.find((u) => u.id === trace.useCase);
  const mine = cells.filter((c) => c.script === 'trace' && c.openLoop?.speed != null);
  if (!useCase || mine.length === 0) return null;
  const promptTokens = trace.summary.inputTokensTotal;
  return {
    trace,
    useCase,
    cells: mine.map((c) => ({
      cellId: c.id,
      speed: c.openLoop!.speed!,
      cachedShare: c.cachedTokensTotal !== null && c.inputTokensTotal > 0 ? c.cachedTokensTotal / c.inputTokensTotal : null,
      inputTokensSentShare: promptTokens > 0 ? c.inputTokensTotal / promptTokens : null,
    })),
    capacity: openLoopCapacity(useCase, mine, (c) => c.openLoop!.speed!, judged),
  };
}
