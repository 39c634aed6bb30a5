// The use-case limits of thresholds/use-cases.ts as Grafana threshold lines and description notes. Runs in Node.

import { REQUEST_METRICS } from '../../lib/metrics';
import type { MetricDefinition } from '../../lib/metric-definition';
import { USE_CASES, type UseCase, type UseCaseLimit } from '../../thresholds/use-cases';
import type { ThresholdStep } from './panel-spec';
import { toRemoteWriteUnit } from './remote-write';

/** The metric definition a use-case limit is on (lib/metrics.ts REQUEST_METRICS). */
export function limitMetric(limit: UseCaseLimit): MetricDefinition {
  return REQUEST_METRICS[limit.metric];
}

/** Distinct limit values of one metric over all use cases, in the unit Prometheus holds (s for times). */
export function limitValues(metric: UseCaseLimit['metric'], useCases: readonly UseCase[] = USE_CASES): number[] {
  const def = REQUEST_METRICS[metric];
  const values = new Set<number>();
  for (const uc of useCases) {
    for (const l of uc.limits) if (l.metric === metric) values.add(toRemoteWriteUnit(def, l.value));
  }
  return [...values].sort((a, b) => a - b);
}

/** Whether a limit is an upper bound (TTFT, e2e), so lower values are better. */
export function lowerIsBetter(limit: Pick<UseCaseLimit, 'operator'>): boolean {
  return limit.operator === '<' || limit.operator === '<=';
}

/**
 * Threshold steps that draw each value as a dashed line. For "lower is better" limits (TTFT, e2e) the
 * colour worsens above each line; for "higher is better" ones (speed) it improves above each line.
 */
export function thresholdSteps(values: readonly number[], lowerBetter: boolean): ThresholdStep[] {
  const worsening = ['yellow', 'orange', 'red', 'dark-red'];
  const improving = ['orange', 'yellow', 'green', 'dark-green'];
  const ramp = lowerBetter ? worsening : improving;
  const steps: ThresholdStep[] = [{ color: lowerBetter ? 'green' : 'red', value: null }];
  // A lone limit is the pass/fail line (red or green); several are graded from mild to strong.
  const offset = values.length === 1 ? 2 : 0;
  values.forEach((v, i) => {
    steps.push({ color: ramp[Math.min(i + offset, ramp.length - 1)]!, value: v });
  });
  return steps;
}

/** Every use case's limit on one metric as dashed threshold lines, or undefined when no use case limits it. */
export function allLimitsOf(metric: UseCaseLimit['metric']): { steps: ThresholdStep[]; dashed: boolean } | undefined {
  const values = limitValues(metric);
  if (values.length === 0) return undefined;
  const sample = USE_CASES.flatMap((u) => u.limits).find((l) => l.metric === metric)!;
  return { steps: thresholdSteps(values, lowerIsBetter(sample)), dashed: true };
}

/** The description sentence naming the dashed lines of allLimitsOf, or '' when there are none. */
export function limitsNote(metric: UseCaseLimit['metric']): string {
  const labels = USE_CASES.flatMap((u) =>
    u.limits.filter((l) => l.metric === metric).map((l) => `${u.title}: ${l.label}`));
  return labels.length > 0 ? ` Dashed lines: the use-case limits (${labels.join('; ')}).` : '';
}
