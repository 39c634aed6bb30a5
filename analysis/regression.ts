// Whether a figure regressed against a baseline run: its relative change, beyond a tolerance in its bad direction,
// and beyond what noise alone moves it by. Pure; runs in Node. report/compare.ts pairs two reports with it.

import type { LadderResult } from './capacity';
import type { CellStats } from './cells';
import type { TrendKey } from './cell-accumulator';

/** Relative change; null when undefined. */
export function relativeChange(baseline: number | null, current: number | null): number | null {
  if (baseline === null || current === null || baseline === 0) return null;
  return (current - baseline) / Math.abs(baseline);
}

/** Whether a change is a regression beyond the tolerance (0.1 = 10%). */
export function isRegression(change: number | null, better: 'higher' | 'lower', tolerance: number): boolean {
  if (change === null) return false;
  return better === 'higher' ? change < -tolerance : change > tolerance;
}

/**
 * What noise alone moves a cell's mean by, in its unit: 1.96 standard errors of the difference of two
 * independent means; null for other statistics, other metrics, or a side without a spread.
 *
 * Requests that run together are not independent: a server hiccup (a stall, a slow step) slows every request in
 * flight at once, so a cell of N users measures about one independent value per round of its users. The
 * standard error of a per-request mean counts requests / N samples (at least 2); with one user, every request.
 * ITL, one sample per token, keeps its own count: its spread is mostly within a request.
 */
export function meanNoise(
  before: CellStats, after: CellStats, metric: TrendKey | undefined, stat: string,
): number | null {
  if (stat !== 'avg' || !metric) return null;
  const a = before.metrics[metric];
  const b = after.metrics[metric];
  if (!a || !b || a.stdDev === undefined || b.stdDev === undefined) return null;
  const perToken = metric === 'itl';
  const effective = (d: { count: number }, cell: CellStats) =>
    perToken ? d.count : Math.min(d.count, Math.max(2, d.count / Math.max(1, cell.concurrency)));
  return 1.96 * Math.sqrt(a.stdDev ** 2 / effective(a, before) + b.stdDev ** 2 / effective(b, after));
}

/** A capacity as a number to compare: its estimate, 0 below the first step, null when there is none. */
export function ladderValue(r: LadderResult): number | null {
  switch (r.kind) {
    case 'within':
    case 'beyond':
      return r.estimate;
    case 'below':
      return 0;
    case 'untested':
    case 'undetermined':
      return null;
  }
}
