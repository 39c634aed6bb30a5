// Tests for deploy/grafana/promql.ts: selectors and cross-runner aggregations. Runs in Node (vitest).
// The selectors are over the cell tags; both are checked as exact strings.

import { describe, expect, it } from 'vitest';
import { REQUEST_METRICS } from '../../lib/metrics';
import {
  cellMatchers, orZerosLike, selector, totalOverRange, trendMean, trendPercentile,
} from '../../deploy/grafana/promql';
import { rawServerNames, thresholdSteps, limitValues } from '../../deploy/grafana/dashboard';

const T = [{ label: 'testid', op: '=~' as const, value: '$testid' }];

describe('selectors', () => {
  it('quotes values and keeps the order', () => {
    expect(selector([...T, { label: 'cell', op: '=', value: 'a"b' }])).toBe('{testid=~"$testid", cell="a\\"b"}');
  });

  it('filters on testid and the four cell variables, pinning overrides, and leaves out warm-up and transition ' +
    'requests', () => {
    expect(selector(cellMatchers({ use_case: 'general_chatbot' }))).toBe(
      '{testid=~"$testid", cell=~"$cell", use_case="general_chatbot", context=~"$context", ' +
      'concurrency=~"$concurrency", phase!~"warmup|transition"}',
    );
    // Counts of all the work done keep every phase.
    expect(selector(cellMatchers({}, false))).toBe(
      '{testid=~"$testid", cell=~"$cell", use_case=~"$use_case", context=~"$context", concurrency=~"$concurrency"}',
    );
  });
});

describe('aggregations across runners', () => {
  it('weights means by sample count', () => {
    expect(trendMean(REQUEST_METRICS.ttft, T, ['cell'], 'live')).toBe(
      'sum by (cell) (k6_llm_ttft_avg{testid=~"$testid"} * k6_llm_ttft_count{testid=~"$testid"}) / sum by (cell) ' +
      '(k6_llm_ttft_count{testid=~"$testid"})',
    );
  });

  it('bounds percentiles on the cautious side: max for latencies, min for speeds', () => {
    expect(trendPercentile(REQUEST_METRICS.ttft, 'p(95)', T, ['cell'], 'live')).toBe(
      'max by (cell) (k6_llm_ttft_p95{testid=~"$testid"})',
    );
    expect(trendPercentile(REQUEST_METRICS.decodeSpeed, 'p(50)', T, ['cell'], 'final')).toBe(
      'min by (cell) (last_over_time(k6_llm_decode_speed_p50{testid=~"$testid"}[$__range]))',
    );
  });

  it('totals a cumulative series as the sum of each series maximum', () => {
    expect(totalOverRange('k6_llm_errors_total', T, ['error_kind'])).toBe(
      'sum by (error_kind) (max_over_time(k6_llm_errors_total{testid=~"$testid"}[$__range]))',
    );
    expect(orZerosLike('a', 'b')).toBe('(a or (b * 0))');
  });
});

describe('limits and server names', () => {
  it('collects the distinct limits of the use-case table in Prometheus units', () => {
    expect(limitValues('ttft')).toEqual([8, 10, 12]);
    expect(limitValues('decodeSpeed')).toEqual([10, 15, 20]);
    expect(limitValues('e2e')).toEqual([2]);
    expect(limitValues('itl')).toEqual([]);
  });

  it('colours worse beyond each line, in the metric\'s direction', () => {
    expect(thresholdSteps([2], true)).toEqual([{ color: 'green', value: null }, { color: 'red', value: 2 }]);
    expect(thresholdSteps([15], false)).toEqual([{ color: 'red', value: null }, { color: 'green', value: 15 }]);
  });

  it('reads the raw server names from the table the monitor scrapes with (lib/prometheus.ts)', () => {
    expect(rawServerNames('running')).toEqual([
      'vllm:num_requests_running', 'sglang:num_running_reqs', 'llamacpp:requests_processing',
    ]);
    expect(rawServerNames('powerWatts')).toEqual(['DCGM_FI_DEV_POWER_USAGE']);
    expect(rawServerNames('kvCacheUsage')).toEqual([
      'vllm:kv_cache_usage_perc', 'vllm:gpu_cache_usage_perc', 'sglang:token_usage',
    ]);
    expect(rawServerNames('prefillSecondsTotal')).toEqual(['llamacpp:prompt_seconds_total']);
    expect(rawServerNames('scrapeOk')).toEqual([]);
  });
});
