// k6's CSV output format: where a file's whole lines end, its header, timestamps, tag and metadata columns.
// Runs in Node.
//
// Column layout and timestamp format: test/fixtures/k6-golden (header
// metric_name,timestamp,metric_value,...,scenario,...,extra_tags,metadata).

import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { ReportInputError } from './inputs';

export { detach, parseErrorMessage } from '../analysis/sample-text';

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

/** Parses k6's extra_tags column ("k=v&k=v", in no stable order). Values are URL-decoded only when they contain "%". */
export function parseExtraTags(text: string): Record<string, string> {
  const tags: Record<string, string> = {};
  if (text === '') return tags;
  for (const part of text.split('&')) {
    const eq = part.indexOf('=');
    if (eq <= 0) continue;
    const key = part.slice(0, eq);
    const value = part.slice(eq + 1);
    tags[key] = value.includes('%') ? safeDecode(value) : value;
  }
  return tags;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * Converts a k6 CSV timestamp to epoch milliseconds, or explains the problem. k6 writes whole
 * seconds by default, which is too coarse for cell windows: the report needs timeFormat=unix_milli
 * (unix_micro and unix_nano are accepted and scaled).
 */
export function timestampScale(first: string, path: string): number {
  if (!/^\d+(\.\d+)?$/.test(first)) {
    throw new ReportInputError(
      `${path}: timestamp "${first}" is not a Unix number (RFC3339?): ` +
        'run k6 with --out csv=fileName=samples.csv,timeFormat=unix_milli',
    );
  }
  const t = Number(first);
  if (t < 1e11) {
    throw new ReportInputError(
      `${path}: timestamps are whole seconds (k6's default), too coarse for cell windows: run k6 with --out ` +
      `csv=fileName=samples.csv,timeFormat=unix_milli`,
    );
  }
  if (t >= 1e17) return 1e-6; // unix_nano
  if (t >= 1e14) return 1e-3; // unix_micro
  return 1;
}

const REQUIRED_COLUMNS = ['metric_name', 'timestamp', 'metric_value', 'scenario', 'extra_tags'] as const;

/** Where each column the report reads sits in the CSV, from its header. */
export interface Columns {
  readonly name: number;
  readonly timestamp: number;
  readonly value: number;
  readonly scenario: number;
  readonly extraTags: number;
  /** -1 when the CSV has no metadata column (k6 before it wrote one). */
  readonly metadata: number;
}

/** The columns of k6's CSV header, or an error saying how to write the CSV the report reads. */
export function columnsOf(header: readonly string[], path: string): Columns {
  const missing = REQUIRED_COLUMNS.filter((column) => !header.includes(column));
  if (header[0] !== 'metric_name' || missing.length > 0) {
    throw new ReportInputError(
      `${path} has no k6 CSV header (metric_name,timestamp,metric_value,...,extra_tags): ` +
        'write it with k6 --out csv=fileName=samples.csv,timeFormat=unix_milli',
    );
  }
  return {
    name: header.indexOf('metric_name'),
    timestamp: header.indexOf('timestamp'),
    value: header.indexOf('metric_value'),
    scenario: header.indexOf('scenario'),
    extraTags: header.indexOf('extra_tags'),
    metadata: header.indexOf('metadata'),
  };
}
