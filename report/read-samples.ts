// Streams k6's CSV output (papaparse) into per-cell accumulators and monitor time series, keeping memory bounded.
// Runs in Node.
//
// Only the suite's own metrics (lib/metrics.ts) are kept; k6 built-ins (http_req_*, sse_event, data_*,
// vus, iterations, ...) are skipped after one map lookup. Values are stored in float64 arrays, so a
// 5-million-row file costs tens of megabytes, not gigabytes. The CSV's format: report/k6-csv.ts.

import { createReadStream } from 'node:fs';
import Papa from 'papaparse';
import {
  CELL_TAGS, SAMPLE_TAGS, SEARCH_METRICS, metricKeyOf, type ArrivalMetricKey, type RequestMetricKey,
  type ServerMetricKey,
} from '../lib/metrics';
import { SERVER_METRICS } from '../lib/server-metrics';
import { FloatList } from './stats';
import { ReportInputError } from './inputs';
import {
  columnsOf, completeLength, detach, parseErrorMessage, parseExtraTags, timestampScale, type Columns,
} from './k6-csv';
import { addEmbedSample, newEmbedSamples, type EmbedSamples } from './embed-samples';
import {
  addSessionSample, newRequestSpans, newSessionAccumulator, type RequestSpans, type SessionAccumulator,
} from './session-samples';

/**
 * Request metrics recorded as Trends (one value per request, or per token for ITL); scheduleLag and the intended
 * ones, rate cells only; the cache hit and miss TTFTs, requests whose usage said how many prompt tokens were cached.
 */
export const TREND_KEYS = [
  'ttft', 'ttfc', 'itl', 'tpot', 'e2e', 'decodeSpeed', 'prefillSpeed', 'scheduleLag', 'ttftIntended', 'e2eIntended',
  'ttftCacheHit', 'ttftCacheMiss',
] as const satisfies readonly (RequestMetricKey | ArrivalMetricKey)[];
export type TrendKey = (typeof TREND_KEYS)[number];

/** Everything the CSV says about one cell. Times are epoch milliseconds. */
export interface CellAccumulator {
  readonly id: string;
  /** The cell's scenario tags (cell, script, context, output, concurrency, use_case, profile) from the first sample. */
  readonly tags: Record<string, string>;
  readonly trends: Record<TrendKey, FloatList>;
  inputTokens: number;
  outputTokens: number;
  /** Output-token samples per token_source tag ("usage" | "chunks" | "unknown"). */
  readonly tokenSources: Record<string, number>;
  okCount: number;
  failCount: number;
  /** llm_goodput samples: requests judged against the cell's use-case limits, and those that met them all. */
  readonly goodput: { judged: number; good: number };
  /** llm_errors counts per error_kind. */
  readonly errorsByKind: Record<string, number>;
  /**
   * Per error_kind, the error messages of llm_errors samples (metadata error_message) and their counts; at most
   * MAX_MESSAGES_PER_KIND distinct.
   */
  readonly errorMessages: Record<string, Map<string, number>>;
  /** error_kind of failed llm_request_ok samples, used when no llm_errors samples exist. */
  readonly failedByKind: Record<string, number>;
  /** First request start (llm_e2e sample time minus its value) and last request end, epoch ms. */
  windowStartMs: number;
  windowEndMs: number;
  /** Each request's end (its llm_e2e sample time), in the order of trends.e2e: with it, when each request ran. */
  readonly requestEnds: FloatList;
  /** Requests left out of the statistics by their phase tag (lib/drive.ts): warm-up and transition. */
  readonly excluded: { warmup: number; transition: number };
  /** Each request's longest read lag, ms (llm_client_read_lag). */
  readonly readLag: FloatList;
  /** The earliest and latest llm_client_cpu_seconds samples: epoch ms and per-core CPU seconds. */
  cpuFirst: { atMs: number; seconds: number } | null;
  cpuLast: { atMs: number; seconds: number } | null;
  /** The sessions script's turns (report/session-samples.ts); absent in other cells. */
  sessions?: SessionAccumulator;
  /** A rate cell's llm_achieved_rate (requests/s), pushed once its last request ended; null until then or elsewhere. */
  achievedRate: number | null;
  /** Each request's prompt and output tokens as the server counted them: a replayed trace's lengths as sent. */
  readonly inputLengths: FloatList;
  readonly outputLengths: FloatList;
  /** Prompt tokens the server served from its prefix cache (llm_cached_tokens), and how many requests said. */
  cachedTokens: number;
  cachedReported: number;
  /** Thinking tokens of the completed requests that said (llm_reasoning_tokens), and how many said. */
  reasoningTokens: number;
  reasoningReported: number;
  /** The embed script's requests (lib/k6/embed.ts): their latencies and what they carried; absent elsewhere. */
  embed?: EmbedSamples;
}

/** A monitor time series (cumulative counters and gauges): sample times (epoch ms) and values, in file order. */
export interface Series {
  readonly times: FloatList;
  readonly values: FloatList;
}

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
  /** The spans of the part's sessions requests, for the requests in flight of each step. */
  readonly sessionSpans: RequestSpans;
}

/** Distinct messages kept per cell and error kind: bounded memory when every message differs (ids, timestamps). */
export const MAX_MESSAGES_PER_KIND = 100;

const TAG_SET: ReadonlySet<string> = new Set<string>(CELL_TAGS);

/** An empty accumulator for one cell (the bench's capacity search fills one from its own records). */
export function newCellAccumulator(id: string, tags: Record<string, string>): CellAccumulator {
  const scenarioTags: Record<string, string> = {};
  for (const [key, value] of Object.entries(tags)) if (TAG_SET.has(key)) scenarioTags[key] = value;
  const trends = {} as Record<TrendKey, FloatList>;
  for (const trend of TREND_KEYS) trends[trend] = new FloatList(trend === 'itl' ? 4096 : 64);
  return {
    id,
    tags: scenarioTags,
    trends,
    inputTokens: 0,
    outputTokens: 0,
    tokenSources: {},
    okCount: 0,
    failCount: 0,
    goodput: { judged: 0, good: 0 },
    errorsByKind: {},
    errorMessages: {},
    failedByKind: {},
    windowStartMs: Infinity,
    windowEndMs: -Infinity,
    requestEnds: new FloatList(),
    excluded: { warmup: 0, transition: 0 },
    readLag: new FloatList(64),
    cpuFirst: null,
    cpuLast: null,
    achievedRate: null,
    inputLengths: new FloatList(64),
    outputLengths: new FloatList(64),
    cachedTokens: 0,
    cachedReported: 0,
    reasoningTokens: 0,
    reasoningReported: 0,
  };
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
  private readonly sessionSpans = newRequestSpans();
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
    const { cells, monitor, rows, skippedRows, malformedRows, sessionSpans } = this;
    return { cells, monitor, rows, skippedRows, partialTailBytes, malformedRows, sessionSpans };
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
    if (tags[SAMPLE_TAGS.turn] !== undefined) {
      const measured = phase !== 'warmup' && phase !== 'transition';
      const sessions = (cell.sessions ??= newSessionAccumulator());
      addSessionSample(sessions, this.sessionSpans, key, tags, timestampMs, value, measured);
    }
    if (phase === 'warmup' || phase === 'transition') {
      if (key === 'requestOk') cell.excluded[phase]++;
      return;
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

/** A Trend sample; an e2e sample also widens the cell's window (its request ran from time - e2e to time). */
function addTrendSample(cell: CellAccumulator, trend: TrendKey, timestampMs: number, value: number): void {
  cell.trends[trend].push(value);
  if (trend !== 'e2e') return;
  cell.requestEnds.push(timestampMs);
  const start = timestampMs - value;
  if (start < cell.windowStartMs) cell.windowStartMs = start;
  if (timestampMs > cell.windowEndMs) cell.windowEndMs = timestampMs;
}

/** A counter, rate or gauge sample of a request: tokens, read lag, CPU, success, goodput and errors. */
function addRequestSample(
  cell: CellAccumulator,
  key: string,
  tags: Record<string, string>,
  timestampMs: number,
  value: number,
  metadata: string,
): void {
  switch (key) {
    case 'inputTokens':
      cell.inputTokens += value;
      cell.inputLengths.push(value);
      return;
    case 'cachedTokens':
      cell.cachedTokens += value;
      cell.cachedReported++;
      return;
    case 'reasoningTokens':
      cell.reasoningTokens += value;
      cell.reasoningReported++;
      return;
    case 'outputTokens': {
      cell.outputTokens += value;
      cell.outputLengths.push(value);
      const source = tags[SAMPLE_TAGS.tokenSource] ?? 'unknown';
      cell.tokenSources[source] = (cell.tokenSources[source] ?? 0) + 1;
      return;
    }
    case 'readLag':
      cell.readLag.push(value);
      return;
    case 'cpuSeconds':
      addCpuSample(cell, { atMs: timestampMs, seconds: value });
      return;
    case 'requestOk':
      if (value !== 0) {
        cell.okCount++;
        return;
      }
      cell.failCount++;
      addCount(cell.failedByKind, tags[SAMPLE_TAGS.errorKind] ?? 'unknown', 1);
      return;
    case 'errors':
      addErrorSample(cell, tags[SAMPLE_TAGS.errorKind] ?? 'unknown', value, metadata);
      return;
    case 'goodput':
      cell.goodput.judged++;
      if (value !== 0) cell.goodput.good++;
      return;
    case 'achievedRate':
      cell.achievedRate = value;
      return;
    case 'embedLatency':
    case 'embedItems':
    case 'embedInputTokens':
      addEmbedSample((cell.embed ??= newEmbedSamples()), key, tags[SAMPLE_TAGS.tokenSource], timestampMs, value);
      return;
  }
}

/** An llm_errors sample: counted by kind; its message (metadata column) kept, up to MAX_MESSAGES_PER_KIND a kind. */
function addErrorSample(cell: CellAccumulator, kind: string, count: number, metadata: string): void {
  addCount(cell.errorsByKind, kind, count);
  const message = metadata === '' ? null : parseErrorMessage(metadata);
  if (message === null) return;
  const messages = (cell.errorMessages[kind] ??= new Map());
  const seen = messages.get(message);
  if (seen !== undefined) messages.set(message, seen + count);
  else if (messages.size < MAX_MESSAGES_PER_KIND) messages.set(detach(message), count);
}

/** Keeps the earliest and the latest llm_client_cpu_seconds sample of a cell. */
function addCpuSample(cell: CellAccumulator, sample: { atMs: number; seconds: number }): void {
  if (cell.cpuFirst === null || sample.atMs < cell.cpuFirst.atMs) cell.cpuFirst = sample;
  if (cell.cpuLast === null || sample.atMs >= cell.cpuLast.atMs) cell.cpuLast = sample;
}

function addCount(counts: Record<string, number>, key: string, count: number): void {
  counts[key] = (counts[key] ?? 0) + count;
}
