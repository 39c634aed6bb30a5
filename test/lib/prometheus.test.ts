// Tests for lib/prometheus.ts: exposition text parsing and server figures. Runs in Node (vitest).
// The server figures are read from vLLM, SGLang, llama.cpp and DCGM names.

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parsePrometheusText, readServerSnapshot, sumSamples } from '../../lib/prometheus';

// Shape of vLLM V1's /metrics (vllm/v1/metrics/loggers.py): labels engine and model_name,
// histograms as _bucket/_sum/_count with le, float values written with ".0".
const VLLM = `# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8"} 3.0
# HELP vllm:num_requests_waiting Number of requests waiting to be processed.
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{engine="0",model_name="Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8"} 1.0
vllm:kv_cache_usage_perc{engine="0",model_name="Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8"} 0.25
# TYPE vllm:prompt_tokens_total counter
vllm:prompt_tokens_total{engine="0",model_name="Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8"} 123456.0
vllm:generation_tokens_total{engine="0",model_name="Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8"} 7890.0
vllm:num_preemptions_total{engine="0",model_name="Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8"} 2.0
# TYPE vllm:request_queue_time_seconds histogram
vllm:request_queue_time_seconds_bucket{engine="0",le="0.3",model_name="Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8"} 5.0
vllm:request_queue_time_seconds_bucket{engine="0",le="+Inf",model_name="Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8"} 10.0
vllm:request_queue_time_seconds_sum{engine="0",model_name="Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8"} 1.5
vllm:request_queue_time_seconds_count{engine="0",model_name="Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8"} 10.0
vllm:request_prefill_time_seconds_sum{engine="0",model_name="Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8"} 4.25
vllm:request_prefill_time_seconds_count{engine="0",model_name="Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8"} 10.0
vllm:time_to_first_token_seconds_sum{engine="0",model_name="Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8"} 6.5
vllm:time_to_first_token_seconds_count{engine="0",model_name="Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8"} 10.0
vllm:inter_token_latency_seconds_sum{engine="0",model_name="Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8"} 3.1
vllm:inter_token_latency_seconds_count{engine="0",model_name="Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8"} 310.0
vllm:e2e_request_latency_seconds_sum{engine="0",model_name="Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8"} 12.5
vllm:e2e_request_latency_seconds_count{engine="0",model_name="Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8"} 10.0
vllm:prefix_cache_queries_total{engine="0",model_name="Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8"} 2048.0
vllm:prefix_cache_hits_total{engine="0",model_name="Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8"} 512.0
`;

// SGLang's /metrics (sglang/srt/metrics/collector.py): sglang: prefix, labels such as model_name.
const SGLANG = `# TYPE sglang:num_running_reqs gauge
sglang:num_running_reqs{model_name="default"} 7.0
sglang:num_queue_reqs{model_name="default"} 2.0
sglang:token_usage{model_name="default"} 0.5
sglang:prompt_tokens_total{model_name="default"} 1000.0
sglang:generation_tokens_total{model_name="default"} 400.0
sglang:num_retracted_requests_total{model_name="default"} 1.0
sglang:queue_time_seconds_sum{model_name="default"} 0.75
sglang:queue_time_seconds_count{model_name="default"} 3.0
sglang:time_to_first_token_seconds_sum{model_name="default"} 1.25
sglang:time_to_first_token_seconds_count{model_name="default"} 5.0
sglang:inter_token_latency_seconds_sum{model_name="default"} 0.5
sglang:inter_token_latency_seconds_count{model_name="default"} 40.0
sglang:e2e_request_latency_seconds_sum{model_name="default"} 2.5
sglang:e2e_request_latency_seconds_count{model_name="default"} 4.0
sglang:cache_hit_rate{model_name="default"} 0.4
sglang:cached_tokens_total{model_name="default",cache_source="device"} 300.0
sglang:cached_tokens_total{model_name="default",cache_source="host"} 20.0
`;

// NVIDIA dcgm-exporter: one power gauge per GPU (watts).
const DCGM = `# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).
# TYPE DCGM_FI_DEV_POWER_USAGE gauge
DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-aaaa",device="nvidia0",modelName="NVIDIA H200",Hostname="node1"} 350.5
DCGM_FI_DEV_POWER_USAGE{gpu="1",UUID="GPU-bbbb",device="nvidia1",modelName="NVIDIA H200",Hostname="node1"} 400.25
`;

describe('parsePrometheusText', () => {
  it('reads names, labels and values; skips comments and blank lines', () => {
    const samples = parsePrometheusText(VLLM);
    expect(samples).toHaveLength(20);
    expect(samples[0]).toEqual({
      name: 'vllm:num_requests_running', labels: { engine: '0', model_name: 'Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8' },
      value: 3,
    });
    const queueBuckets = samples.filter((s) => s.name === 'vllm:request_queue_time_seconds_bucket');
    expect(queueBuckets.map((s) => [s.labels.le, s.value])).toEqual([
      ['0.3', 5],
      ['+Inf', 10],
    ]);
  });

  it('handles escaped quotes, backslashes, newlines, commas and braces inside label values', () => {
    const [s] = parsePrometheusText(
      'http_requests_total{path="/a,b}",msg="say \\"hi\\", then\\\\leave\\nnow", code="200"} 7\n',
    );
    expect(s).toEqual({
      name: 'http_requests_total', labels: { path: '/a,b}', msg: 'say "hi", then\\leave\nnow', code: '200' }, value: 7,
    });
  });

  it('reads +Inf, -Inf, NaN, exponents, timestamps, empty label sets, CRLF', () => {
    const text = 'a +Inf\r\nb -Inf\r\nc NaN\r\nd 1.5e3 1700000000000\r\ne{} 4\r\n  f 5  \r\n';
    expect(parsePrometheusText(text).map((s) => [s.name, s.value])).toEqual([
      ['a', Infinity],
      ['b', -Infinity],
      ['c', NaN],
      ['d', 1500],
      ['e', 4],
      ['f', 5],
    ]);
  });

  it('skips lines it cannot read', () => {
    expect(parsePrometheusText('no_value\nbad value\nunterminated{a="x} 1\nnoquote{a=x} 1\nok 1\n')).toEqual([
      { name: 'ok', labels: {}, value: 1 },
    ]);
  });
});

describe('sumSamples and readServerSnapshot: vLLM and SGLang names', () => {
  it('vLLM names', () => {
    expect(readServerSnapshot(parsePrometheusText(VLLM))).toEqual({
      running: 3,
      waiting: 1,
      kvCacheUsage: 0.25,
      powerWatts: null,
      promptTokensTotal: 123456,
      generationTokensTotal: 7890,
      preemptionsTotal: 2,
      queueTimeSum: 1.5,
      queueTimeCount: 10,
      prefillTimeSum: 4.25,
      prefillTimeCount: 10,
      serverTtftSum: 6.5,
      serverTtftCount: 10,
      serverItlSum: 3.1,
      serverItlCount: 310,
      serverE2eSum: 12.5,
      serverE2eCount: 10,
      prefixCacheQueriesTotal: 2048,
      prefixCacheHitsTotal: 512,
      prefixCacheHitRate: null,
      prefillSecondsTotal: null,
      decodeSecondsTotal: null,
    });
  });

  it('SGLang names; figures SGLang lacks are null', () => {
    expect(readServerSnapshot(parsePrometheusText(SGLANG))).toEqual({
      running: 7,
      waiting: 2,
      kvCacheUsage: 0.5,
      powerWatts: null,
      promptTokensTotal: 1000,
      generationTokensTotal: 400,
      preemptionsTotal: 1,
      queueTimeSum: 0.75,
      queueTimeCount: 3,
      prefillTimeSum: null,
      prefillTimeCount: null,
      serverTtftSum: 1.25,
      serverTtftCount: 5,
      serverItlSum: 0.5,
      serverItlCount: 40,
      serverE2eSum: 2.5,
      serverE2eCount: 4,
      // Every prompt token is looked up; the hits are summed over the cache sources.
      prefixCacheQueriesTotal: 1000,
      prefixCacheHitsTotal: 320,
      prefixCacheHitRate: 0.4,
      prefillSecondsTotal: null,
      decodeSecondsTotal: null,
    });
  });
});

describe('readServerSnapshot: llama.cpp, DCGM power, older vLLM and missing figures', () => {
  it("llama.cpp names, read from a real llama-server's /metrics (test/fixtures/llama-server)", () => {
    const text = readFileSync(path.join(import.meta.dirname, '..', 'fixtures', 'llama-server', 'metrics.txt'), 'utf8');
    expect(readServerSnapshot(parsePrometheusText(text))).toEqual({
      running: 0,
      waiting: 0,
      kvCacheUsage: null,
      powerWatts: null,
      promptTokensTotal: 35,
      generationTokensTotal: 72,
      preemptionsTotal: null,
      queueTimeSum: null,
      queueTimeCount: null,
      prefillTimeSum: null,
      prefillTimeCount: null,
      serverTtftSum: null,
      serverTtftCount: null,
      serverItlSum: null,
      serverItlCount: null,
      serverE2eSum: null,
      serverE2eCount: null,
      prefixCacheQueriesTotal: null,
      prefixCacheHitsTotal: null,
      prefixCacheHitRate: null,
      prefillSecondsTotal: 0.012578,
      decodeSecondsTotal: 0.235786,
    });
  });

  it('DCGM power is summed over GPUs (the monitor appends the exporter text to the server text)', () => {
    const snapshot = readServerSnapshot(parsePrometheusText(`${VLLM}\n${DCGM}`));
    expect(snapshot.powerWatts).toBe(750.75);
    expect(snapshot.running).toBe(3);
  });

  it('older vLLM: gpu_cache_usage_perc when kv_cache_usage_perc is absent', () => {
    expect(
      readServerSnapshot(parsePrometheusText('vllm:gpu_cache_usage_perc{model_name="m"} 0.125\n')).kvCacheUsage,
    ).toBe(0.125);
  });

  it('missing figures are null; NaN and infinite samples are not summed', () => {
    const snapshot = readServerSnapshot(parsePrometheusText('# nothing\nunrelated_metric 1\n'));
    expect(Object.values(snapshot).every((v) => v === null)).toBe(true);
    const samples = parsePrometheusText('x{i="0"} NaN\nx{i="1"} +Inf\ny{i="0"} NaN\ny{i="1"} 2\n');
    expect(sumSamples(samples, 'x')).toBeNull();
    expect(sumSamples(samples, 'y')).toBe(2);
    expect(sumSamples(samples, 'z')).toBeNull();
  });
});
