// The "Trace Replay" section: the trace as recorded beside what each speed sent, and the fastest speed the trace held
// within its use case's limits. Runs in Node.

import type { CellStats } from '../../analysis/cells';
import { DocBuilder, type Block } from '../document';
import { fmtInt, fmtPct, fmtRate, fmtSec, plural } from '../format';
import type { Report } from '../report-types';
import type { Distribution } from '../../analysis/stats';
import type { TraceReplayReport } from '../../analysis/trace-replay';
import { cellRow } from './open-loop';
import { sentences, statName } from '../phrases';
import { formatInterval } from '../capacity-words';

type LengthStats = NonNullable<TraceReplayReport['trace']['summary']['stats']['inputTokens']>;

/** The replay's capacity, the trace beside what was sent, then each speed's cell; nothing without a trace part. */
export function traceSection(report: Report, charts: ReadonlySet<string>): Block[] {
  const t = report.trace;
  if (t === null) return [];
  const s = t.trace.summary;
  const cells = t.cells.map((f) => report.cells.find((c) => c.id === f.cellId)!);
  const doc = new DocBuilder();
  doc.h(2, 'Trace Replay');
  doc.p(sentences(
    `The ${s.format} trace \`${baseName(t.trace.file)}\` replayed at ` +
      `${plural(t.cells.length, 'speed')} (${t.cells.map((c) => `${c.speed}x`).join(', ')}): each of its ` +
      `${fmtInt(s.stats.rows)} rows sent at its recorded time divided by the speed, with its exact prompt and output ` +
      "lengths, its prompt blocks shared wherever the trace's hash ids are, so a prefix cache meets the reuse " +
      'production had.',
    `Each speed is judged by the ${t.useCase.title} limits (${t.useCase.limits.map((l) => l.label).join(', ')}; ` +
      `the ${statName(report.limitStat)} of a cell where a limit names no statistic).`,
  ));
  if (t.capacity) doc.p(capacitySentence(t));
  doc.h(3, 'The trace beside what was sent');
  doc.p(sentences(
    `Window: from ${fmtSec(t.trace.startSeconds * 1000)} of the trace` +
      `${t.trace.durationSeconds !== null ? ` for ${fmtSec(t.trace.durationSeconds * 1000)}` : ' to its end'}` +
      `${t.trace.maxRequests !== null ? `, at most ${fmtInt(t.trace.maxRequests)} rows` : ''}: ${fmtInt(s.inWindow)} ` +
      `rows in the window, ${fmtInt(s.stats.rows)} replayed (${skipped(s)}).`,
  ));
  const head = [
    '', 'ROWS', 'RATE', 'GAP CV', 'INPUT P50 / P90 / P99 / MAX', 'OUTPUT P50 / P90 / P99 / MAX', 'PREFIX-CACHED',
  ];
  doc.table(head, [
    [
      'trace (speed 1)', fmtInt(s.stats.rows), fmtRate(s.stats.meanRatePerSecond), fmtCv(s.stats.gapCv),
      lengths(s.stats.inputTokens), lengths(s.stats.outputTokens),
      s.stats.prefix ? `${fmtPct(s.stats.prefix.share)} (shared blocks)` : 'n/a (no hash ids)',
    ],
    ...t.cells.map((f, i) => sentRow(f, cells[i]!)),
  ]);
  doc.p(sentences(
    "The trace's prefix share is what a perfect cache could serve: the leading blocks of each row that an earlier " +
      "row had. A cell's is what the server reported in cached_tokens, over the prompt tokens it counted; a server " +
      'without a prefix cache, or one that evicted blocks, serves less.',
    s.stats.conversations
      ? `Conversations: ${fmtInt(s.stats.conversations.count)}, ${s.stats.conversations.meanTurns.toFixed(1)} turns ` +
        'each on average; a turn whose earlier turn had not ended at its time was sent when it ended.'
      : '',
  ));
  for (const id of ['trace_input_lengths', 'trace_output_lengths', 'trace_arrivals']) doc.chart(id, charts);
  doc.h(3, 'Each speed');
  doc.table(
    [
      'CELL', 'OFFERED', 'ACHIEVED', 'ENDED / SCHEDULED', 'LAG P50 / P99 / MAX', 'TTFT P50 / P99 (SENT)',
      'TTFT P50 / P99 (INTENDED)', 'E2E P50 / P99 (INTENDED)', 'TPOT P50 / P99', 'GOODPUT', 'LOAD AS PLANNED',
    ],
    cells.filter((c) => c.requests > 0).map(cellRow),
  );
  return doc.blocks;
}

function capacitySentence(t: TraceReplayReport): string {
  const c = t.capacity!;
  const r = c.result;
  const interval = c.interval ? ` (95% interval ${formatInterval(c.interval)})` : '';
  const left = c.excluded.length > 0
    ? ` ${plural(c.excluded.length, 'cell')} left out: the sender missed the schedule.`
    : '';
  const broke = r.brokenBy ? `; the first limit to break was ${r.brokenBy.label}` : '';
  switch (r.kind) {
    case 'untested':
      return `No speed was measured as planned.${left}`;
    case 'below':
      return `The trace did not hold even at ${r.steps[0]!.concurrency}x its recorded speed${broke}.${left}`;
    case 'beyond':
      return `This trace held at every speed measured, up to **${r.lastPass}x its recorded speed**: faster speeds ` +
        `were not measured.${left}`;
    default:
      return `This trace holds up to **${r.lastPass}x its recorded speed**${interval}${broke} ` +
        `at ${r.firstFail}x.${left}`;
  }
}

function sentRow(f: TraceReplayReport['cells'][number], c: CellStats): string[] {
  const sentShare = f.inputTokensSentShare === null ? '' : ` (${fmtPct(f.inputTokensSentShare)} of the trace's tokens)`;
  return [
    `sent at ${f.speed}x (${c.id})`, fmtInt(c.requests), fmtRate(c.openLoop?.achievedRate ?? null), '',
    `${distLengths(c.lengths.input)}${sentShare}`, distLengths(c.lengths.output),
    f.cachedShare === null ? 'not reported' : fmtPct(f.cachedShare),
  ];
}

function lengths(l: LengthStats | null): string {
  return l ? `${fmtInt(l.p50)} / ${fmtInt(l.p90)} / ${fmtInt(l.p99)} / ${fmtInt(l.max)}` : 'n/a';
}

function distLengths(d: Distribution | null): string {
  return d ? lengths({ p50: d.p50, p90: d.p90, p99: d.p99, max: d.max }) : 'n/a';
}

function fmtCv(cv: number | null): string {
  return cv === null ? 'n/a' : cv.toFixed(2);
}

function skipped(s: TraceReplayReport['trace']['summary']): string {
  const parts = [
    s.badRows > 0 ? `${fmtInt(s.badRows)} bad rows skipped` : '',
    s.skippedRows > 0 ? `${fmtInt(s.skippedRows)} rows the format leaves out` : '',
    s.droppedTurns > 0 ? `${fmtInt(s.droppedTurns)} turns whose first turn fell outside the window` : '',
    s.cappedRows > 0 ? `${fmtInt(s.cappedRows)} past the request cap` : '',
  ].filter((p) => p !== '');
  return parts.length > 0 ? parts.join(', ') : 'none left out';
}

function baseName(file: string): string {
  return file.split(/[\\/]/).pop() ?? file;
}
