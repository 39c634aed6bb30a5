// Streams k6's CSV output (papaparse) into per-cell accumulators (analysis/cell-accumulator.ts) and monitor time
// series, keeping memory bounded. Runs in Node.
//
// Only the suite's own metrics (lib/metrics.ts) are kept; k6 built-ins (http_req_*, sse_event, data_*,
// vus, iterations, ...) are skipped after one map lookup. Values are stored in float64 arrays, so a
// 5-million-row file costs tens of megabytes, not gigabytes. The CSV's format: report/k6-csv.ts.

import { createReadStream } from 'node:fs';
import Papa from 'papaparse';
import { SAMPLE_TAGS, SEARCH_METRICS, metricKeyOf, type ServerMetricKey } from '../lib/metrics';
import { SERVER_METRICS } from '../lib/server-metrics';
import { FloatList } from '../analysis/stats';
import type { Series } from '../analysis/server-metrics';
import {
  addRequestSample, addTrendSample, newCellAccumulator, TREND_KEYS, type CellAccumulator, type TrendKey,
} from '../analysis/cell-accumulator';
import { ReportInputError } from './inputs';
import { columnsOf, completeLength, detach, parseExtraTags, timestampScale, type Columns } from './k6-csv';
import { addSessionSample, newSessionAccumulator } from '../analysis/session-samples';
import { addRequestSpan, newRequestSpans, type RequestSpans } from '../analysis/request-spans';
import { addAgentSample, isAgentMetric, newAgentAccumulator } from '../analysis/agentic-samples';

export type { Series } from '../analysis/server-metrics';

export interface SamplesData {
  readonly cells: ReadonlyMap<string, CellAccumulator>;
  readonly monitor: Partial<Record<ServerMetricKey, Series>>;
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
   * ran between two scrapes of the server (analysis/server-metrics.ts).
   */
  readonly requestSpans: RequestSpans;
}

const TREND_SET: ReadonlySet<string> = new Set<string>(TREND_KEYS);

/**
 * Reads a k6 CSV (samples.csv) as a stream. Throws ReportInputError for a file without k6's header
 * or with whole-second timestamps.
 */
export function readSamples(path: string): Promise<SamplesData> {
  let lengths: { size: number; complete: number };
  try {
    lengths = completeLength(path);
  } catch (e) {
    return Promise.reject(new ReportInputError(`cannot read ${path}: ${(e as Error).message}`));
  }
  if (lengths.complete === 0) {
    const notEvenAHeader = lengths.size > 0 ? ' (not even a whole header line)' : '';
    const message = `${path} is empty${notEvenAHeader}: the k6 run wrote no samples (did it start?)`;
    return Promise.reject(new ReportInputError(message));
  }
  const reader = new SamplesReader(path);
  const partialTailBytes = lengths.size - lengths.complete;
  const parsed = parseCsvChunks(path, lengths.complete, (rows) => reader.addRows(rows));
  return parsed.then(() => reader.finish(partialTailBytes));
}

/**
 * Streams the first `bytes` of a CSV file through papaparse, a chunk of rows at a time (64 KB of
 * text). An error thrown by `onChunk` stops the parse and rejects with that error.
 */
function parseCsvChunks(path: string, bytes: number, onChunk: (rows: readonly string[][]) => void): Promise<void> {
  return new Promise<void>((resolvePromise, reject) => {
    // `end` is inclusive: read up to the last line end, never the partial line after it.
    const stream = createReadStream(path, { encoding: 'utf8', highWaterMark: 64 * 1024, end: bytes - 1 });
    stream.on('error', (e) => reject(new ReportInputError(`cannot read ${path}: ${e.message}`)));
    let failure: Error | null = null;
    Papa.parse<string[]>(stream as unknown as File, {
      header: false,
      skipEmptyLines: true,
      chunk: (results, parser) => {
        if (failure) return;
        try {
          onChunk(results.data);
        } catch (e) {
          failure = e as Error;
          parser.abort();
        }
      },
      complete: () => (failure ? reject(failure) : resolvePromise()),
      error: (e: Error) => reject(new ReportInputError(`${path}: CSV parse error: ${e.message}`)),
    });
  });
}

/** The reading state of one CSV: its header, the cells and monitor series so far, and the row counts. */
class SamplesReader {
  private readonly cells = new Map<string, CellAccumulator>();
  private readonly monitor: Partial<Record<ServerMetricKey, Series>> = {};
  private readonly tagCache = new Map<string, Record<string, string>>();
  private readonly requestSpans = newRequestSpans();
  private header: readonly string[] | null = null;
  private columns: Columns | null = null;
  /** Milliseconds per timestamp unit, from the first sample; 0 until then. */
  private timestampScale = 0;
  private rows = 0;
  private skippedRows = 0;
  private malformedRows = 0;

  constructor(private readonly path: string) {}

  /** One chunk of rows; the first row of the first chunk is the header. */
  addRows(rows: readonly string[][]): void {
    let start = 0;
    if (this.header === null) {
      this.header = rows[0] ?? [];
      this.columns = columnsOf(this.header, this.path);
      start = 1;
    }
    for (let i = start; i < rows.length; i++) this.addRow(rows[i]!);
  }

  /** What the file held; `partialTailBytes` is the cut last line that was not read. */
  finish(partialTailBytes: number): SamplesData {
    if (this.header === null) {
      throw new ReportInputError(`${this.path} is empty: the k6 run wrote no samples (did it start?)`);
    }
    const { cells, monitor, rows, skippedRows, malformedRows, requestSpans } = this;
    return { cells, monitor, rows, skippedRows, partialTailBytes, malformedRows, requestSpans };
  }

  /** One sample: a suite metric goes to the monitor series or to its cell; k6 built-ins are counted and skipped. */
  private addRow(row: readonly string[]): void {
    const columns = this.columns!;
    const name = row[columns.name];
    if (name === undefined || name === '') return;
    if (row.length !== this.header!.length) {
      this.malformedRows++;
      return;
    }
    const key = metricKeyOf(name);
    this.rows++;
    if (key === undefined) {
      this.skippedRows++;
      return;
    }
    const timestampText = row[columns.timestamp] ?? '';
    if (this.timestampScale === 0) this.timestampScale = timestampScale(timestampText, this.path);
    const timestampMs = Number(timestampText) * this.timestampScale;
    const value = Number(row[columns.value]);
    // What the bench's search decided, pushed by the monitor VU for Grafana: run-level, no cell's sample (the
    // report reads the decisions from plan.json). Taken for a cell, it made a stray "monitor" cell warning.
    if (key in SEARCH_METRICS) return;
    if (key in SERVER_METRICS) {
      const series = (this.monitor[key as ServerMetricKey] ??= { times: new FloatList(), values: new FloatList() });
      series.times.push(timestampMs);
      series.values.push(value);
      return;
    }
    this.addCellSample(key, row, timestampMs, value);
  }

  /** A request sample, to the cell its tags name; warm-up and transition requests are only counted. */
  private addCellSample(key: string, row: readonly string[], timestampMs: number, value: number): void {
    const columns = this.columns!;
    const tags = this.tagsOf(row[columns.extraTags] ?? '');
    const id = tags.cell ?? row[columns.scenario] ?? '';
    if (id === '') return;
    let cell = this.cells.get(id);
    if (cell === undefined) {
      cell = newCellAccumulator(detach(id), tags);
      this.cells.set(cell.id, cell);
    }
    // Warm-up and transition requests stay in the samples but out of the cell's statistics.
    const phase = tags[SAMPLE_TAGS.phase];
    if (key === 'e2e') addRequestSpan(this.requestSpans, timestampMs, value);
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
    else addRequestSample(cell, key, tags, timestampMs, value, row[columns.metadata] ?? '');
  }

  /** The parsed extra_tags of a row; rows repeat the same few tag strings, so each is parsed once. */
  private tagsOf(text: string): Record<string, string> {
    let tags = this.tagCache.get(text);
    if (tags === undefined) {
      const own = detach(text);
      tags = parseExtraTags(own);
      if (this.tagCache.size < 100_000) this.tagCache.set(own, tags);
    }
    return tags;
  }
}
