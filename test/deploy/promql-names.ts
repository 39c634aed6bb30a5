// Test helper: k6's remote-write naming rules and a small PromQL scanner. Runs in Node (vitest).
// The naming rules are written independently of deploy/grafana; the scanner lists the metric names an expression reads.

import { METRICS } from '../../lib/metrics';
import type { MetricDefinition } from '../../lib/metric-definition';

/** The trend stats deploy/README.md tells k6 to send (K6_PROMETHEUS_RW_TREND_STATS). */
export const DOCUMENTED_TREND_STATS = 'p(50),p(90),p(95),p(99),avg,max,count';

/** Series names k6 -o experimental-prometheus-rw writes for one metric (trend stats above, or a native histogram). */
export function expectedSeriesNames(def: MetricDefinition): string[] {
  const base = `k6_${def.name}`;
  switch (def.kind) {
    case 'counter':
      return [`${base}_total`];
    case 'rate':
      return [`${base}_rate`];
    case 'gauge':
      return [base];
    case 'trend': {
      const stats = DOCUMENTED_TREND_STATS.split(',').map((s) =>
        s.replace(/^p\((\d+)(?:\.(\d+))?\)$/, (_m, a: string, b?: string) => `p${a}${b ?? ''}`),
      );
      return [...stats.map((s) => `${base}_${s}`), def.isTime ? `${base}_seconds` : base];
    }
  }
}

const DERIVED = new Set<string>(Object.values(METRICS).flatMap((d: MetricDefinition) => expectedSeriesNames(d)));
/** k6 built-ins the dashboard may read, and Prometheus' own `up`. */
const BUILTINS = new Set([
  'k6_vus', 'k6_vus_max', 'k6_http_reqs_total', 'k6_dropped_iterations_total', 'k6_iterations_total', 'up',
]);
/** Raw server metrics scraped straight from vLLM, SGLang and the DCGM exporter. */
const RAW_SERVER = /^(?:vllm:[a-z_]+|sglang:[a-z_]+|llamacpp:[a-z_]+|DCGM_FI_[A-Z_]+)$/;

/** True for a name derivable from lib/metrics.ts, a k6 built-in, or a raw vllm:/sglang:/llamacpp:/DCGM_ series. */
export function isAllowedName(name: string): boolean {
  return DERIVED.has(name) || BUILTINS.has(name) || RAW_SERVER.test(name);
}

const PROMQL_WORDS = new Set([
  'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'and', 'or', 'unless', 'offset', 'Inf', 'NaN',
]);

/**
 * The metric names an expression reads: identifiers left once strings, selectors, ranges, groupings and function calls
 * are removed.
 */
export function metricNamesIn(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    // Number and duration literals (`offset 60s`, `/ 60`): not names.
    .replace(/(?<![A-Za-z0-9_:])\d+(?:\.\d+)?(?:ms|[smhdwy])*/g, ' ');
  const names: string[] = [];
  for (const m of stripped.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*/g)) {
    const word = m[0];
    const after = stripped.slice(m.index + word.length).trimStart();
    if (after.startsWith('(')) continue; // a function or an aggregation
    if (PROMQL_WORDS.has(word)) continue;
    names.push(word);
  }
  return names;
}
