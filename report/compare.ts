// Baseline comparison: two reports cell by cell and per use case, with regressions beyond a tolerance marked and gated. Runs in Node.
//
// A metric regresses when it moves in its bad direction by more than the tolerance, relative to the
// baseline: (baseline - current) / baseline > tol for higher-is-better metrics, (current - baseline)
// / baseline > tol for lower-is-better ones. Gated regressions (capacity, burst depth, success rate,
// and the use-case limit metrics of the cells a capacity is computed from) make the CLI exit 99.

import type { CellStats } from './cells';
import type { LadderResult } from './capacity';
import type { CapacityComparison, CellComparison, Comparison, MetricDelta, Report } from './report-types';
import { toK6Values } from './stats';
import type { TrendKey } from './read-samples';

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

interface MetricSpec {
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
  { metric: 'decodeSpeed', label: 'Per-user decode speed (tok/s)', better: 'higher', get: trend('decodeSpeed'), limitMetric: 'decodeSpeed' },
  { metric: 'successRate', label: 'Success rate', better: 'higher', get: (c) => c.successRate },
];

function ladderValue(r: LadderResult): number | null {
  switch (r.kind) {
    case 'within':
    case 'beyond':
      return r.estimate;
    case 'below':
      return 0;
    case 'untested':
      return null;
  }
}

/** Compares a report with its baseline. Both must have been built with the same limit statistic to compare like with like. */
export function compareReports(current: Report, baseline: Report, tolerance: number): Comparison {
  const base = new Map(baseline.cells.map((c) => [c.id, c]));
  const cur = new Map(current.cells.map((c) => [c.id, c]));
  // Cells whose limit metrics are gated: those a use-case capacity is computed from, with the metrics of its limits.
  const gatedMetrics = new Map<string, Set<string>>();
  for (const u of current.useCases) {
    for (const id of u.cellIds) {
      const set = gatedMetrics.get(id) ?? new Set<string>();
      for (const l of u.useCase.limits) set.add(l.metric);
      gatedMetrics.set(id, set);
    }
  }
  const regressions: string[] = [];
  const cells: CellComparison[] = [];
  for (const c of current.cells) {
    const b = base.get(c.id);
    if (!b || c.requests === 0 || b.requests === 0) continue;
    const deltas = SPECS.map((s): MetricDelta => {
      const bv = s.get(b, current.limitStat);
      const cv = s.get(c, current.limitStat);
      const change = relativeChange(bv, cv);
      const regression = isRegression(change, s.better, tolerance);
      const gated = s.metric === 'successRate' || (s.limitMetric !== undefined && (gatedMetrics.get(c.id)?.has(s.limitMetric) ?? false));
      return { metric: s.metric, label: s.label, better: s.better, baseline: bv, current: cv, change, regression, gated };
    });
    const gatedRegression = deltas.some((d) => d.regression && d.gated);
    for (const d of deltas) {
      if (d.regression && d.gated) regressions.push(`${c.id}: ${d.label} ${d.better === 'higher' ? 'fell' : 'rose'} ${(Math.abs(d.change ?? 0) * 100).toFixed(1)}% (${fmt(d.baseline, d.metric)} → ${fmt(d.current, d.metric)}), beyond the ${(tolerance * 100).toFixed(0)}% tolerance.`);
    }
    cells.push({ cellId: c.id, deltas, regression: deltas.some((d) => d.regression), gatedRegression });
  }
  const capacities: CapacityComparison[] = [];
  for (const u of current.useCases) {
    const bu = baseline.useCases.find((x) => x.useCase.id === u.useCase.id);
    if (!bu) continue;
    const bv = ladderValue(bu.result);
    const cv = ladderValue(u.result);
    const change = relativeChange(bv, cv);
    // "more than N" on both sides with the same N is no regression; a drop from any value to "below" is.
    const regression = (bv !== null && cv !== null && bv > 0 && cv === 0) || isRegression(change, 'higher', tolerance);
    if (regression) regressions.push(`${u.useCase.title}: capacity fell from ${bu.result.display} to ${u.result.display} concurrent requests.`);
    capacities.push({ kind: 'useCase', id: u.useCase.id, title: u.useCase.title, baseline: bu.result.display, current: u.result.display, baselineValue: bv, currentValue: cv, change, regression });
  }
  for (const bst of current.bursts) {
    const bb = baseline.bursts.find((x) => x.profile === bst.profile);
    if (!bb) continue;
    const bv = ladderValue(bb.result);
    const cv = ladderValue(bst.result);
    const change = relativeChange(bv, cv);
    const regression = (bv !== null && cv !== null && bv > 0 && cv === 0) || isRegression(change, 'higher', tolerance);
    if (regression) regressions.push(`${bst.title} burst: max safe queue depth fell from ${bb.result.display} to ${bst.result.display}.`);
    capacities.push({ kind: 'burst', id: bst.profile, title: `${bst.title} (burst)`, baseline: bb.result.display, current: bst.result.display, baselineValue: bv, currentValue: cv, change, regression });
  }
  return {
    baselineDir: baseline.runDir,
    baselineRunId: baseline.run?.runId ?? null,
    tolerance,
    cells,
    capacities,
    onlyInBaseline: [...base.keys()].filter((id) => !cur.has(id)),
    onlyInCurrent: [...cur.keys()].filter((id) => !base.has(id)),
    regressions,
    gatedRegression: regressions.length > 0,
  };
}

function fmt(v: number | null, metric: string): string {
  if (v === null) return 'n/a';
  if (metric === 'successRate') return `${(v * 100).toFixed(1)}%`;
  return v >= 100 ? v.toFixed(0) : v.toFixed(1);
}
