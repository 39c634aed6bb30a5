// Streams k6's CSV output (papaparse) into per-cell accumulators and monitor time series, keeping memory bounded. Runs in Node.
//
// Only the suite's own metrics (lib/metrics.ts) are kept; k6 built-ins (http_req_*, sse_event, data_*,
// vus, iterations, ...) are skipped after one map lookup. Values are stored in float64 arrays, so a
// 5-million-row file costs tens of megabytes, not gigabytes. Column layout and timestamp format:
// test/fixtures/k6-golden (header metric_name,timestamp,metric_value,...,scenario,...,extra_tags,metadata).

import { closeSync, createReadStream, fstatSync, openSync, readSync } from 'node:fs';
import Papa from 'papaparse';
import { CELL_TAGS, SAMPLE_METADATA, SAMPLE_TAGS, SERVER_METRICS, metricKeyOf, type RequestMetricKey, type ServerMetricKey } from '../lib/metrics';
import { FloatList } from './stats';
import { ReportInputError } from './inputs';

/** Request metrics recorded as Trends (one value per request, or per token for ITL). */
export const TREND_KEYS = ['ttft', 'ttfc', 'itl', 'tpot', 'e2e', 'decodeSpeed', 'prefillSpeed'] as const satisfies readonly RequestMetricKey[];
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
  /** llm_errors counts per error_kind. */
  readonly errorsByKind: Record<string, number>;
  /** Per error_kind, the error messages of llm_errors samples (metadata error_message) and their counts; at most MAX_MESSAGES_PER_KIND distinct. */
  readonly errorMessages: Record<string, Map<string, number>>;
  /** error_kind of failed llm_request_ok samples, used when no llm_errors samples exist. */
  readonly failedByKind: Record<string, number>;
  /** First request start (llm_e2e sample time minus its value) and last request end, epoch ms. */
  windowStartMs: number;
  windowEndMs: number;
  /** Requests left out of the statistics by their phase tag (lib/drive.ts): warm-up and transition. */
  readonly excluded: { warmup: number; transition: number };
  /** Each request's longest read lag, ms (llm_client_read_lag). */
  readonly readLag: FloatList;
  /** The earliest and latest llm_client_cpu_seconds samples: epoch ms and per-core CPU seconds. */
  cpuFirst: { atMs: number; seconds: number } | null;
  cpuLast: { atMs: number; seconds: number } | null;
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
}

/**
 * Length of the file up to and including its last line end. A file cut by SIGKILL ends inside a
 * line (k6 writes through a buffer that flushes at any byte): that tail is not a row.
 */
export function completeLength(path: string): { size: number; complete: number } {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const buf = Buffer.alloc(64 * 1024);
    let end = size;
    while (end > 0) {
      const start = Math.max(0, end - buf.length);
      const n = readSync(fd, buf, 0, end - start, start);
      const at = buf.subarray(0, n).lastIndexOf(0x0a);
      if (at >= 0) return { size, complete: start + at + 1 };
      end = start;
    }
    return { size, complete: 0 };
  } finally {
    closeSync(fd);
  }
}

/** Distinct messages kept per cell and error kind: bounded memory when every message differs (ids, timestamps). */
export const MAX_MESSAGES_PER_KIND = 100;

const MESSAGE_PREFIX = `${SAMPLE_METADATA.errorMessage}=`;

/**
 * The error message in k6's metadata column ("k=v&k=v", values unescaped, in no stable order). The
 * suite sets error_message as the only key, so everything after "error_message=" is the message (it
 * may itself contain "&" and "="); null when absent.
 */
export function parseErrorMessage(metadata: string): string | null {
  if (metadata.startsWith(MESSAGE_PREFIX)) return metadata.slice(MESSAGE_PREFIX.length);
  const at = metadata.indexOf(`&${MESSAGE_PREFIX}`);
  return at < 0 ? null : metadata.slice(at + 1 + MESSAGE_PREFIX.length);
}

const REQUIRED_COLUMNS = ['metric_name', 'timestamp', 'metric_value', 'scenario', 'extra_tags'] as const;
const TAG_SET: ReadonlySet<string> = new Set<string>(CELL_TAGS);

/** Parses k6's extra_tags column ("k=v&k=v", in no stable order). Values are URL-decoded only when they contain "%". */
export function parseExtraTags(text: string): Record<string, string> {
  const tags: Record<string, string> = {};
  if (text === '') return tags;
  for (const part of text.split('&')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const k = part.slice(0, eq);
    const v = part.slice(eq + 1);
    tags[k] = v.includes('%') ? safeDecode(v) : v;
  }
  return tags;
}

/**
 * A standalone copy of a string. Fields from papaparse are slices of the 64 KB chunk they came
 * from; keeping a slice (in a cache or a map key) would keep the whole chunk alive, so memory
 * would grow with the file instead of staying bounded.
 */
function detach(s: string): string {
  return Buffer.from(s, 'utf8').toString('utf8');
}

function safeDecode(v: string): string {
  try {
    return decodeURIComponent(v);
  } catch {
    return v;
  }
}

/** An empty accumulator for one cell (the bench's capacity search fills one from its own records). */
export function newCellAccumulator(id: string, tags: Record<string, string>): CellAccumulator {
  const scenarioTags: Record<string, string> = {};
  for (const [k, v] of Object.entries(tags)) if (TAG_SET.has(k)) scenarioTags[k] = v;
  const trends = {} as Record<TrendKey, FloatList>;
  for (const k of TREND_KEYS) trends[k] = new FloatList(k === 'itl' ? 4096 : 64);
  return {
    id,
    tags: scenarioTags,
    trends,
    inputTokens: 0,
    outputTokens: 0,
    tokenSources: {},
    okCount: 0,
    failCount: 0,
    errorsByKind: {},
    errorMessages: {},
    failedByKind: {},
    windowStartMs: Infinity,
    windowEndMs: -Infinity,
    excluded: { warmup: 0, transition: 0 },
    readLag: new FloatList(64),
    cpuFirst: null,
    cpuLast: null,
  };
}

/**
 * Converts a k6 CSV timestamp to epoch milliseconds, or explains the problem. k6 writes whole
 * seconds by default, which is too coarse for cell windows: the report needs timeFormat=unix_milli
 * (unix_micro and unix_nano are accepted and scaled).
 */
export function timestampScale(first: string, path: string): number {
  if (!/^\d+(\.\d+)?$/.test(first)) {
    throw new ReportInputError(`${path}: timestamp "${first}" is not a Unix number (RFC3339?): run k6 with --out csv=fileName=samples.csv,timeFormat=unix_milli`);
  }
  const t = Number(first);
  if (t < 1e11) {
    throw new ReportInputError(`${path}: timestamps are whole seconds (k6's default), too coarse for cell windows: run k6 with --out csv=fileName=samples.csv,timeFormat=unix_milli`);
  }
  if (t >= 1e17) return 1e-6; // unix_nano
  if (t >= 1e14) return 1e-3; // unix_micro
  return 1;
}

const TREND_SET: ReadonlySet<string> = new Set<string>(TREND_KEYS);

/**
 * Reads a k6 CSV (samples.csv) as a stream. Throws ReportInputError for a file without k6's header
 * or with whole-second timestamps.
 */
export function readSamples(path: string): Promise<SamplesData> {
  const cells = new Map<string, CellAccumulator>();
  const monitor: Partial<Record<ServerMetricKey, Series>> = {};
  const tagCache = new Map<string, Record<string, string>>();
  let rows = 0;
  let skippedRows = 0;
  let malformedRows = 0;
  let header: string[] | null = null;
  let iName = 0, iTs = 1, iVal = 2, iScenario = 11, iExtra = 17, iMeta = -1;
  let scale = 0;
  let failure: Error | null = null;

  const tagsOf = (text: string): Record<string, string> => {
    let t = tagCache.get(text);
    if (t === undefined) {
      const own = detach(text);
      t = parseExtraTags(own);
      if (tagCache.size < 100_000) tagCache.set(own, t);
    }
    return t;
  };

  const handleRow = (row: string[]): void => {
    const name = row[iName];
    if (name === undefined || name === '') return;
    if (row.length !== header!.length) {
      malformedRows++;
      return;
    }
    const key = metricKeyOf(name);
    rows++;
    if (key === undefined) {
      skippedRows++;
      return;
    }
    const tsText = row[iTs] ?? '';
    if (scale === 0) scale = timestampScale(tsText, path);
    const ts = Number(tsText) * scale;
    const value = Number(row[iVal]);
    if (key in SERVER_METRICS) {
      const s = (monitor[key as ServerMetricKey] ??= { times: new FloatList(), values: new FloatList() });
      s.times.push(ts);
      s.values.push(value);
      return;
    }
    const tags = tagsOf(row[iExtra] ?? '');
    const id = tags.cell ?? row[iScenario] ?? '';
    if (id === '') return;
    let cell = cells.get(id);
    if (cell === undefined) {
      cell = newCellAccumulator(detach(id), tags);
      cells.set(cell.id, cell);
    }
    // Warm-up and transition requests stay in the samples but out of the cell's statistics.
    const phase = tags[SAMPLE_TAGS.phase];
    if (phase === 'warmup' || phase === 'transition') {
      if (key === 'requestOk') cell.excluded[phase]++;
      return;
    }
    if (TREND_SET.has(key)) {
      cell.trends[key as TrendKey].push(value);
      if (key === 'e2e') {
        const start = ts - value;
        if (start < cell.windowStartMs) cell.windowStartMs = start;
        if (ts > cell.windowEndMs) cell.windowEndMs = ts;
      }
      return;
    }
    switch (key) {
      case 'inputTokens':
        cell.inputTokens += value;
        return;
      case 'outputTokens': {
        cell.outputTokens += value;
        const src = tags[SAMPLE_TAGS.tokenSource] ?? 'unknown';
        cell.tokenSources[src] = (cell.tokenSources[src] ?? 0) + 1;
        return;
      }
      case 'readLag':
        cell.readLag.push(value);
        return;
      case 'cpuSeconds':
        if (cell.cpuFirst === null || ts < cell.cpuFirst.atMs) cell.cpuFirst = { atMs: ts, seconds: value };
        if (cell.cpuLast === null || ts >= cell.cpuLast.atMs) cell.cpuLast = { atMs: ts, seconds: value };
        return;
      case 'requestOk':
        if (value !== 0) cell.okCount++;
        else {
          cell.failCount++;
          const kind = tags[SAMPLE_TAGS.errorKind] ?? 'unknown';
          cell.failedByKind[kind] = (cell.failedByKind[kind] ?? 0) + 1;
        }
        return;
      case 'errors': {
        const kind = tags[SAMPLE_TAGS.errorKind] ?? 'unknown';
        cell.errorsByKind[kind] = (cell.errorsByKind[kind] ?? 0) + value;
        const message = iMeta < 0 ? null : parseErrorMessage(row[iMeta] ?? '');
        if (message !== null) {
          const m = (cell.errorMessages[kind] ??= new Map());
          const n = m.get(message);
          if (n !== undefined) m.set(message, n + value);
          else if (m.size < MAX_MESSAGES_PER_KIND) m.set(detach(message), value);
        }
        return;
      }
      default:
        return;
    }
  };

  let lengths: { size: number; complete: number };
  try {
    lengths = completeLength(path);
  } catch (e) {
    return Promise.reject(new ReportInputError(`cannot read ${path}: ${(e as Error).message}`));
  }
  const partialTailBytes = lengths.size - lengths.complete;
  return new Promise<SamplesData>((resolvePromise, reject) => {
    if (lengths.complete === 0) {
      reject(new ReportInputError(`${path} is empty${lengths.size > 0 ? ' (not even a whole header line)' : ''}: the k6 run wrote no samples (did it start?)`));
      return;
    }
    // `end` is inclusive: read up to the last line end, never the partial line after it.
    const stream = createReadStream(path, { encoding: 'utf8', highWaterMark: 64 * 1024, end: lengths.complete - 1 });
    stream.on('error', (e) => reject(new ReportInputError(`cannot read ${path}: ${e.message}`)));
    Papa.parse<string[]>(stream as unknown as File, {
      header: false,
      skipEmptyLines: true,
      chunk: (results, parser) => {
        if (failure) return;
        try {
          const data = results.data;
          let start = 0;
          if (header === null) {
            header = data[0] ?? [];
            const missing = REQUIRED_COLUMNS.filter((c) => !header!.includes(c));
            if (header[0] !== 'metric_name' || missing.length > 0) {
              throw new ReportInputError(`${path} has no k6 CSV header (metric_name,timestamp,metric_value,...,extra_tags): write it with k6 --out csv=fileName=samples.csv,timeFormat=unix_milli`);
            }
            iName = header.indexOf('metric_name');
            iTs = header.indexOf('timestamp');
            iVal = header.indexOf('metric_value');
            iScenario = header.indexOf('scenario');
            iExtra = header.indexOf('extra_tags');
            iMeta = header.indexOf('metadata');
            start = 1;
          }
          for (let i = start; i < data.length; i++) handleRow(data[i]!);
        } catch (e) {
          failure = e as Error;
          parser.abort();
        }
      },
      complete: () => {
        if (failure) reject(failure);
        else if (header === null) reject(new ReportInputError(`${path} is empty: the k6 run wrote no samples (did it start?)`));
        else resolvePromise({ cells, monitor, rows, skippedRows, partialTailBytes, malformedRows });
      },
      error: (e: Error) => reject(new ReportInputError(`${path}: CSV parse error: ${e.message}`)),
    });
  });
}
