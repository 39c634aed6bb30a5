// Streams k6's CSV output (papaparse) into the report's samples interface (report/samples-collector.ts: per-cell
// accumulators and monitor time series), keeping memory bounded. k6's CSV is the samples format of measured runs;
// a predicted run's is its own (report/predicted-samples.ts). Runs in Node.
//
// Only the suite's own metrics (lib/metrics.ts) are kept; k6 built-ins (http_req_*, sse_event, data_*,
// vus, iterations, ...) are skipped after one map lookup. Values are stored in float64 arrays, so a
// 5-million-row file costs tens of megabytes, not gigabytes. The CSV's format: report/k6-csv.ts.

import { createReadStream } from 'node:fs';
import Papa from 'papaparse';
import { metricKeyOf } from '../lib/metrics';
import { ReportInputError } from './inputs';
import { columnsOf, completeLength, detach, parseExtraTags, timestampScale, type Columns } from './k6-csv';
import { SamplesCollector, type SamplesData } from './samples-collector';

// The samples interface lives in report/samples-collector.ts; its types are named here too, where the report's
// builders have always imported them from.
export type { SamplesData, Series } from './samples-collector';

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

/** The reading state of one CSV: its header, the collector its samples go to, and the row counts. */
class SamplesReader {
  private readonly samples = new SamplesCollector();
  private readonly tagCache = new Map<string, Record<string, string>>();
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
    const { rows, skippedRows, malformedRows } = this;
    return this.samples.finish({ rows, skippedRows, partialTailBytes, malformedRows });
  }

  /** One sample: a suite metric goes to the collector; k6 built-ins are counted and skipped. */
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
    if (this.samples.addRunSample(key, timestampMs, value)) return;
    // Tags are parsed only for a request's sample: the monitor's rows need none.
    const tags = this.tagsOf(row[columns.extraTags] ?? '');
    const cellId = tags.cell ?? row[columns.scenario] ?? '';
    this.samples.addCellSample(key, cellId, tags, timestampMs, value, row[columns.metadata] ?? '');
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
