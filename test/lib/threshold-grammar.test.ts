// Tests for lib/threshold-grammar.ts: k6's threshold grammar, allowed aggregations, evaluation (incl.
// empty sub-metrics) and the golden k6 summary. Runs in Node (vitest).

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { MetricKind } from '../../lib/metric-definition';
import {
  aggregationAllowed, compare, evaluateThreshold, parseMetricKey, parseThreshold, type ParsedThreshold,
} from '../../lib/threshold-grammar';
import path from 'node:path';
import { GOLDEN_DIR } from '../fixtures/golden';

function parsed(source: string): ParsedThreshold {
  const r = parseThreshold(source);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

function parseError(source: string): string {
  const r = parseThreshold(source);
  if (r.ok) throw new Error(`"${source}" parsed`);
  return r.error;
}

describe('parseThreshold', () => {
  it('reads every operator, the longest first', () => {
    expect(parsed('avg<1')).toMatchObject({ aggregation: 'avg', operator: '<', value: 1 });
    expect(parsed('avg<=1')).toMatchObject({ operator: '<=', value: 1 });
    expect(parsed('avg>1')).toMatchObject({ operator: '>', value: 1 });
    expect(parsed('avg>=1')).toMatchObject({ operator: '>=', value: 1 });
    expect(parsed('avg==1')).toMatchObject({ operator: '==', value: 1 });
    expect(parsed('avg===1')).toMatchObject({ operator: '===', value: 1 });
    expect(parsed('avg!=1')).toMatchObject({ operator: '!=', value: 1 });
  });

  it('reads p(N) with decimals, spaces, and signed or exponent numbers', () => {
    expect(parsed('p(95)<8000')).toEqual({ source: 'p(95)<8000', aggregation: 'p(95)', operator: '<', value: 8000 });
    expect(parsed('p(99.9) <= 250.5')).toEqual({
      source: 'p(99.9) <= 250.5', aggregation: 'p(99.9)', operator: '<=', value: 250.5,
    });
    expect(parsed('  rate >= 0.99  ')).toEqual({
      source: 'rate >= 0.99', aggregation: 'rate', operator: '>=', value: 0.99,
    });
    expect(parsed('p(0)>-1')).toMatchObject({ aggregation: 'p(0)', value: -1 });
    expect(parsed('p(100)<1e3')).toMatchObject({ aggregation: 'p(100)', value: 1000 });
    expect(parsed('count>.5')).toMatchObject({ aggregation: 'count', value: 0.5 });
    for (const agg of ['count', 'rate', 'value', 'avg', 'min', 'max', 'med'])
      expect(parsed(`${agg}>0`).aggregation).toBe(agg);
  });

  it('rejects unknown aggregations, percentiles out of range, non-numbers and missing parts', () => {
    expect(parseError('p95<1')).toBe(
      'threshold "p95<1": unknown aggregation "p95" (use avg, min, max, med, p(N), count, rate or value)',
    );
    expect(parseError('p(101)<1')).toContain('unknown aggregation "p(101)"');
    expect(parseError('mean<1')).toContain('unknown aggregation "mean"');
    expect(parseError('avg<abc')).toBe('threshold "avg<abc": "abc" is not a number');
    expect(parseError('avg<')).toContain('"" is not a number');
    expect(parseError('avg > = 5')).toContain('"= 5" is not a number');
    expect(parseError('avg')).toBe('threshold "avg": expected "<aggregation> <operator> <number>", e.g. "p(95)<8000"');
    expect(parseError('<5')).toContain('expected "<aggregation> <operator> <number>"');
  });
});

describe('aggregationAllowed', () => {
  it("follows k6's metric_type.go: Trend has no count, Counter count and rate, Gauge value, Rate rate", () => {
    const table: [MetricKind, string, boolean][] = [
      ['trend', 'avg', true],
      ['trend', 'min', true],
      ['trend', 'max', true],
      ['trend', 'med', true],
      ['trend', 'p(95)', true],
      ['trend', 'p(99.9)', true],
      ['trend', 'count', false],
      ['trend', 'rate', false],
      ['trend', 'value', false],
      ['counter', 'count', true],
      ['counter', 'rate', true],
      ['counter', 'avg', false],
      ['counter', 'p(95)', false],
      ['gauge', 'value', true],
      ['gauge', 'avg', false],
      ['gauge', 'count', false],
      ['rate', 'rate', true],
      ['rate', 'count', false],
      ['rate', 'value', false],
    ];
    for (const [kind, agg, ok] of table) expect([kind, agg, aggregationAllowed(kind, agg)]).toEqual([kind, agg, ok]);
  });
});

describe('compare and evaluateThreshold', () => {
  it('compares with every operator', () => {
    expect([
      compare(1, '<', 2), compare(2, '<', 2), compare(2, '<=', 2), compare(3, '>', 2), compare(2, '>=', 2),
    ]).toEqual([true, false, true, true, true]);
    expect([compare(2, '==', 2), compare(2, '===', 2), compare(2, '!=', 2), compare(1, '!=', 2)]).toEqual([
      true, true, false, true,
    ]);
  });

  it('reads the aggregation from the values', () => {
    const values = { avg: 6.45, 'p(95)': 7.21, count: 4 };
    expect(evaluateThreshold(parsed('p(95)<5000'), values, 'trend')).toBe(true);
    expect(evaluateThreshold(parsed('avg<1'), values, 'trend')).toBe(false);
    expect(evaluateThreshold(parsed('rate>0.5'), { rate: 0.97, passes: 41, fails: 1 }, 'rate')).toBe(true);
    expect(evaluateThreshold(parsed('rate>0.99'), { rate: 0.97, passes: 41, fails: 1 }, 'rate')).toBe(false);
    expect(evaluateThreshold(parsed('count>=10'), { count: 10, rate: 2 }, 'counter')).toBe(true);
  });

  it("follows k6 for a Trend sub-metric with no samples: every statistic 0, " +
    "so p(95)<5000 passes and avg>0 fails", () => {
    const empty = { avg: 0, min: 0, med: 0, max: 0, 'p(90)': 0, 'p(95)': 0, 'p(99)': 0, count: 0 };
    expect(evaluateThreshold(parsed('p(95)<5000'), empty, 'trend')).toBe(true);
    expect(evaluateThreshold(parsed('avg>0'), empty, 'trend')).toBe(false);
    expect(evaluateThreshold(parsed('max>=0'), empty, 'trend')).toBe(true);
    // No values at all reads as 0 too.
    expect(evaluateThreshold(parsed('avg>0'), {}, 'trend')).toBe(false);
  });

  it('follows k6 for a Counter with no samples: count = rate = 0', () => {
    expect(evaluateThreshold(parsed('count>0'), { count: 0, rate: 0 }, 'counter')).toBe(false);
    expect(evaluateThreshold(parsed('count<1'), { count: 0, rate: 0 }, 'counter')).toBe(true);
  });

  it('follows k6 for a Rate with no samples: it passes, whether the values are absent or written as k6 writes them ' +
    '(rate 0)', () => {
    expect(evaluateThreshold(parsed('rate>=0.99'), {}, 'rate')).toBe(true);
    // k6's RateSink.Format gives rate 0 when empty, and handleSummary adds passes and fails.
    expect(evaluateThreshold(parsed('rate>=0.99'), { rate: 0, passes: 0, fails: 0 }, 'rate')).toBe(true);
    // Only a rate with no counts cannot be known empty: it is evaluated.
    expect(evaluateThreshold(parsed('rate>=0.99'), { rate: 0 }, 'rate')).toBe(false);
    expect(evaluateThreshold(parsed('rate>=0.99'), { rate: 0, passes: 0, fails: 3 }, 'rate')).toBe(false);
  });
});

describe('parseMetricKey', () => {
  it('reads a plain metric and tag filters, trimming spaces and quotes', () => {
    expect(parseMetricKey('llm_ttft')).toEqual({ ok: true, value: { metric: 'llm_ttft', tags: {} } });
    expect(parseMetricKey('llm_ttft{cell:chat_32k}')).toEqual({
      ok: true, value: { metric: 'llm_ttft', tags: { cell: 'chat_32k' } },
    });
    expect(parseMetricKey(' llm_ttft { cell : chat_32k , use_case:"general_chatbot" }')).toEqual({
      ok: true, value: { metric: 'llm_ttft', tags: { cell: 'chat_32k', use_case: 'general_chatbot' } },
    });
    expect(parseMetricKey("http_req_duration{url:'http://x:8000/v1', name:`a`}")).toEqual({
      ok: true, value: { metric: 'http_req_duration', tags: { url: 'http://x:8000/v1', name: 'a' } },
    });
  });

  it('rejects a missing brace or a filter without a colon', () => {
    expect(parseMetricKey('llm_ttft{cell:a')).toEqual({
      ok: false, error: 'thresholds key "llm_ttft{cell:a": missing closing "}"',
    });
    expect(parseMetricKey('llm_ttft{cell}')).toEqual({
      ok: false, error: 'thresholds key "llm_ttft{cell}": tag filter "cell" must be name:value',
    });
  });

  it('formats the canonical key in the order written', () => {
  });
});

describe('the golden k6 summary (test/fixtures/k6-golden/handle-summary-data.json)', () => {
  interface GoldenMetric {
    type: MetricKind;
    values: Record<string, number>;
    thresholds?: Record<string, { ok: boolean }>;
  }
  const golden = JSON.parse(readFileSync(path.join(GOLDEN_DIR, 'handle-summary-data.json'), 'utf8')) as {
    metrics: Record<string, GoldenMetric>;
  };

  it('evaluating each threshold from its values gives the ok flag k6 wrote', () => {
    const seen: string[] = [];
    for (const [key, metric] of Object.entries(golden.metrics)) {
      if (!metric.thresholds) continue;
      const k = parseMetricKey(key);
      expect(k.ok).toBe(true);
      for (const [expr, { ok }] of Object.entries(metric.thresholds)) {
        const t = parsed(expr);
        expect(aggregationAllowed(metric.type, t.aggregation)).toBe(true);
        expect([key, expr, evaluateThreshold(t, metric.values, metric.type)]).toEqual([key, expr, ok]);
        seen.push(`${key} ${expr} ${ok}`);
      }
    }
    // The file holds a passing, a failing and an empty-sub-metric threshold.
    expect(seen.sort()).toEqual([
      'checks rate>0.5 true',
      'llm_decode_speed{cell:none} avg>0 false',
      'llm_request_ok rate>0.5 true',
      'llm_ttft{cell:ctx1k_c2} p(95)<5000 true',
      'llm_ttft{cell:ctx1k_c4} avg<1 false',
      'llm_ttft{cell:ctx1k_c4} p(95)<5000 true',
    ]);
  });
});
