// k6's threshold grammar: parse "<aggregation> <op> <number>" and evaluate it against a metric's values.
// Runs in k6 and Node.
//
// The report evaluates use-case limits with k6's own grammar, and the scripts' thresholds are written
// in it, so a limit means the same in k6 and in the report.
// Grammar and allowed aggregations follow k6's metrics/thresholds_parser.go and metric_type.go.

import type { MetricKind } from './metric-definition';

export type ThresholdOperator = '<' | '<=' | '>' | '>=' | '==' | '===' | '!=';

export interface ParsedThreshold {
  /** The expression as written, e.g. "p(95)<8000". */
  readonly source: string;
  /** The aggregation key as it appears in k6's summary values: "avg", "p(95)", "rate", "count", "value". */
  readonly aggregation: string;
  readonly operator: ThresholdOperator;
  readonly value: number;
}

export type ParseResult<T> = { ok: true; value: T } | { ok: false; error: string };

const OPERATORS: readonly ThresholdOperator[] = ['===', '==', '!=', '<=', '>=', '<', '>'];
const PLAIN_AGGREGATIONS = ['count', 'rate', 'value', 'avg', 'min', 'max', 'med'] as const;

/** Which aggregations k6 accepts in a threshold for each metric type. */
export const AGGREGATIONS_BY_KIND: Readonly<Record<MetricKind, readonly string[]>> = {
  counter: ['count', 'rate'],
  gauge: ['value'],
  rate: ['rate'],
  trend: ['avg', 'min', 'max', 'med', 'p(N)'],
};

function parseAggregation(text: string): string | undefined {
  if ((PLAIN_AGGREGATIONS as readonly string[]).includes(text)) return text;
  const m = /^p\(\s*(\d+(?:\.\d+)?)\s*\)$/.exec(text);
  if (!m || m[1] === undefined) return undefined;
  const p = Number(m[1]);
  if (!(p >= 0 && p <= 100)) return undefined;
  // k6 names the summary key after the number as written, e.g. p(99.9).
  return `p(${m[1]})`;
}

/** Parses one threshold expression, e.g. "p(95) < 8000". */
export function parseThreshold(source: string): ParseResult<ParsedThreshold> {
  const text = source.trim();
  for (const op of OPERATORS) {
    const at = text.indexOf(op);
    if (at <= 0) continue;
    // "<=" must not be read as "<" followed by "=...": OPERATORS lists longer operators first.
    const left = text.slice(0, at).trim();
    const right = text.slice(at + op.length).trim();
    const aggregation = parseAggregation(left);
    if (!aggregation)
      return {
        ok: false,
        error: `threshold "${source}": unknown aggregation "${left}" ` +
          '(use avg, min, max, med, p(N), count, rate or value)',
      };
    if (right === '' || !/^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(right)) {
      return { ok: false, error: `threshold "${source}": "${right}" is not a number` };
    }
    return { ok: true, value: { source: text, aggregation, operator: op, value: Number(right) } };
  }
  return { ok: false, error: `threshold "${source}": expected "<aggregation> <operator> <number>", e.g. "p(95)<8000"` };
}

/** Whether a metric of this kind can be thresholded on this aggregation (k6 exits 104 otherwise). */
export function aggregationAllowed(kind: MetricKind, aggregation: string): boolean {
  if (kind === 'trend') return aggregation.startsWith('p(') || ['avg', 'min', 'max', 'med'].includes(aggregation);
  return AGGREGATIONS_BY_KIND[kind].includes(aggregation);
}

/** Compares a value with a threshold's bound. */
export function compare(actual: number, operator: ThresholdOperator, bound: number): boolean {
  switch (operator) {
    case '<':
      return actual < bound;
    case '<=':
      return actual <= bound;
    case '>':
      return actual > bound;
    case '>=':
      return actual >= bound;
    case '==':
    case '===':
      return actual === bound;
    case '!=':
      return actual !== bound;
  }
}

/**
 * Evaluates a threshold against a metric's summary values (k6's `values` object: avg, p(95), rate, ...).
 * Returns true when the threshold passes. A missing aggregation counts as 0, which is what k6 does
 * for a sub-metric that got no samples (Trend statistics all 0, Counter 0); a Rate with no samples passes.
 */
export function evaluateThreshold(
  threshold: ParsedThreshold, values: Readonly<Record<string, number>>, kind: MetricKind,
): boolean {
  // k6 writes an empty Rate as {rate: 0, passes: 0, fails: 0}: with counts present, they decide emptiness.
  const counted = values.passes !== undefined || values.fails !== undefined;
  const noSamples = counted ? (values.passes ?? 0) + (values.fails ?? 0) === 0 : values.rate === undefined;
  if (kind === 'rate' && noSamples) return true;
  const actual = values[threshold.aggregation] ?? 0;
  return compare(actual, threshold.operator, threshold.value);
}

export interface ParsedMetricKey {
  readonly metric: string;
  /** Sub-metric tag filters, e.g. {cell: "sweep_c1k_n4"}; empty for the whole metric. */
  readonly tags: Readonly<Record<string, string>>;
}

/**
 * Parses a thresholds key such as "llm_ttft{cell:chat_32k, use_case:chat}" (k6 trims spaces and quotes around tag
 * values).
 */
export function parseMetricKey(key: string): ParseResult<ParsedMetricKey> {
  const open = key.indexOf('{');
  if (open < 0) return { ok: true, value: { metric: key.trim(), tags: {} } };
  if (!key.trimEnd().endsWith('}')) return { ok: false, error: `thresholds key "${key}": missing closing "}"` };
  const metric = key.slice(0, open).trim();
  const inner = key.slice(open + 1, key.trimEnd().length - 1);
  const tags: Record<string, string> = {};
  for (const part of inner.split(',')) {
    if (part.trim() === '') continue;
    const colon = part.indexOf(':');
    if (colon < 0) {
      return { ok: false, error: `thresholds key "${key}": tag filter "${part.trim()}" must be name:value` };
    }
    const name = part.slice(0, colon).trim();
    const value = part.slice(colon + 1).trim().replace(/^["'`]|["'`]$/g, '');
    tags[name] = value;
  }
  return { ok: true, value: { metric, tags } };
}
