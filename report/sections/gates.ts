// The verdicts a pipeline reads: the deploy gate, k6's own thresholds, the comparison with a baseline. Runs in Node.

import { DocBuilder, type Block } from '../document';
import { plural } from '../format';
import { capacityChangeVerdict, checkVerdict, comparisonVerdict, deltaVerdict, gateVerdict } from '../judgement';
import type { Comparison, Report } from '../report-types';
import { fmtMetric, sentences } from '../phrases';

/** Each gate cell against its use case's limits. */
export function deployGateSection(report: Report): Block[] {
  if (report.gates.length === 0) return [];
  const doc = new DocBuilder();
  doc.h(2, 'Deploy Gate');
  for (const gate of report.gates) {
    const load = plural(gate.concurrency, 'concurrent request');
    if (!gate.measured) {
      doc.p(`Gate ${gate.cellId} (${gate.title}, ${load}) produced no samples: the gate was not measured.`);
      continue;
    }
    doc.p(`**${gateVerdict(gate.ok)}**: ${gate.title} at ${load} (cell ${gate.cellId}).`);
    const rows = gate.checks.map((check) => [
      check.label,
      check.expression,
      fmtMetric(check.metric, check.actual),
      checkVerdict(check.ok),
    ]);
    doc.table(['LIMIT', 'EXPRESSION', 'MEASURED', 'VERDICT'], rows);
  }
  return doc.blocks;
}

/** How many of each part's k6 thresholds passed, and which failed. */
export function k6ThresholdsSection(report: Report): Block[] {
  const parts = report.parts.filter((part) => part.thresholds.length > 0);
  if (parts.length === 0) return [];
  const doc = new DocBuilder();
  doc.h(2, 'k6 Thresholds');
  for (const part of parts) {
    const failed = part.thresholds.filter((threshold) => !threshold.ok);
    const failedList = failed.map((threshold) => `${threshold.metric} ${threshold.expression}`).join(', ');
    const which = failed.length > 0 ? `; failed: ${failedList}` : '';
    const passed = `${part.thresholds.length - failed.length} of ${part.thresholds.length} thresholds passed`;
    doc.p(`${part.name}: ${passed}${which}.`);
  }
  return doc.blocks;
}

/** The baseline comparison: what is gated, regressions, capacities side by side, the cell metrics that moved. */
export function comparisonSection(report: Report): Block[] {
  const comparison = report.comparison;
  if (!comparison) return [];
  const doc = new DocBuilder();
  doc.h(2, 'Comparison with Baseline');
  const tolerance = `${(comparison.tolerance * 100).toFixed(0)}%`;
  doc.p(sentences(
    `Baseline: ${comparison.baselineRunId ?? comparison.baselineDir}.`,
    `Tolerance: ${tolerance} relative change in the bad direction.`,
    'Gated: capacities, max safe queue depths, success rates and the use-case limit metrics of the capacity steps.',
    'A change counts only beyond the tolerance and beyond the noise of the measurement: ' +
      "capacities in brackets are 95% intervals, and a fall inside both intervals' overlap is noise; " +
      'a mean moves by noise within 1.96 standard errors of the difference.',
  ));
  doc.p(comparisonVerdict(comparison));
  doc.list(comparison.regressions);
  const withInterval = (value: string, interval: string | null): string =>
    (interval ? `${value} (${interval})` : value);
  const capacityRows = comparison.capacities.map((capacity) => [
    capacity.title,
    withInterval(capacity.baseline, capacity.baselineInterval),
    withInterval(capacity.current, capacity.currentInterval),
    capacity.change === null ? 'n/a' : fmtChange(capacity.change),
    capacityChangeVerdict(capacity.regression, capacity.withinNoise),
  ]);
  doc.table(['USE CASE / BURST', 'BASELINE', 'CURRENT', 'CHANGE', 'VERDICT'], capacityRows);
  return [...doc.blocks, ...movedCellMetrics(comparison, tolerance)];
}

/** The cell metrics that moved beyond the tolerance, and the cells only one side has. */
function movedCellMetrics(comparison: Comparison, tolerance: string): Block[] {
  const doc = new DocBuilder();
  const moved = comparison.cells.flatMap((cell) =>
    cell.deltas
      .filter((delta) => delta.change !== null && Math.abs(delta.change) > comparison.tolerance)
      .map((delta) => ({ cell, delta })),
  );
  const rows = moved.map(({ cell, delta }) => [
    cell.cellId,
    delta.label,
    fmtNumber(delta.baseline),
    fmtNumber(delta.current),
    fmtChange(delta.change!),
    deltaVerdict(delta),
  ]);
  if (rows.length > 0) {
    const caption = `Cell metrics that moved more than ${tolerance}.`;
    doc.table(['CELL', 'METRIC', 'BASELINE', 'CURRENT', 'CHANGE', 'VERDICT'], rows, caption);
  } else {
    doc.p(`No cell metric moved more than ${tolerance} across ${plural(comparison.cells.length, 'matched cell')}.`);
  }
  if (comparison.onlyInBaseline.length > 0) {
    doc.p(`Cells only in the baseline: ${comparison.onlyInBaseline.join(', ')}.`);
  }
  if (comparison.onlyInCurrent.length > 0) doc.p(`Cells only in this run: ${comparison.onlyInCurrent.join(', ')}.`);
  return doc.blocks;
}

/** A relative change as the comparison writes it: "+12.5%", "-3.0%". */
function fmtChange(change: number): string {
  return `${change > 0 ? '+' : ''}${(change * 100).toFixed(1)}%`;
}

/** A compared value: whole numbers from 100 up, two decimals below. */
function fmtNumber(value: number | null): string {
  if (value === null) return 'n/a';
  return Math.abs(value) >= 100 ? value.toFixed(0) : value.toFixed(2);
}
