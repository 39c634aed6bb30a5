// --out csv: k6's CSV columns (metric_name, timestamp, metric_value, system tags, extra_tags, metadata). Runs in Node.
import type { Sample, SampleOutput, Tags } from '../metrics-engine';
import { BufferedFile } from './buffered-file';
import { formatTime, TIME_FORMATS, type TimeFormat } from './time-format';

/** k6's default system tags that are indexable, alphabetically: the CSV's tag columns. */
export const CSV_TAG_COLUMNS = ['check', 'error', 'error_code', 'expected_response', 'group', 'method', 'name', 'proto', 'scenario', 'service', 'status', 'subproto', 'tls_version', 'url'] as const;
export const CSV_HEADER = ['metric_name', 'timestamp', 'metric_value', ...CSV_TAG_COLUMNS, 'extra_tags', 'metadata'].join(',');
const COLUMN_SET = new Set<string>(CSV_TAG_COLUMNS);

export interface CsvConfig {
  fileName: string;
  timeFormat: TimeFormat;
}

/** Parses the argument after "csv=": a file name, or fileName=...,timeFormat=...,saveInterval=... (file= is rejected, as by k6). */
export function parseCsvArg(arg: string, env: Readonly<Record<string, string | undefined>>): CsvConfig {
  let fileName = env.K6_CSV_FILENAME ?? 'file.csv';
  let timeFormat = (env.K6_CSV_TIME_FORMAT ?? 'unix') as TimeFormat;
  if (arg !== '') {
    if (!arg.includes('=')) fileName = arg;
    else {
      for (const part of arg.split(',')) {
        const eq = part.indexOf('=');
        const key = eq < 0 ? part : part.slice(0, eq);
        const value = eq < 0 ? '' : part.slice(eq + 1);
        if (key === 'fileName') fileName = value;
        else if (key === 'timeFormat') timeFormat = value as TimeFormat;
        else if (key === 'saveInterval') continue;
        else throw new Error(`couldn't parse the CSV output argument "${arg}": unknown key "${key}" (use fileName=, timeFormat=, saveInterval=)`);
      }
    }
  }
  if (!TIME_FORMATS.includes(timeFormat)) throw new Error(`unknown CSV timeFormat "${timeFormat}" (use one of ${TIME_FORMATS.join(', ')})`);
  return { fileName, timeFormat };
}

/** Go's encoding/csv quoting: fields with a comma, quote, CR/LF or a leading space are quoted. */
function field(s: string): string {
  if (s === '') return s;
  if (/[",\r\n]/.test(s) || s.charCodeAt(0) === 0x20) return `"${s.replace(/"/g, '""')}"`;
  return s;
}

export class CsvOutput implements SampleOutput {
  private readonly file: BufferedFile;
  /** Tag columns rendered once per tags object: a stream's samples all share one. */
  private readonly cache = new WeakMap<Tags, string>();

  constructor(private readonly config: CsvConfig) {
    this.file = new BufferedFile(config.fileName);
    this.file.write(CSV_HEADER + '\n');
  }

  private tagColumns(tags: Tags): string {
    let s = this.cache.get(tags);
    if (s !== undefined) return s;
    const cols: string[] = [];
    for (const c of CSV_TAG_COLUMNS) cols.push(field(tags[c] ?? ''));
    const extra: string[] = [];
    for (const k of Object.keys(tags)) if (!COLUMN_SET.has(k)) extra.push(`${k}=${tags[k]}`);
    cols.push(field(extra.join('&')));
    s = cols.join(',');
    this.cache.set(tags, s);
    return s;
  }

  write(sample: Sample): void {
    // metadata as k6 writes it: k=v&k=v, values unescaped (so a value with "&" is ambiguous unless it is the only key).
    let metadata = '';
    if (sample.metadata !== undefined) metadata = field(Object.entries(sample.metadata).map(([k, v]) => `${k}=${v}`).join('&'));
    this.file.write(`${sample.metric.name},${formatTime(sample.time, this.config.timeFormat)},${sample.value.toFixed(6)},${this.tagColumns(sample.tags)},${metadata}\n`);
  }

  async close(): Promise<void> {
    this.file.close();
  }
}
