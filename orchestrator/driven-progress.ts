// The bench-driven part's progress: a line per finished search step, and the step, interval and ETA it shows.
// Runs in Node.

import { isUnclear } from '../analysis/capacity-interval';
import type { CapacitySearch } from './capacity-search';
import { isShareLimit } from '../analysis/capacity';
import type { Driver, StepResult } from './driver';
import type { DrivenProgress, ProgressState } from './progress';
import { requestSecondsWithinLimits, searchEtaSeconds } from './search-eta';
import { mean } from '../analysis/stats';

/** One line per finished search step: its verdict and the figures its limits were checked on. */
export function renderSearchStepLine(r: StepResult, search: CapacitySearch): string {
  const s = search.searches.find((x) => x.useCase.id === r.spec.cell.useCase);
  const point = s?.points.find((p) => p.users === r.spec.cell.concurrency);
  const measured = r.requests.filter((q) => q.phase === 'measured').length;
  const figures = point
    ? point.checks
        .map((c) =>
          `${c.label}: ${c.actual === null ? 'n/a' : fmt(c.actual, isShareLimit(c))} ${c.ok ? 'ok' : 'BROKEN'}`)
        .join(', ')
    : '';
  const n = r.spec.cell.concurrency;
  const times = (point?.measurements ?? 1) > 1 ? `, measurement ${point!.measurements}, pooled` : '';
  const share = point?.passShare;
  const unclear = share !== undefined && isUnclear(share)
    ? `; unclear: every limit holds in ${(share * 100).toFixed(0)}% of resamples` : '';
  return `  ${r.spec.cell.useCase} at ${n} user${n === 1 ? '' : 's'}: ` +
    `${point?.ok ? 'within limits' : 'limit broken'} (${measured} measured requests in ` +
    `${((r.endMs - r.startMs) / 1000).toFixed(1)} s${times}; ${figures}${unclear})`;
}

/** A figure as the step line shows it; a share (success rate, goodput) in percent. */
function fmt(v: number, share: boolean): string {
  if (share) return `${(v * 100).toFixed(1)}%`;
  return Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(1);
}

/**
 * The driven part's progress: the step, the search interval, and an ETA (fixed cells: from the steps so far; a search:
 * orchestrator/search-eta.ts).
 */
export function drivenProgress(driver: Driver, search: CapacitySearch | null, state: ProgressState): DrivenProgress {
  const cur = driver.current;
  const steps = driver.steps.length;
  const step = cur
    ? {
        id: cur.spec.cell.id, index: steps, users: cur.spec.cell.concurrency, ended: cur.ended, measured: cur.measured,
        warmingUsers: cur.warmingUsers,
      }
    : null;
  const pos = search?.position ?? null;
  let eta: number | null = null;
  const seconds = (r: { startMs: number; endMs: number }): number => (r.endMs - r.startMs) / 1000;
  const allStepSeconds = driver.steps.map(seconds);
  if (!search) {
    // Fixed cells: the cells not yet done, each at the mean of the finished ones.
    const left = state.cells.slice(steps).length;
    const perStep = mean(allStepSeconds);
    eta = perStep === null ? null : left * perStep;
  } else if (pos) {
    const s = search.searches[pos.index]!;
    const width = pos.firstFail === null ? null : pos.firstFail - (pos.lastPass ?? 0);
    const stepsLeft = width === null ? 3 : Math.max(1, Math.ceil(Math.log2(Math.max(1, width))));
    const here = driver.steps.filter((r) => r.spec.cell.useCase === s.useCase.id).map(seconds);
    const running = cur && cur.spec.cell.useCase === s.useCase.id ? (performance.now() - cur.startMs) / 1000 : 0;
    const bound = (u: (typeof search.searches)[number]): number | null =>
      requestSecondsWithinLimits(u.useCase.limits, u.outputTokens);
    const spentSeconds = here.reduce((a, b) => a + b, 0) + running;
    eta = searchEtaSeconds({
      current: { boundSeconds: bound(s), spentSeconds, stepSeconds: here, stepsLeft },
      future: search.searches.slice(pos.index + 1).map(bound),
      allStepSeconds,
    });
  }
  return { step, search: pos, etaSeconds: eta, ...driver.totals };
}
