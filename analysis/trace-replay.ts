// What a trace replay measured: the trace as recorded beside what each speed sent, and the fastest speed the trace
// held within its use case's limits ("holds up to 1.5x its recorded speed"). Pure; runs in Node.
//
// The speed ladder is read as measured, like a rate ladder (analysis/rate-capacity.ts): between two speeds the queue
// either keeps up or grows, so nothing is interpolated.

import type { TraceConfig } from '../lib/plan';
import { histogram } from '../lib/trace-replay';
import type { UseCase } from '../thresholds/use-cases';
import type { CellStats } from './cells';
import type { CellAccumulator } from './cell-accumulator';
import { openLoopCapacity, type LadderJudgement, type RateCapacity } from './rate-capacity';

/** One speed's cell, with what it sent against what the trace holds. */
export interface TraceCellFigures {
  readonly cellId: string;
  readonly speed: number;
  /** Prompt tokens the server served from its prefix cache over the prompt tokens sent; null when it did not say. */
  readonly cachedShare: number | null;
  /** Sent prompt tokens over the trace's: 1 when every request was sent at its exact length and ended. */
  readonly inputTokensSentShare: number | null;
  /**
   * What was sent, binned with the trace's own histogram edges: prompt and output lengths as the server counted them,
   * and send times (of the requests that ended) from the first, times the speed, so they read in trace time.
   */
  readonly sent: {
    readonly inputTokens: number[]; readonly outputTokens: number[]; readonly arrivalsMs: number[];
  } | null;
}

/** A trace cell's requests as sent (report/build-report.ts reads them from its samples). */
export interface TraceSends {
  readonly inputTokens: Float64Array;
  readonly outputTokens: Float64Array;
  readonly startsMs: Float64Array;
}

/** A trace cell's requests as the server counted them, and when each ended request began (its end less its e2e). */
export function traceSendsOf(accumulator: CellAccumulator): TraceSends {
  const ends = accumulator.requestEnds.values();
  const e2e = accumulator.trends.e2e.values();
  return {
    inputTokens: accumulator.inputLengths.values(), outputTokens: accumulator.outputLengths.values(),
    startsMs: Float64Array.from(ends, (end, i) => end - e2e[i]!),
  };
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
  trace: TraceConfig | null, useCases: readonly UseCase[], cells: readonly CellStats[],
  sends: ReadonlyMap<string, TraceSends>, judged: LadderJudgement,
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
      cachedShare: c.cachedTokensTotal !== null && c.inputTokensTotal > 0
        ? c.cachedTokensTotal / c.inputTokensTotal
        : null,
      inputTokensSentShare: promptTokens > 0 ? c.inputTokensTotal / promptTokens : null,
      sent: sentHistograms(trace, sends.get(c.id), c.openLoop!.speed!),
    })),
    capacity: openLoopCapacity(useCase, mine, (c) => c.openLoop!.speed!, judged),
  };
}

function sentHistograms(trace: TraceConfig, sends: TraceSends | undefined, speed: number): TraceCellFigures['sent'] {
  if (!sends) return null;
  const h = trace.summary.histograms;
  const first = sends.startsMs.reduce((m, t) => Math.min(m, t), Infinity);
  const lastEdge = h.arrivalsMs.edges[h.arrivalsMs.edges.length - 1] ?? 0;
  return {
    inputTokens: histogram(sends.inputTokens, h.inputTokens.edges),
    outputTokens: histogram(sends.outputTokens, h.outputTokens.edges),
    // A send a few ms late past the trace's last row still belongs to the last bin.
    arrivalsMs: histogram(
      Array.from(sends.startsMs, (t) => Math.min((t - first) * speed, lastEdge)), h.arrivalsMs.edges,
    ),
  };
}
