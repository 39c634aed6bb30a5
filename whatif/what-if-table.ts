// The table `--predict` prints at its end: each predicted capacity, the base beside every what-if variant.
// Pure. Runs in Node.

import type { Report } from '../report/report-types';
import { renderTextTable } from './text-table';
import { ladderDisplay } from '../report/capacity-words';

export interface PredictedColumn {
  /** "base" or the variant's label ("prompt=2x"). */
  readonly label: string;
  readonly report: Report;
}

interface Row {
  readonly name: string;
  readonly text: (report: Report) => string;
}

/**
 * One row per use case (concurrent users) and burst profile (requests at once) of any column: its capacity as the
 * report writes it ("18", "more than 128"), with a fitted profile's prediction interval when there is one
 * ("18 (16-19)"); "-" where a column has no such row.
 */
export function renderWhatIfTable(columns: readonly PredictedColumn[]): string {
  const reports = columns.map((c) => c.report);
  const useCases = [...new Set(reports.flatMap((r) => r.useCases.map((u) => u.useCase.id)))];
  const bursts = [...new Set(reports.flatMap((r) => r.bursts.map((b) => b.profile)))];
  const rows: Row[] = [
    ...useCases.map((id) => ({ name: `${id} (users)`, text: (r: Report) => useCaseText(r, id) })),
    ...bursts.map((id) => ({
      name: `burst ${id} (requests)`,
      text: (r: Report) => {
        const burst = r.bursts.find((b) => b.profile === id);
        return burst ? ladderDisplay(burst.result) : '-';
      },
    })),
  ];
  if (rows.length === 0) return 'no capacity in these parts: the reports hold the predicted cells';
  const head = ['predicted capacity', ...columns.map((c) => c.label)];
  return renderTextTable(head, rows.map((row) => [row.name, ...reports.map(row.text)]));
}

function useCaseText(report: Report, useCase: string): string {
  const u = report.useCases.find((x) => x.useCase.id === useCase);
  if (!u) return '-';
  const interval = report.predicted?.intervals?.find((i) => i.useCase === useCase);
  const fmt = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(1));
  const display = ladderDisplay(u.result);
  const text = interval ? `${display} (${fmt(interval.low)}-${fmt(interval.high)})` : display;
  const reach = report.predicted?.reach?.find((r) => r.useCase === useCase);
  // A figure beyond the fit run (x), or one resting on cells the fit missed (!), says so in the table itself.
  const marks = `${reach?.range === 'extrapolated' ? ' x' : ''}${reach?.fitCheck ? ' !' : ''}`;
  return text + marks;
}

/** The notes under the printed table: what the marks x and ! stand for, use case by use case (the base's). */
export function renderReachNotes(report: Report): string {
  const lines = (report.predicted?.reach ?? []).flatMap((r) => [
    ...(r.range === 'extrapolated' ? [`x ${r.useCase}: extrapolated: ${r.beyond.join('; ')}`] : []),
    ...(r.fitCheck ? [`! ${r.useCase}: ${r.fitCheck}`] : []),
  ]);
  return lines.join('\n');
}
