// Text of a trace check: the load's findings and the stats as a small table. Runs in k6 and Node (pure; returns
// strings).

import type { Selection, SelectOptions } from './select';
import type { LengthStats, TraceStats } from './stats';
import { describeRowIssue, type TraceLoad } from './types';

/** What was loaded and what was wrong with it, one finding a line. */
export function renderLoadFindings(load: TraceLoad, formatGiven: boolean): string[] {
  const how = formatGiven ? 'given with --format' : 'detected';
  const lines = [`format: ${load.format} (${how}), ${load.rows.length} valid rows`];
  if (load.badRows.length > 0) {
    const total = load.badRows.reduce((n, i) => n + i.count, 0);
    lines.push(`bad rows: ${total}, skipped`);
    for (const issue of load.badRows) lines.push(`  ${describeRowIssue(issue)}`);
  }
  for (const issue of load.skippedRows) lines.push(`skipped as the format says: ${describeRowIssue(issue)}`);
  if (load.outOfOrderRows > 0)
    lines.push(`not sorted: ${load.outOfOrderRows} rows were earlier than the row above them; sorted by time`);
  if (load.rowsBy !== null)
    lines.push(`rows by ${load.rowsBy.field}: ${load.rowsBy.counts.map((c) => `${c.value} ${c.rows}`).join(', ')}`);
  return lines;
}

/** One line saying what the selection kept and dropped. */
export function renderSelection(options: SelectOptions, selection: Selection): string {
  const parts = [
    `start ${options.startSeconds ?? 0} s`,
    options.durationSeconds === undefined ? 'to the end' : `for ${options.durationSeconds} s`,
    `speed ${options.speed ?? 1}x`,
  ];
  if (options.maxRequests !== undefined) parts.push(`at most ${options.maxRequests} requests`);
  const outcome = [`${selection.inWindow} rows in the window`];
  if (selection.droppedTurns > 0) outcome.push(`${selection.droppedTurns} turns dropped (their first turn is outside)`);
  if (selection.cappedRows > 0) outcome.push(`${selection.cappedRows} over the cap`);
  return `selection (${parts.join(', ')}): ${outcome.join(', ')}, ${selection.rows.length} selected`;
}

/** The stats as an aligned table, one column per stats object (the trace, then a selection). */
export function renderStatsTable(columns: readonly { title: string; stats: TraceStats }[]): string {
  const rows: [string, (s: TraceStats) => string | null][] = [
    ['rows', (s) => String(s.rows)],
    ['duration (s)', (s) => (s.durationMs / 1000).toFixed(1)],
    ['mean rate (req/s)', (s) => (s.meanRatePerSecond === null ? null : s.meanRatePerSecond.toPrecision(3))],
    ['gap CV (0 even, 1 Poisson)', (s) => (s.gapCv === null ? null : s.gapCv.toFixed(2))],
    ['input tokens p50/p90/p99/max', (s) => lengths(s.inputTokens)],
    ['output tokens p50/p90/p99/max', (s) => lengths(s.outputTokens)],
    ['prompt tokens in shared blocks', (s) => (s.prefix === null ? null : `${(s.prefix.share * 100).toFixed(1)}%`)],
    ['conversations (turns mean/max)', (s) =>
      s.conversations === null ? null
        : `${s.conversations.count} (${s.conversations.meanTurns.toFixed(1)}/${s.conversations.maxTurns})`],
  ];
  const table = [['', ...columns.map((c) => c.title)]];
  for (const [label, value] of rows) {
    const cells = columns.map((c) => value(c.stats));
    // A figure the format cannot give (prefix reuse without hash_ids) is left out rather than shown as "-".
    if (cells.every((c) => c === null)) continue;
    table.push([label, ...cells.map((c) => c ?? '-')]);
  }
  const widths = table[0]!.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
  const line = (r: string[]): string =>
    r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ').trimEnd();
  return table.map(line).join('\n');
}

function lengths(s: LengthStats | null): string | null {
  return s === null ? null : [s.p50, s.p90, s.p99, s.max].map((v) => String(Math.round(v))).join(' / ');
}
