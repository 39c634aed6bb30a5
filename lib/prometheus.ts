// Prometheus text-format reading for the monitor scenario. Runs in k6 and Node.
// It reads flat samples, and the server figures the suite tracks (vLLM, SGLang, DCGM).
//
// Hand-written rather than parse-prometheus-text-format: that package (last released 2019) drops
// histogram _sum/_count samples that carry labels and does not map `_total` counters to their
// family, which are exactly the samples the suite needs. The exposition format is line-based and small.

export interface PromSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

function unescapeLabel(value: string): string {
  return value.replace(/\\(.)/g, (_m, c: string) => (c === 'n' ? '\n' : c));
}

function parseValue(text: string): number {
  switch (text) {
    case '+Inf':
      return Infinity;
    case '-Inf':
      return -Infinity;
    case 'NaN':
      return NaN;
    default:
      return Number(text);
  }
}

/** Parses exposition text into samples; comment, blank and unparseable lines are skipped. */
export function parsePrometheusText(text: string): PromSample[] {
  const samples: PromSample[] = [];
  for (const rawLine of text.split('\n')) {
    const line = rawLine.trim();
    if (line === '' || line.startsWith('#')) continue;
    let name: string;
    const labels: Record<string, string> = {};
    let rest: string;
    const brace = line.indexOf('{');
    const space = line.search(/\s/);
    if (brace >= 0 && (space < 0 || brace < space)) {
      name = line.slice(0, brace);
      // Walk the label set by hand: values may contain commas, braces and escaped quotes.
      let i = brace + 1;
      let ok = true;
      while (i < line.length && line[i] !== '}') {
        while (line[i] === ' ' || line[i] === ',') i++;
        if (line[i] === '}') break;
        const eq = line.indexOf('=', i);
        if (eq < 0 || line[eq + 1] !== '"') {
          ok = false;
          break;
        }
        const key = line.slice(i, eq).trim();
        let j = eq + 2;
        let value = '';
        while (j < line.length && line[j] !== '"') {
          if (line[j] === '\\' && j + 1 < line.length) {
            value += line.slice(j, j + 2);
            j += 2;
          } else {
            value += line[j];
            j++;
          }
        }
        if (j >= line.length) {
          ok = false;
          break;
        }
        labels[key] = unescapeLabel(value);
        i = j + 1;
      }
      if (!ok || line[i] !== '}') continue;
      rest = line.slice(i + 1).trim();
    } else {
      if (space < 0) continue;
      name = line.slice(0, space);
      rest = line.slice(space).trim();
    }
    const valueText = rest.split(/\s+/)[0] ?? '';
    const value = parseValue(valueText);
    if (valueText === '' || (Number.isNaN(value) && valueText !== 'NaN')) continue;
    samples.push({ name, labels, value });
  }
  return samples;
}

/** Sum of all samples with this name (over label sets: GPUs, engines); null when absent. */
export function sumSamples(samples: readonly PromSample[], name: string): number | null {
  let found = false;
  let total = 0;
  for (const s of samples) {
    if (s.name === name && isFinite(s.value)) {
      found = true;
      total += s.value;
    }
  }
  return found ? total : null;
}

/** The server figures the monitor records, keyed like SERVER_METRICS in lib/server-metrics.ts. */
export interface ServerSnapshot {
  running: number | null;
  waiting: number | null;
  kvCacheUsage: number | null;
  powerWatts: number | null;
  promptTokensTotal: number | null;
  generationTokensTotal: number | null;
  preemptionsTotal: number | null;
  queueTimeSum: number | null;
  queueTimeCount: number | null;
  prefillTimeSum: number | null;
  prefillTimeCount: number | null;
  serverTtftSum: number | null;
  serverTtftCount: number | null;
  serverItlSum: number | null;
  serverItlCount: number | null;
  serverE2eSum: number | null;
  serverE2eCount: number | null;
  prefixCacheQueriesTotal: number | null;
  prefixCacheHitsTotal: number | null;
  prefixCacheHitRate: number | null;
  prefillSecondsTotal: number | null;
  decodeSecondsTotal: number | null;
}

/**
 * Where each figure is read from, first name found wins: vLLM (V1 names, then older ones), then SGLang, then llama.cpp.
 */
export const SERVER_METRIC_SOURCES: Readonly<Record<keyof ServerSnapshot, readonly string[]>> = {
  running: ['vllm:num_requests_running', 'sglang:num_running_reqs', 'llamacpp:requests_processing'],
  waiting: ['vllm:num_requests_waiting', 'sglang:num_queue_reqs', 'llamacpp:requests_deferred'],
  kvCacheUsage: ['vllm:kv_cache_usage_perc', 'vllm:gpu_cache_usage_perc', 'sglang:token_usage'],
  powerWatts: ['DCGM_FI_DEV_POWER_USAGE'],
  promptTokensTotal: ['vllm:prompt_tokens_total', 'sglang:prompt_tokens_total', 'llamacpp:prompt_tokens_total'],
  generationTokensTotal: [
    'vllm:generation_tokens_total', 'sglang:generation_tokens_total', 'llamacpp:tokens_predicted_total',
  ],
  // SGLang's counter says `requests` (0.5.23, checked on the real server); `num_retracted_reqs` is its gauge.
  preemptionsTotal: ['vllm:num_preemptions_total', 'sglang:num_retracted_requests_total'],
  queueTimeSum: ['vllm:request_queue_time_seconds_sum', 'sglang:queue_time_seconds_sum'],
  queueTimeCount: ['vllm:request_queue_time_seconds_count', 'sglang:queue_time_seconds_count'],
  prefillTimeSum: ['vllm:request_prefill_time_seconds_sum'],
  prefillTimeCount: ['vllm:request_prefill_time_seconds_count'],
  serverTtftSum: ['vllm:time_to_first_token_seconds_sum', 'sglang:time_to_first_token_seconds_sum'],
  serverTtftCount: ['vllm:time_to_first_token_seconds_count', 'sglang:time_to_first_token_seconds_count'],
  serverItlSum: ['vllm:inter_token_latency_seconds_sum', 'sglang:inter_token_latency_seconds_sum'],
  serverItlCount: ['vllm:inter_token_latency_seconds_count', 'sglang:inter_token_latency_seconds_count'],
  serverE2eSum: ['vllm:e2e_request_latency_seconds_sum', 'sglang:e2e_request_latency_seconds_sum'],
  serverE2eCount: ['vllm:e2e_request_latency_seconds_count', 'sglang:e2e_request_latency_seconds_count'],
  // SGLang looks every prompt token up in its radix tree and counts the hits at a request's end (by cache source).
  prefixCacheQueriesTotal: ['vllm:prefix_cache_queries_total', 'sglang:prompt_tokens_total'],
  prefixCacheHitsTotal: ['vllm:prefix_cache_hits_total', 'sglang:cached_tokens_total'],
  prefixCacheHitRate: ['sglang:cache_hit_rate'],
  // llama.cpp times prompt processing and generation per slot and adds them up: over a window, tokens
  // over seconds is the speed one request saw, as the server measured it.
  prefillSecondsTotal: ['llamacpp:prompt_seconds_total'],
  decodeSecondsTotal: ['llamacpp:tokens_predicted_seconds_total'],
};

/** Figures that are fractions per engine: averaged over label sets (data-parallel engines), not summed. */
const AVERAGED: ReadonlySet<keyof ServerSnapshot> = new Set(['kvCacheUsage', 'prefixCacheHitRate']);

function meanSamples(samples: readonly PromSample[], name: string): number | null {
  const values = samples.filter((s) => s.name === name && isFinite(s.value)).map((s) => s.value);
  return values.length === 0 ? null : values.reduce((a, b) => a + b, 0) / values.length;
}

/** Reads the tracked figures from parsed samples; a figure the server does not expose is null. */
export function readServerSnapshot(samples: readonly PromSample[]): ServerSnapshot {
  const snapshot = {} as ServerSnapshot;
  for (const key of Object.keys(SERVER_METRIC_SOURCES) as (keyof ServerSnapshot)[]) {
    let value: number | null = null;
    for (const name of SERVER_METRIC_SOURCES[key]) {
      value = AVERAGED.has(key) ? meanSamples(samples, name) : sumSamples(samples, name);
      if (value !== null) break;
    }
    snapshot[key] = value;
  }
  return snapshot;
}
