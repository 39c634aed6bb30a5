// The verification's table for the terminal and its summary line. Runs in Node, pure.

import { renderTextTable } from './text-table';
import type { Verification } from './verify';

function fmt(x: number | null): string {
  if (x === null) return '-';
  return Math.abs(x) >= 100 ? x.toFixed(0) : Math.abs(x) >= 10 ? x.toFixed(1) : x.toFixed(2);
}

const verdict = (ok: boolean | null): string => (ok === null ? '-' : ok ? 'holds' : 'breaks');

export function renderVerification(v: Verification): string {
  const rows = v.checks.map((c) => [
    c.useCase, String(c.users), c.limit, fmt(c.predicted), fmt(c.measured),
    c.errorPct === null ? '-' : `${c.errorPct >= 0 ? '+' : ''}${c.errorPct.toFixed(1)}%`,
    verdict(c.predictedOk), verdict(c.measuredOk),
  ]);
  const head = ['use case', 'users', 'limit', 'predicted', 'measured', 'error', 'predicted', 'measured'];
  const summary = v.measuredSteps === 0
    ? 'no step was measured: nothing to compare'
    : `${v.agreed} of ${v.measuredSteps} measured steps agree with the prediction on whether every limit holds; ` +
      `the predicted statistics are off by ${fmt(v.medianErrorPct)}% at the median, ${fmt(v.maxErrorPct)}% at most`;
  const capacities = renderTextTable(
    ['use case', 'predicted capacity', 'measured by the verifying search'],
    v.capacities.map((c) => [c.useCase, c.predicted, c.measured]),
  );
  return `${renderTextTable(head, rows)}\n${summary}\n\n${capacities}`;
}
