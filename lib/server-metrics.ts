// The server half of the metric table (lib/metrics.ts): the llm_server_* samples the monitor scenario takes from the
// target's /metrics endpoint, with the servers' own metric names each is read from (lib/prometheus.ts). Runs in k6
// and Node.

import type { MetricDefinition } from './metric-definition';

/**
 * Server-side samples taken by the monitor scenario from the target's /metrics endpoint.
 * Counters and histogram sums/counts are sampled as cumulative values (Gauges): the report takes
 * differences across a cell's time window, so a scrape interval never biases a cell's figures.
 */
export const SERVER_METRICS = {
  running: {
    name: 'llm_server_running',
    kind: 'gauge',
    isTime: false,
    unit: 'requests',
    description:
      'Requests the engine is running (vllm:num_requests_running, sglang:num_running_reqs, ' +
      'llamacpp:requests_processing).',
  },
  waiting: {
    name: 'llm_server_waiting',
    kind: 'gauge',
    isTime: false,
    unit: 'requests',
    description:
      'Requests waiting in the engine queue (vllm:num_requests_waiting, sglang:num_queue_reqs, ' +
      'llamacpp:requests_deferred).',
  },
  kvCacheUsage: {
    name: 'llm_server_kv_cache_usage',
    kind: 'gauge',
    isTime: false,
    unit: 'ratio',
    description: 'KV-cache usage 0..1 (vllm:kv_cache_usage_perc, sglang:token_usage).',
  },
  powerWatts: {
    name: 'llm_server_power_watts',
    kind: 'gauge',
    isTime: false,
    unit: 'watts',
    description: 'GPU power draw summed over GPUs (DCGM_FI_DEV_POWER_USAGE).',
  },
  promptTokensTotal: {
    name: 'llm_server_prompt_tokens_total',
    kind: 'gauge',
    isTime: false,
    unit: 'tokens',
    description:
      'Cumulative prompt tokens processed by the server (vllm:prompt_tokens_total, llamacpp:prompt_tokens_total).',
  },
  generationTokensTotal: {
    name: 'llm_server_generation_tokens_total',
    kind: 'gauge',
    isTime: false,
    unit: 'tokens',
    description: 'Cumulative generated tokens (vllm:generation_tokens_total, llamacpp:tokens_predicted_total).',
  },
  preemptionsTotal: {
    name: 'llm_server_preemptions_total',
    kind: 'gauge',
    isTime: false,
    unit: 'count',
    description: 'Cumulative preemptions (vllm:num_preemptions_total).',
  },
  queueTimeSum: {
    name: 'llm_server_queue_time_sum',
    kind: 'gauge',
    isTime: false,
    unit: 'seconds',
    description: 'Cumulative sum of request queue time in seconds (vllm:request_queue_time_seconds_sum).',
  },
  queueTimeCount: {
    name: 'llm_server_queue_time_count',
    kind: 'gauge',
    isTime: false,
    unit: 'requests',
    description: 'Cumulative count of requests with a queue time (vllm:request_queue_time_seconds_count).',
  },
  prefillTimeSum: {
    name: 'llm_server_prefill_time_sum',
    kind: 'gauge',
    isTime: false,
    unit: 'seconds',
    description: 'Cumulative sum of request prefill time in seconds (vllm:request_prefill_time_seconds_sum).',
  },
  prefillTimeCount: {
    name: 'llm_server_prefill_time_count',
    kind: 'gauge',
    isTime: false,
    unit: 'requests',
    description: 'Cumulative count of requests with a prefill time (vllm:request_prefill_time_seconds_count).',
  },
  serverTtftSum: {
    name: 'llm_server_ttft_sum',
    kind: 'gauge',
    isTime: false,
    unit: 'seconds',
    description: 'Cumulative server-side TTFT sum in seconds (vllm:time_to_first_token_seconds_sum).',
  },
  serverTtftCount: {
    name: 'llm_server_ttft_count',
    kind: 'gauge',
    isTime: false,
    unit: 'requests',
    description: 'Cumulative server-side TTFT count (vllm:time_to_first_token_seconds_count).',
  },
  serverItlSum: {
    name: 'llm_server_itl_sum',
    kind: 'gauge',
    isTime: false,
    unit: 'seconds',
    description: 'Cumulative server-side inter-token latency sum in seconds (vllm:inter_token_latency_seconds_sum).',
  },
  serverItlCount: {
    name: 'llm_server_itl_count',
    kind: 'gauge',
    isTime: false,
    unit: 'count',
    description: 'Cumulative count of server-side token gaps (vllm:inter_token_latency_seconds_count).',
  },
  serverE2eSum: {
    name: 'llm_server_e2e_sum',
    kind: 'gauge',
    isTime: false,
    unit: 'seconds',
    description: 'Cumulative server-side request latency sum in seconds (vllm:e2e_request_latency_seconds_sum).',
  },
  serverE2eCount: {
    name: 'llm_server_e2e_count',
    kind: 'gauge',
    isTime: false,
    unit: 'requests',
    description: 'Cumulative count of requests the server timed end to end (vllm:e2e_request_latency_seconds_count).',
  },
  prefixCacheQueriesTotal: {
    name: 'llm_server_prefix_cache_queries_total',
    kind: 'gauge',
    isTime: false,
    unit: 'tokens',
    description: 'Cumulative prompt tokens looked up in the prefix cache (vllm:prefix_cache_queries_total).',
  },
  prefixCacheHitsTotal: {
    name: 'llm_server_prefix_cache_hits_total',
    kind: 'gauge',
    isTime: false,
    unit: 'tokens',
    description: 'Cumulative prompt tokens found in the prefix cache (vllm:prefix_cache_hits_total).',
  },
  prefixCacheHitRate: {
    name: 'llm_server_prefix_cache_hit_rate',
    kind: 'gauge',
    isTime: false,
    unit: 'ratio',
    description:
      "The server's own prefix-cache hit rate 0..1, for servers that expose a rate rather than counters " +
      "(sglang:cache_hit_rate).",
  },
  prefillSecondsTotal: {
    name: 'llm_server_prefill_seconds_total',
    kind: 'gauge',
    isTime: false,
    unit: 'seconds',
    description:
      'Cumulative seconds the server spent processing prompts, summed over its slots (llamacpp:prompt_seconds_total).',
  },
  decodeSecondsTotal: {
    name: 'llm_server_decode_seconds_total',
    kind: 'gauge',
    isTime: false,
    unit: 'seconds',
    description:
      'Cumulative seconds the server spent generating, summed over its slots ' +
      '(llamacpp:tokens_predicted_seconds_total).',
  },
  scrapeOk: {
    name: 'llm_server_scrape_ok',
    kind: 'rate',
    isTime: false,
    unit: 'ratio',
    description: 'One sample per scrape of the metrics endpoint: 1 when it answered 200 with parseable text.',
  },
} as const satisfies Record<string, MetricDefinition>;
