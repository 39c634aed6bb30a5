// Baseline comparison: two reports cell by cell and per use case, with regressions beyond a tolerance marked and gated.
// The arithmetic of a regression and of a measurement's noise is analysis/regression.ts; this module pairs the two
// reports' cells and capacities and words what moved. Runs in Node.
//
// A metric regresses when it moves in its bad direction by more than the tolerance, relative to the
// baseline: (baseline - current) / baseline > tol for higher-is-better metrics, (current - baseline)
// / baseline > tol for lower-is-better ones, and by more than the measurement's own noise: for a mean,
// 1.96 standard errors of the difference of the two cells' means; for a capacity, outside the overlap
// of the two capacities' 95% bootstrap intervals. Gated regressions (capacity, burst depth, success
// rate, and the use-case limit metrics of the cells a capacity is computed from) make the CLI exit 99.

import type { CellStats } from '../analysis/cells';
import { type CapacityInterval } from '../analysis/capacity-interval';
import type { CapacityComparison, CellComparison, Comparison, MetricDelta, Report } from './report-types';
import type { LadderResult } from '../analysis/capacity';
import { toK6Values } from '../analysis/stats';
import { isRegression, ladderValue, meanNoise, relativeChange } from '../analysis/regression';
import type { TrendKey } from '../analysis/cell-accumulator';
import { formatInterval, ladderDisplay } from './capacity-words';

export interface MetricSpec {
  readonly metric: string;
  readonly label: string;
  readonly better: 'higher' | 'lower';
  readonly get: (c: CellStats, stat: string) => number | null;
  readonly limitMetric?: TrendKey;
}

const trend = (k: TrendKey) => (c: CellStats, stat: string): number | null => {
  const d = c.metrics[k];
  return d === null ? null : (toK6Values(d)[stat] ?? null);
};

const SPECS: readonly MetricSpec[] = [
  { metric: 'throughput', label: 'System throughput (tok/s)', better: 'higher', get: (c) => c.throughput },
  { metric: 'ttft', label: 'TTFT (ms)', better: 'lower', get: trend('ttft'), limitMetric: 'ttft' },
  { metric: 'itl', label: 'ITL (ms)', better: 'lower', get: trend('itl'), limitMetric: 'itl' },
  { metric: 'e2e', label: 'E2E latency (ms)', better: 'lower', get: trend('e2e'), limitMetric: 'e2e' },
  {
    metric: 'decodeSpeed', label: 'Per-user decode speed (tok/s)', better: 'higher', get: trend('decodeSpeed'),
    limitMetric: 'decodeSpeed',
  },
  { metric: 'successRate', label: 'Success rate', better: 'higher', get: (c) => c.successRate },
];

/**
 * Compares a report with its baseline. Both must have been built with the same limit statistic to compare like with
 * like.
 */
export function compareReports(current: Report, baseline: Report, tolerance: number): Comparison {
  const baselineIds = new Set(baseline.cells.map((cell) => cell.id));
  const currentIds = new Set(current.cells.map((cell) => cell.id));
  const cellResult = compareCells(current, baseline, tolerance);
  const capacityResult = compareCapacities(current, baseline, tolerance);
  // Cells first, then use cases, then bursts: the order the CLI prints the first regression from.
  const regressions = [...cellResult.regressions, ...capacityResult.regressions];
  return {
    baselineDir: baseline.runDir,
    baselineRunId: baseline.run?.runId ?? null,
    tolerance,
    cells: cellResult.cells,
    capacities: capacityResult.capacities,
    onlyInBaseline: [...baselineIds].filter((id) => !currentIds.has(id)),
    onlyInCurrent: [...currentIds].filter((id) => !baselineIds.has(id)),
    regressions,
    gatedRegression: regressions.length > 0,
  };
}

/** Cells whose limit metrics are gated: those a use-case capacity is computed from, with the metrics of its limits. */
function gatedMetricsByCell(report: Report): Map<string, Set<string>> {
  const gatedMetrics = new Map<string, Set<string>>();
  for (const capacity of report.useCases) {
    for (const id of capacity.cellIds) {
      const metrics = gatedMetrics.get(id) ?? new Set<string>();
      for (const limit of capacity.useCase.limits) metrics.add(limit.metric);
      gatedMetrics.set(id, metrics);
    }
  }
  return gatedMetrics;
}

/** Every cell measured on both sides, metric by metric; one sentence per gated regression. */
function compareCells(
  current: Report,
  baseline: Report,
  tolerance: number,
): { cells: CellComparison[]; regressions: string[] } {
  const baselineCells = new Map(baseline.cells.map((cell) => [cell.id, cell]));
  const gatedMetrics = gatedMetricsByCell(current);
  const regressions: string[] = [];
  const cells: CellComparison[] = [];
  for (const cell of current.cells) {
    const before = baselineCells.get(cell.id);
    if (!before || cell.requests === 0 || before.requests === 0) continue;
    const deltas = SPECS.map((spec): MetricDelta => {
      const baselineValue = spec.get(before, current.limitStat);
      const currentValue = spec.get(cell, current.limitStat);
      const change = relativeChange(baselineValue, currentValue);
      const noise = meanNoise(before, cell, spec.limitMetric, current.limitStat);
      const beyondNoise = noise === null || baselineValue === null || currentValue === null
        || Math.abs(currentValue - baselineValue) > noise;
      const regression = isRegression(change, spec.better, tolerance) && beyondNoise;
      const limitGated = spec.limitMetric !== undefined && (gatedMetrics.get(cell.id)?.has(spec.limitMetric) ?? false);
      const gated = spec.metric === 'successRate' || limitGated;
      const { metric, label, better } = spec;
      return {
        metric, label, better, baseline: baselineValue, current: currentValue, change, noise, regression, gated,
      };
    });
    for (const delta of deltas) {
      if (delta.regression && delta.gated) regressions.push(cellRegression(cell.id, delta, tolerance));
    }
    const gatedRegression = deltas.some((delta) => delta.regression && delta.gated);
    cells.push({ cellId: cell.id, deltas, regression: deltas.some((delta) => delta.regression), gatedRegression });
  }
  return { cells, regressions };
}

function cellRegression(cellId: string, delta: MetricDelta, tolerance: number): string {
  const moved = `${delta.better === 'higher' ? 'fell' : 'rose'} ${(Math.abs(delta.change ?? 0) * 100).toFixed(1)}%`;
  const values = `${fmt(delta.baseline, delta.metric)} → ${fmt(delta.current, delta.metric)}`;
  const noise = delta.noise === null ? '' : ` and its noise (±${fmt(delta.noise, delta.metric)})`;
  const beyond = `beyond the ${(tolerance * 100).toFixed(0)}% tolerance${noise}`;
  return `${cellId}: ${delta.label} ${moved} (${values}), ${beyond}.`;
}

/** Each use case's capacity and each burst's max safe queue depth on both sides; one sentence per regression. */
function compareCapacities(
  current: Report,
  baseline: Report,
  tolerance: number,
): { capacities: CapacityComparison[]; regressions: string[] } {
  const regressions: string[] = [];
  const capacities: CapacityComparison[] = [];
  for (const capacity of current.useCases) {
    const before = baseline.useCases.find((candidate) => candidate.useCase.id === capacity.useCase.id);
    if (!before) continue;
    const compared = withIntervals(
      compareLadders(before.result, capacity.result, tolerance), before.interval ?? null, capacity.interval ?? null,
    );
    if (compared.regression) {
      const side = (result: LadderResult, interval: string | null): string =>
        interval ? `${ladderDisplay(result)} (95% interval ${interval})` : ladderDisplay(result);
      const fell = `from ${side(before.result, compared.baselineInterval)} ` +
        `to ${side(capacity.result, compared.currentInterval)}`;
      regressions.push(`${capacity.useCase.title}: capacity fell ${fell} concurrent requests.`);
    }
    capacities.push({ kind: 'useCase', id: capacity.useCase.id, title: capacity.useCase.title, ...compared });
  }
  for (const burst of current.bursts) {
    const before = baseline.bursts.find((candidate) => candidate.profile === burst.profile);
    if (!before) continue;
    const compared = withIntervals(compareLadders(before.result, burst.result, tolerance), null, null);
    if (compared.regression) {
      const fell = `from ${ladderDisplay(before.result)} to ${ladderDisplay(burst.result)}`;
      regressions.push(`${burst.title} burst: max safe queue depth fell ${fell}.`);
    }
    capacities.push({ kind: 'burst', id: burst.profile, title: `${burst.title} (burst)`, ...compared });
  }
  return { capacities, regressions };
}

/** Two capacities compared, with the intervals the verdict was weighed against (CapacityComparison's fields). */
type LadderComparison = ReturnType<typeof compareLadders> & {
  readonly baselineInterval: string | null;
  readonly currentInterval: string | null;
  readonly withinNoise: boolean;
};

/**
 * A capacity comparison weighed against both capacities' 95% intervals: a fall beyond the tolerance whose
 * intervals overlap (the lower one's upper end reaches the other's lower end) is the measurement's noise,
 * not a regression. Without both intervals, the tolerance decides.
 */
function withIntervals(
  compared: ReturnType<typeof compareLadders>, before: CapacityInterval | null, after: CapacityInterval | null,
): LadderComparison {
  const baselineInterval = before && formatInterval(before);
  const currentInterval = after && formatInterval(after);
  const overlap = before !== null && after !== null && (after.high === null || after.high >= before.low);
  const withinNoise = compared.regression && overlap;
  const regression = compared.regression && !withinNoise;
  return { ...compared, regression, baselineInterval, currentInterval, withinNoise };
}

/** Two ladder results side by side: their written and numeric values, the change and whether it is a regression. */
function compareLadders(before: LadderResult, after: LadderResult, tolerance: number) {
  const baselineValue = ladderValue(before);
  const currentValue = ladderValue(after);
  const change = relativeChange(baselineValue, currentValue);
  // "more than N" on both sides with the same N is no regression; a drop from any value to "below" is.
  const fellToBelow = baselineValue !== null && currentValue !== null && baselineValue > 0 && currentValue === 0;
  const regression = fellToBelow || isRegression(change, 'higher', tolerance);
  return {
    baseline: ladderDisplay(before), current: ladderDisplay(after), baselineValue, currentValue, change, regression,
  };
}

function fmt(v: number | null, metric: string): string {
  if (v === null) return 'n/a';
  if (metric === 'successRate') return `${(v * 100).toFixed(1)}%`;
  return v >= 100 ? v.toFixed(0) : v.toFixed(1);
}
