// The table `--predict` prints at its end: each use case's predicted capacity, the base beside every what-if variant.
// Pure. Runs in Node.

import type { Report } from '../report/report-types';

export interface PredictedColumn {
  /** "base" or the variant's label ("prompt=2x"). */
  readonly label: string;
  readonly report: Report;
}

/**
 * One row per use case of any column: its capacity as each report writes it ("18", "more than 128"), with the
 * fitted profile's prediction interval when there is one ("18 (16-19)"); "-" where a column has no such use case.
 */
export function renderWhatIfTable(columns: readonly PredictedColumn[]): string {
  const ids = [...new Set(columns.flatMap((c) => c.report.useCases.map((u) => u.useCase.id)))];
  const head = ['use case (predicted users)', ...columns.map((c) => c.label)];
  const rows = ids.map((id) => [id, ...columns.map((c) => capacityText(c.report, id))]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: readonly string[]) => cells.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}

function capacityText(report: Report, useCase: string): string {
  const u = report.useCases.find((x) => x.useCase.id === useCase);
  if (!u) return '-';
  const interval = report.predicted?.intervals?.find((i) => i.useCase === useCase);
  const fmt = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(1));
  return interval ? `${u.result.display} (${fmt(interval.low)}-${fmt(interval.high)})` : u.result.display;
}
