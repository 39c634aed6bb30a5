// Compiles options.thresholds against the metric registry and evaluates them with lib/thresholds.ts, as k6 does. Runs in Node.
import { aggregationAllowed, evaluateThreshold, parseMetricKey, parseThreshold, type ParsedThreshold } from '../lib/thresholds';
import { EXIT, RunnerError } from './exit-codes';
import type { ThresholdResult } from './events';
import { CounterSink, GaugeSink, RateSink, TrendSink, type Metric, type MetricsEngine, type Sink, type SubMetric } from './metrics-engine';
import type { ThresholdSpec } from './options';

export interface CompiledThreshold {
  /** The thresholds key as k6 names it in summaries: "metric" or "metric{tag:value}". */
  readonly key: string;
  readonly metric: Metric;
  readonly sub: SubMetric | null;
  readonly parsed: ParsedThreshold;
  readonly spec: ThresholdSpec;
  /** Result of the last evaluation (true until evaluated, as k6 starts thresholds as passing). */
  ok: boolean;
}

function bad(message: string): never {
  throw new RunnerError(message, EXIT.invalidConfig);
}

/** k6 checks thresholds before the test starts: an unknown metric or an aggregation the type lacks exits 104. */
export function compileThresholds(specs: Readonly<Record<string, readonly ThresholdSpec[]>>, engine: MetricsEngine): CompiledThreshold[] {
  const out: CompiledThreshold[] = [];
  for (const [rawKey, list] of Object.entries(specs)) {
    const key = parseMetricKey(rawKey);
    if (!key.ok) bad(`invalid threshold defined on ${rawKey}; reason: ${key.error}`);
    const metric = engine.get(key.value.metric);
    if (!metric) bad(`invalid threshold defined on ${rawKey}; reason: no metric name "${key.value.metric}" found`);
    const tagNames = Object.keys(key.value.tags);
    if (tagNames.some((t) => t === 'vu' || t === 'iter')) bad(`invalid threshold defined on ${rawKey}; reason: the 'vu' and 'iter' tags are not indexable`);
    const sub = tagNames.length > 0 ? metric.addSubmetric(key.value.tags) : null;
    for (const spec of list) {
      const parsed = parseThreshold(spec.threshold);
      if (!parsed.ok) bad(`invalid threshold defined on ${rawKey}; reason: ${parsed.error}`);
      if (!aggregationAllowed(metric.type, parsed.value.aggregation)) {
        bad(`invalid threshold defined on ${rawKey}; reason: the "${parsed.value.aggregation}" aggregation method is not valid for a ${metric.type} metric ("${spec.threshold}")`);
      }
      out.push({ key: sub ? sub.name : metric.name, metric, sub, parsed: parsed.value, spec, ok: true });
    }
  }
  return out;
}

function isEmpty(sink: Sink): boolean {
  if (sink instanceof TrendSink) return sink.count === 0;
  if (sink instanceof RateSink) return sink.total === 0;
  if (sink instanceof GaugeSink) return !sink.seen;
  return (sink as CounterSink).samples === 0;
}

/** The values lib/thresholds.ts evaluates: only the aggregation asked for, computed from the sink. */
function valuesFor(t: CompiledThreshold, sink: Sink, durationMs: number): Record<string, number> {
  const agg = t.parsed.aggregation;
  if (sink instanceof TrendSink) return { [agg]: sink.stat(agg) };
  if (sink instanceof CounterSink) return { count: sink.count, rate: durationMs > 0 ? sink.count / (durationMs / 1000) : 0 };
  if (sink instanceof GaugeSink) return { value: sink.value };
  const r = sink as RateSink;
  // No samples: no rate at all, which lib/thresholds.ts treats as passing, as k6 does.
  return r.total === 0 ? { passes: 0, fails: 0 } : { rate: r.passes / r.total, passes: r.passes, fails: r.total - r.passes };
}

/**
 * Evaluates thresholds on the cumulative data. During the run (final=false) only thresholds with
 * abortOnFail are evaluated (the others change nothing before the end, and percentiles over large
 * Trends cost time every stream shares), and a metric or sub-metric with no samples is skipped, so
 * it can never trigger an abort. At the end all are evaluated, empty ones included.
 */
export function evaluateThresholds(list: readonly CompiledThreshold[], durationMs: number, final: boolean): ThresholdResult[] {
  const results: ThresholdResult[] = [];
  for (const t of list) {
    const sink = t.sub ? t.sub.sink : t.metric.sink;
    if (!final && (!t.spec.abortOnFail || isEmpty(sink))) continue;
    t.ok = evaluateThreshold(t.parsed, valuesFor(t, sink, durationMs), t.metric.type);
    results.push({ metric: t.key, source: t.spec.threshold, ok: t.ok });
  }
  return results;
}

/** Names of the metrics with a failed threshold, sorted, as k6's "thresholds on metrics '...' have been crossed". */
export function crossedMetrics(list: readonly CompiledThreshold[]): string[] {
  return [...new Set(list.filter((t) => !t.ok).map((t) => t.key))].sort();
}

/** The failed thresholds that abort the run now: abortOnFail set and delayAbortEval passed. */
export function abortingThresholds(list: readonly CompiledThreshold[], elapsedMs: number): CompiledThreshold[] {
  return list.filter((t) => !t.ok && t.spec.abortOnFail && elapsedMs >= t.spec.delayAbortEvalMs);
}
