// Line parsers of the CSV traces: Azure LLM inference (2023, 2024, and 2025's extra NumImages) and BurstGPT.
// Runs in k6 and Node (pure).
//
// Columns are found by name in the header (case and surrounding spaces ignored), so column order and extra columns
// (BurstGPT's newer Session ID and Elapsed time, Azure 2025's NumImages) do not matter.

import { splitCsvLine } from './csv';
import { parseAzureTimestamp } from './azure-time';
import { bad, csvNumber, csvWhole, newRow, type FormatParser, type LineOutcome } from './row';
import { TraceError } from './types';

/** Where a header put the columns a format needs. */
interface Columns<K extends string> {
  /** Fields in the header: every data line must have as many. */
  readonly count: number;
  readonly at: Record<K, number>;
}

/** Finds each named column in a header line; throws TraceError naming the first missing one. */
function columnsOf<K extends string>(line: string, names: readonly K[], format: string): Columns<K> {
  const fields = splitCsvLine(line.replace(/^\uFEFF/, ''));
  if (fields === null) throw new TraceError(`the ${format} header line is not valid CSV`);
  const lower = fields.map((f) => f.trim().toLowerCase());
  const at = {} as Record<K, number>;
  for (const name of names) {
    const i = lower.indexOf(name.toLowerCase());
    if (i < 0) throw new TraceError(`the ${format} header has no "${name}" column (it has: ${shown(fields)})`);
    at[name] = i;
  }
  return { count: fields.length, at };
}

/** A header's fields for a message: a JSON line given as CSV must not fill the screen. */
function shown(fields: readonly string[]): string {
  const list = fields.slice(0, 8).map((f) => (f.length > 30 ? `${f.slice(0, 30)}...` : f)).join(', ');
  return fields.length > 8 ? `${list}, ...` : list;
}

/** Splits a data line, checking it against the header's column count; a string is the bad-row message. */
function fieldsOf(line: string, columns: number): string[] | string {
  const fields = splitCsvLine(line);
  if (fields === null) return 'is not valid CSV (a quote is not closed, or text follows a closing quote)';
  if (fields.length !== columns) return 'does not have as many columns as the header';
  return fields;
}

const AZURE = ['TIMESTAMP', 'ContextTokens', 'GeneratedTokens'] as const;

export function azureParser(): FormatParser {
  let cols: Columns<(typeof AZURE)[number]> | null = null;
  let firstSecondMs: number | null = null;
  return {
    categoryField: null,
    hasHeader: true,
    header(line) {
      cols = columnsOf(line, AZURE, 'Azure');
    },
    line(line): LineOutcome {
      const f = fieldsOf(line, cols!.count);
      if (typeof f === 'string') return bad(f);
      const time = parseAzureTimestamp(f[cols!.at.TIMESTAMP]!);
      if (time === null) return bad('TIMESTAMP is not a date-time like 2023-11-16 18:15:46.6805900');
      const input = csvWhole(f[cols!.at.ContextTokens]!);
      if (input === null || input < 1) return bad('ContextTokens is not a whole number >= 1');
      const output = csvWhole(f[cols!.at.GeneratedTokens]!);
      if (output === null || output < 1) return bad('GeneratedTokens is not a whole number >= 1');
      // Times from the first row's second keep their 100 ns digits (see parseAzureTimestamp); the loader re-bases.
      if (firstSecondMs === null) firstSecondMs = time.secondMs;
      const timeMs = time.secondMs - firstSecondMs + time.fractionMs;
      return { kind: 'row', row: newRow(timeMs, input, output, null, null), category: null };
    },
  };
}

const BURSTGPT = ['Timestamp', 'Model', 'Request tokens', 'Response tokens'] as const;

export function burstGptParser(): FormatParser {
  let cols: Columns<(typeof BURSTGPT)[number]> | null = null;
  return {
    categoryField: 'Model',
    hasHeader: true,
    header(line) {
      cols = columnsOf(line, BURSTGPT, 'BurstGPT');
    },
    line(line): LineOutcome {
      const f = fieldsOf(line, cols!.count);
      if (typeof f === 'string') return bad(f);
      const seconds = csvNumber(f[cols!.at.Timestamp]!);
      if (seconds === null) return bad('Timestamp is not a number');
      const input = csvWhole(f[cols!.at['Request tokens']]!);
      const output = csvWhole(f[cols!.at['Response tokens']]!);
      if (output === null) return bad('Response tokens is not a whole number');
      // BurstGPT logs failed requests with 0 response tokens; vLLM's loader leaves them out, and so do we.
      if (output === 0) return { kind: 'skipped', message: 'Response tokens is 0 (a failed request)' };
      if (input === null || input < 1) return bad('Request tokens is not a whole number >= 1');
      const model = f[cols!.at.Model]!.trim();
      return {
        kind: 'row',
        row: newRow(seconds * 1000, input, output, null, null),
        category: model || null,
      };
    },
  };
}
