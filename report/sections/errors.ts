// Success rate and errors: requests that succeeded, failures by kind per cell, the servers' messages. Runs in Node.

import { ERROR_MESSAGES_SHOWN, type CellStats } from '../../analysis/cells';
import { DocBuilder, lit, type Block } from '../document';
import { fmtCount, fmtPct } from '../format';
import type { Report } from '../report-types';
import { measuredCells, sentences } from '../phrases';

/** The run's success rate and failures by kind, then one row per cell and its most frequent error messages. */
export function successAndErrorsSection(report: Report): Block[] {
  const cells = measuredCells(report);
  if (cells.length === 0) return [];
  const doc = new DocBuilder();
  doc.h(2, 'Success Rate and Errors');
  doc.p(successSummary(report.totals));
  const errors = (cell: CellStats): string =>
    Object.entries(cell.errorsByKind)
      .filter(([, count]) => count > 0)
      .map(([kind, count]) => `${kind}: ${count}`)
      .join(', ') || '-';
  const rows = cells.map((cell) => [
    cell.id,
    String(cell.requests),
    String(cell.cut),
    fmtPct(cell.successRate),
    errors(cell),
    cell.tokenSource ?? 'n/a',
  ]);
  doc.table(['CELL', 'REQUESTS', 'CUT', 'SUCCESS RATE', 'ERRORS', 'TOKEN COUNTS FROM'], rows);
  const messageRows = cells.flatMap((cell) =>
    Object.entries(cell.errorMessages).flatMap(([kind, messages]) =>
      messages.map((message) => [cell.id, kind, String(message.count), lit(message.message)]),
    ),
  );
  const caption =
    `The most frequent error messages per cell and kind (top ${ERROR_MESSAGES_SHOWN}), ` +
    'as the server or the transport gave them (first 200 characters, API key redacted).';
  doc.table(['CELL', 'ERROR KIND', 'COUNT', 'SERVER MESSAGE'], messageRows, caption);
  return doc.blocks;
}

/** "99.1% of 1,234 requests succeeded; failures by kind: …", and how many were cut rather than failed. */
function successSummary(totals: Report['totals']): string {
  const kinds = Object.entries(totals.errorsByKind).filter(([, count]) => count > 0);
  const failures = kinds.length > 0
    ? `; failures by kind: ${kinds.map(([kind, count]) => `${kind} ${count}`).join(', ')}`
    : ' (no errors)';
  const cut =
    `${fmtCount(totals.cut)} more were cut by the end of their cell's time slot or by an interrupt: ` +
    'they are neither measured nor failed.';
  return sentences(
    `${fmtPct(totals.successRate)} of ${fmtCount(totals.requests)} requests succeeded${failures}.`,
    totals.cut > 0 ? cut : null,
  );
}
