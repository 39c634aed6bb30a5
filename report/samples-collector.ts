// The report's samples interface: what a part's samples are once gathered (SamplesData, the input of every builder),
// and the one collector that gathers them a sample at a time. A measured run's reader fills it from k6's CSV
// (report/read-samples.ts); a prediction fills it in memory from its virtual engine, and its stored records are read
// back through it (report/predicted-samples.ts). So a cell's figures never depend on which of them gave the samples.
// Runs in Node.

import { REQUEST_SPAN_KEYS, SAMPLE_TAGS, SEARCH_METRICS, type ServerMetricKey } from '../lib/metrics';
import { SERVER_METRICS } from '../lib/server-metrics';
import { FloatList } from '../analysis/stats';
import type { Series } from '../analysis/server-metrics';
import {
  addRequestSample, addTrendSample, newCellAccumulator, TREND_KEYS, type CellAccumulator, type TrendKey,
} from '../analysis/cell-accumulator';
import { detach } from '../analysis/sample-text';
import { addSessionSample, newSessionAccumulator } from '../analysis/session-samples';
import { addRequestSpan, newRequestSpans, type RequestSpans } from '../analysis/request-spans';
import { addAgentSample, isAgentMetric, newAgentAccumulator } from '../analysis/agentic-samples';

const SPAN_KEYS: ReadonlySet<string> = new Set(REQUEST_SPAN_KEYS);

export type { Series } from '../analysis/server-metrics';

/** A part's samples, gathered: what the report's builders read, whichever source filled it. */
export interface SamplesData {
  readonly cells: ReadonlyMap<string, CellAccumulator>;
  readonly monitor: Partial<Record<ServerMetricKey, Series>>;
  /** Samples given, the suite's and skipped ones (a k6 CSV's rows, a prediction's samples). */
  readonly rows: number;
  /** Rows of k6 built-in metrics that were skipped. */
  readonly skippedRows: number;
  /** Bytes after the last line end, dropped: the engine was killed while writing that line. */
  readonly partialTailBytes: number;
  /** Rows whose column count differs from the header's, dropped (a damaged line). */
  readonly malformedRows: number;
  /**
   * For a part split across k6 processes (report/split-inputs.ts): the runners the split had, how many
   * CSVs were merged, and one sentence per runner that is missing or did not finish.
   */
  readonly split?: { readonly runners: number; readonly merged: number; readonly problems: readonly string[] };
  /**
   * When every request of the part ran, any cell's, any phase: the requests in flight of each sessions step, and what
   * ran between two scrapes of the server (report/server-metrics.ts).
   */
  readonly requestSpans: RequestSpans;
}

/** How the source's reading went: what SamplesData says beside the samples. */
export interface SourceCounts {
  readonly rows: number;
  readonly skippedRows: number;
  readonly partialTailBytes: number;
  readonly malformedRows: number;
}

const TREND_SET: ReadonlySet<string> = new Set<string>(TREND_KEYS);

/** Gathers one part's samples into per-cell accumulators and monitor series; `finish` hands them over. */
export class SamplesCollector {
  private readonly cells = new Map<string, CellAccumulator>();
  private readonly monitor: Partial<Record<ServerMetricKey, Series>> = {};
  private readonly requestSpans = newRequestSpans();

  /**
   * A sample of a suite metric (lib/metrics.ts key) that names no cell: the monitor's series, or the search's
   * decisions (run-level, left out). Returns false for a request metric, which needs its cell (addCellSample).
   */
  addRunSample(key: string, timestampMs: number, value: number): boolean {
    // What the bench's search decided, pushed by the monitor VU for Grafana: run-level, no cell's sample (the
    // report reads the decisions from plan.json). Taken for a cell, it made a stray "monitor" cell warning.
    if (key in SEARCH_METRICS) return true;
    if (!(key in SERVER_METRICS)) return false;
    const series = (this.monitor[key as ServerMetricKey] ??= { times: new FloatList(), values: new FloatList() });
    series.times.push(timestampMs);
    series.values.push(value);
    return true;
  }

  /**
   * A request sample, to the cell `cellId` (its tags' `cell`); warm-up and transition requests are only counted.
   * `metadata`: k6's metadata column ("error_message=..."), '' when the sample has none.
   */
  addCellSample(
    key: string, cellId: string, tags: Record<string, string>, timestampMs: number, value: number, metadata = '',
  ): void {
    if (cellId === '') return;
    let cell = this.cells.get(cellId);
    if (cell === undefined) {
      cell = newCellAccumulator(detach(cellId), tags);
      this.cells.set(cell.id, cell);
    }
    // Warm-up and transition requests stay in the samples but out of the cell's statistics.
    const phase = tags[SAMPLE_TAGS.phase];
    if (SPAN_KEYS.has(key)) addRequestSpan(this.requestSpans, timestampMs, value);
    if (tags[SAMPLE_TAGS.turn] !== undefined) {
      const measured = phase !== 'warmup' && phase !== 'transition';
      addSessionSample((cell.sessions ??= newSessionAccumulator()), key, tags, value, measured);
    }
    if (phase === 'warmup' || phase === 'transition') {
      if (key === 'requestOk') cell.excluded[phase]++;
      return;
    }
    if (isAgentMetric(key) || tags[SAMPLE_TAGS.contextClass] !== undefined) {
      addAgentSample((cell.agentic ??= newAgentAccumulator()), key, tags, value);
      if (isAgentMetric(key)) return;
    }
    if (TREND_SET.has(key)) addTrendSample(cell, key as TrendKey, timestampMs, value);
    else addRequestSample(cell, key, tags, timestampMs, value, metadata);
  }

  /** The samples gathered, with the source's own counts. */
  finish(counts: SourceCounts): SamplesData {
    return { cells: this.cells, monitor: this.monitor, requestSpans: this.requestSpans, ...counts };
  }
}
