// A split run's k6 thresholds judged again on the merged samples, since each runner judged only its share.
// Runs in Node (pure).
//
// The thresholds are the ones the script gave k6 (lib/options.ts buildOptions on the part's plan), on
// per-cell sub-metrics; each is evaluated with k6's own grammar (lib/threshold-grammar.ts) on the cell's
// statistics over every runner's samples, with k6's rules for a sub-metric without samples.

import { metricKeyOf } from '../lib/metrics';
import { buildOptions } from '../lib/options';
import type { Plan } from '../lib/plan';
import { evaluateThreshold, parseMetricKey, parseThreshold } from '../lib/threshold-grammar';
import type { CellStats } from '../analysis/cells';
import type { ThresholdOutcome } from './inputs';
import { TREND_KEYS, type TrendKey } from '../analysis/cell-accumulator';
import { toK6Values } from '../analysis/stats';

/**
 * k6's summary values of one per-cell sub-metric, from the merged cell; null for a metric the report has no figure
 * of.
 */
function valuesOf(
  metric: string, cell: CellStats | undefined,
): { values: Record<string, number>; kind: 'trend' | 'rate' } | null {
  const key = metricKeyOf(metric);
  if (key === undefined) return null;
  if (key === 'requestOk') {
    const passes = cell?.succeeded ?? 0;
    const fails = cell?.failed ?? 0;
    return { values: { rate: passes + fails > 0 ? passes / (passes + fails) : 0, passes, fails }, kind: 'rate' };
  }
  if (!(TREND_KEYS as readonly string[]).includes(key)) return null;
  return { values: toK6Values(cell?.metrics[key as TrendKey] ?? null), kind: 'trend' };
}

/** Every threshold of the part's plan, judged on the merged cells; sorted as parseSummary sorts k6's. */
export function judgeMergedThresholds(plan: Plan, cells: readonly CellStats[]): ThresholdOutcome[] {
  const byId = new Map(cells.map((cell) => [cell.id, cell]));
  const outcomes: ThresholdOutcome[] = [];
  for (const [metricKey, specs] of Object.entries(buildOptions(plan).thresholds)) {
    const parsedKey = parseMetricKey(metricKey);
    if (!parsedKey.ok) continue;
    const cellId = parsedKey.value.tags.cell;
    const found = valuesOf(parsedKey.value.metric, cellId === undefined ? undefined : byId.get(cellId));
    if (found === null) continue;
    for (const spec of specs) {
      const expression = typeof spec === 'string' ? spec : spec.threshold;
      const parsed = parseThreshold(expression);
      if (!parsed.ok) continue;
      outcomes.push({ metric: metricKey, expression, ok: evaluateThreshold(parsed.value, found.values, found.kind) });
    }
  }
  return outcomes.sort((a, b) => a.metric.localeCompare(b.metric) || a.expression.localeCompare(b.expression));
}
