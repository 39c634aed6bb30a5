// Loads a trace's text into rows: one parser per format, then time order, re-basing and Bailian's parent links.
// Runs in k6 and Node (pure: it is given the text, or the lines one by one).

import { detectTraceFormat } from './detect';
import { azureParser, burstGptParser } from './formats-csv';
import { bailianParser, mooncakeParser } from './formats-jsonl';
import { IssueTally } from './issue-tally';
import { otelParser } from './formats-otel';
import type { FormatParser, LineOutcome, ParsedRow } from './row';
import { TraceError, describeRowIssue, type RowsBy, type TraceFormat, type TraceLoad } from './types';

const PARSERS: Readonly<Record<TraceFormat, () => FormatParser>> = {
  mooncake: mooncakeParser, azure: azureParser, burstgpt: burstGptParser, bailian: bailianParser, otel: otelParser,
};

function isList(outcome: LineOutcome | readonly LineOutcome[]): outcome is readonly LineOutcome[] {
  return Array.isArray(outcome);
}

/** Takes a file line by line (for files too big to hold as one string), then gives the same result as loadTrace. */
export interface TraceLoader {
  /** The next line of the file, without its line break ("\r" too). Throws TraceError on a bad header. */
  push(line: string): void;
  /** Throws TraceError when the trace has no usable row. */
  finish(): TraceLoad;
}

export function createTraceLoader(format: TraceFormat): TraceLoader {
  const parser = PARSERS[format]();
  const badRows = new IssueTally();
  const skippedRows = new IssueTally();
  const parsed: ParsedRow[] = [];
  const categories: (string | null)[] = [];
  const lineOf: number[] = [];
  let lineNo = 0;
  let blank = true;
  let headerSeen = !parser.hasHeader;
  let outOfOrderRows = 0;
  return {
    push(raw) {
      lineNo++;
      let line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
      if (lineNo === 1) line = line.replace(/^\uFEFF/, ''); // a byte-order mark is not part of the first row
      if (line.trim() === '') return; // a blank line is not a row (files end with one)
      blank = false;
      if (!headerSeen) {
        parser.header(line);
        headerSeen = true;
        return;
      }
      const outcome = parser.line(line);
      for (const out of isList(outcome) ? outcome : [outcome]) {
        if (out.kind === 'bad') badRows.add(out.message, lineNo);
        else if (out.kind === 'skipped') skippedRows.add(out.message, lineNo);
        else {
          const last = parsed[parsed.length - 1];
          if (last !== undefined && out.row.timestampMs < last.timestampMs) outOfOrderRows++;
          parsed.push(out.row);
          lineOf.push(lineNo);
          if (parser.categoryField !== null) categories.push(out.category);
        }
      }
    },
    finish() {
      if (blank) throw new TraceError('the trace is empty');
      // Sorted and without parent links (the common case): the rows as they came, no index arrays.
      const kept = outOfOrderRows === 0 && format !== 'bailian' ? null : keptOrder(parsed, lineOf, format, badRows);
      const rows = kept === null ? parsed : kept.map((i) => parsed[i]!);
      const issues = badRows.list();
      if (rows.length === 0) {
        const why = issues[0] ?? skippedRows.list()[0];
        const detail = why ? `: ${describeRowIssue(why)}` : ' (it has a header only)';
        throw new TraceError(`no row of the ${format} trace is usable${detail}`);
      }
      rebase(rows);
      const field = parser.categoryField;
      return {
        format,
        rows,
        badRows: issues,
        skippedRows: skippedRows.list(),
        outOfOrderRows,
        rowsBy: field === null ? null : countBy(field, kept === null ? categories : kept.map((i) => categories[i]!)),
      };
    },
  };
}

/** Loads a whole trace file's text; the format is detected from its first line unless given. */
export function loadTrace(text: string, options: { format?: TraceFormat } = {}): TraceLoad {
  const loader = createTraceLoader(options.format ?? detectTraceFormat(text));
  // Walk the text rather than split it: a split would hold a second copy of a large file as an array of lines.
  let start = 0;
  while (start < text.length) {
    const nl = text.indexOf('\n', start);
    const end = nl < 0 ? text.length : nl;
    loader.push(text.slice(start, end));
    start = end + 1;
  }
  return loader.finish();
}

/** Positions of the rows to keep, in time order (equal times keep file order); Bailian's broken links dropped. */
function keptOrder(
  rows: readonly ParsedRow[], lineOf: readonly number[], format: TraceFormat, bad: IssueTally,
): number[] {
  const order = rows.map((_, i) => i);
  order.sort((a, b) => rows[a]!.timestampMs - rows[b]!.timestampMs || a - b); // stable by hand
  return format === 'bailian' ? keepLinkedTurns(order, rows, lineOf, bad) : order;
}

/**
 * Bailian rows in time order whose parent_chat_id names a chat already kept, and whose chat_id is new. A turn whose
 * parent is missing (absent, later, or itself dropped) is a bad row, so a replay never sends a follow-up whose first
 * turn it never sent.
 */
function keepLinkedTurns(
  order: readonly number[], rows: readonly ParsedRow[], lineOf: readonly number[], bad: IssueTally,
): number[] {
  const seen = new Set<string>();
  const kept: number[] = [];
  for (const i of order) {
    const row = rows[i]!;
    if (seen.has(row.chatId!)) bad.add("chat_id repeats an earlier row's", lineOf[i]!);
    else if (row.parentChatId !== null && !seen.has(row.parentChatId))
      bad.add('parent_chat_id names no earlier chat', lineOf[i]!);
    else {
      seen.add(row.chatId!);
      kept.push(i);
    }
  }
  return kept;
}

/**
 * Sets each row's index (its position) and re-bases its time to the earliest row, rounded to the µs (float noise
 * from unit conversion, not information).
 */
function rebase(rows: ParsedRow[]): void {
  const t0 = rows[0]!.timestampMs;
  rows.forEach((r, index) => {
    r.index = index;
    r.timestampMs = Math.round((r.timestampMs - t0) * 1000) / 1000;
  });
}

function countBy(field: string, values: readonly (string | null)[]): RowsBy {
  const counts = new Map<string, number>();
  for (const v of values) {
    const key = v ?? '(none)';
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const list = [...counts].map(([value, n]) => ({ value, rows: n }))
    .sort((a, b) => b.rows - a.rows || (a.value < b.value ? -1 : 1));
  return { field, counts: list };
}
