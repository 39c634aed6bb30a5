// The simulator's /metrics content: vLLM (or SGLang) metric names fed by engine events, plus the DCGM power gauge.
// Runs in Node.

import type { FinishedEvent, TokenEvent } from './engine';
import { BUCKETS, Counter, Gauge, Histogram, Registry, type Labels } from './metrics-exposition';
import type { Flavour } from './profiles';
import { smoothTowards } from './step-time';

/** Live engine state read at scrape time. */
export interface EngineState {
  running(): number;
  waiting(): number;
  /** 0..1 */
  kvUsage(): number;
  /** Power of one GPU, watts (tensor-parallel GPUs run the same steps, so each draws the same). */
  powerWatts(): number;
}

/** The GPUs behind the server, for the DCGM gauge: one series per GPU, as dcgm-exporter writes them. */
export interface GpuInfo {
  readonly count: number;
  /** dcgm-exporter's modelName label, e.g. "NVIDIA H200". */
  readonly name: string;
}

/** Simulated GPU power with the model's 0.5 s first-order lag towards the current step's target. */
export class PowerMeter {
  private watts: number;
  private target: number;
  private atMs: number;

  constructor(readonly idleWatts: number, nowMs: number) {
    this.watts = idleWatts;
    this.target = idleWatts;
    this.atMs = nowMs;
  }

  /** Moves to a new target (the power of the step starting now, or idle). */
  setTarget(targetWatts: number, nowMs: number): void {
    this.watts = smoothTowards(this.watts, this.target, nowMs - this.atMs);
    this.atMs = nowMs;
    this.target = targetWatts;
  }

  read(nowMs: number): number {
    return smoothTowards(this.watts, this.target, nowMs - this.atMs);
  }
}

export interface SimMetrics {
  onTokens(tokens: readonly TokenEvent[], promptTokensOf: (id: string) => number): void;
  onFinished(ev: FinishedEvent): void;
  onPreemptions(n: number): void;
  /** Prefix-cache lookups of the requests admitted in one engine step, in tokens. */
  onPrefixCache(queryTokens: number, hitTokens: number): void;
  render(): string;
}

const S = 1000;

/** Metric set of the chosen flavour, labels model_name (and engine="0" for vLLM). */
export function createSimMetrics(
  flavour: Flavour,
  modelName: string,
  state: EngineState,
  cache: { blockSize: number; numGpuBlocks: number; prefixCaching: boolean },
  gpus: GpuInfo = { count: 1, name: 'NVIDIA H200' },
): SimMetrics {
  const reg = new Registry();
  const labels: Labels = flavour === 'vllm' ? { model_name: modelName, engine: '0' } : { model_name: modelName };
  // dcgm-exporter writes one series per GPU (labels gpu, UUID, device, modelName); a reader sums them for the
  // system's power (lib/prometheus.ts readServerSnapshot), so a two-GPU server reports twice one GPU's draw.
  const power = reg.add(new Gauge('DCGM_FI_DEV_POWER_USAGE', 'Power draw (in W).', {}));
  const gpuLabels: Labels[] = Array.from({ length: gpus.count }, (_, i) => ({
    gpu: String(i),
    UUID: `GPU-00000000-0000-0000-0000-${String(i).padStart(12, '0')}`,
    device: `nvidia${i}`,
    modelName: `${gpus.name} (simulated)`,
  }));
  const renderAll = (): string => {
    const watts = round(state.powerWatts(), 3);
    for (const l of gpuLabels) power.set(watts, l);
    return reg.render();
  };

  if (flavour === 'sglang') {
    reg.add(new Gauge('sglang:num_running_reqs', 'The number of running requests.', labels, state.running));
    reg.add(new Gauge('sglang:num_queue_reqs', 'The number of requests in the waiting queue.', labels, state.waiting));
    reg.add(new Gauge('sglang:token_usage', 'The token usage (0..1).', labels, state.kvUsage));
    const prompt = reg.add(new Counter('sglang:prompt_tokens', 'Number of prefill tokens processed.', labels));
    const gen = reg.add(new Counter('sglang:generation_tokens', 'Number of generation tokens processed.', labels));
    const reqs = reg.add(new Counter('sglang:num_requests', 'Number of requests processed.', labels));
    const retracted = reg.add(new Counter('sglang:num_retracted_requests', 'Number of retracted (preempted) requests.', labels));
    const ttft = reg.add(new Histogram(
      'sglang:time_to_first_token_seconds', 'Histogram of time to first token in seconds.', labels,
      BUCKETS.ttftSeconds,
    ));
    const itl = reg.add(new Histogram(
      'sglang:inter_token_latency_seconds', 'Histogram of inter-token latency in seconds.', labels,
      BUCKETS.itlSeconds,
    ));
    const e2e = reg.add(new Histogram(
      'sglang:e2e_request_latency_seconds', 'Histogram of End-to-end request latency in seconds', labels,
      BUCKETS.requestSeconds,
    ));
    const queue = reg.add(new Histogram(
      'sglang:queue_time_seconds', 'Histogram of queueing time in seconds.', labels, BUCKETS.requestSeconds,
    ));
    // SGLang sets it at each prefill batch: cached tokens / prompt tokens of the batch's new requests.
    const hitRate = reg.add(new Gauge('sglang:cache_hit_rate', 'The prefix cache hit rate.', labels));
    hitRate.set(0);
    // Counted by cache source; on one GPU and no host tier every hit is on the device.
    const cachedTokens = reg.add(new Counter(
      'sglang:cached_tokens', 'Number of cached prompt tokens by source (device/host/storage).',
      { ...labels, cache_source: 'device' },
    ));
    return {
      onTokens(tokens, promptOf) {
        for (const t of tokens) {
          gen.inc();
          if (t.index === 1) prompt.inc(promptOf(t.id));
          if (t.gapMs !== null) itl.observe(t.gapMs / S);
        }
      },
      onFinished(ev) {
        reqs.inc();
        if (ev.firstTokenMs !== null) ttft.observe((ev.firstTokenMs - ev.arrivalMs) / S);
        e2e.observe((ev.endMs - ev.arrivalMs) / S);
        if (ev.firstScheduledMs !== null) queue.observe((ev.firstScheduledMs - ev.queuedMs) / S);
      },
      onPreemptions(n) {
        retracted.inc(n);
      },
      onPrefixCache(queryTokens, hitTokens) {
        if (queryTokens > 0) hitRate.set(hitTokens / queryTokens);
        if (hitTokens > 0) cachedTokens.inc(hitTokens);
      },
      render: renderAll,
    };
  }

  reg.add(new Gauge('vllm:num_requests_running', 'Number of requests in model execution batches.', labels, state.running));
  reg.add(new Gauge('vllm:num_requests_waiting', 'Number of requests waiting to be processed.', labels, state.waiting));
  reg.add(new Gauge('vllm:kv_cache_usage_perc', 'KV-cache usage. 1 means 100 percent usage.', labels, state.kvUsage));
  const info = reg.add(new Gauge('vllm:cache_config_info', 'Information of the LLMEngine CacheConfig', {
    ...labels, block_size: String(cache.blockSize), num_gpu_blocks: String(cache.numGpuBlocks),
    enable_prefix_caching: cache.prefixCaching ? 'True' : 'False',
  }));
  info.set(1);
  // vLLM v1: at each admission, the request's tokens are queried and the cached ones counted as hits.
  const prefixQueries = reg.add(
    new Counter('vllm:prefix_cache_queries', 'Prefix cache queries, in terms of number of queried tokens.', labels),
  );
  const prefixHits = reg.add(new Counter('vllm:prefix_cache_hits', 'Prefix cache hits, in terms of number of cached tokens.', labels));
  const preemptions = reg.add(new Counter('vllm:num_preemptions', 'Cumulative number of preemption from the engine.', labels));
  const prompt = reg.add(new Counter('vllm:prompt_tokens', 'Number of prefill tokens processed.', labels));
  const gen = reg.add(new Counter('vllm:generation_tokens', 'Number of generation tokens processed.', labels));
  const success = reg.add(new Counter('vllm:request_success', 'Count of successfully processed requests.', labels));
  for (const r of ['stop', 'length', 'abort']) success.touch({ finished_reason: r });
  const ttft = reg.add(new Histogram(
    'vllm:time_to_first_token_seconds', 'Histogram of time to first token in seconds.', labels, BUCKETS.ttftSeconds,
  ));
  const itl = reg.add(new Histogram(
    'vllm:inter_token_latency_seconds', 'Histogram of inter-token latency in seconds.', labels, BUCKETS.itlSeconds,
  ));
  const e2e = reg.add(new Histogram(
    'vllm:e2e_request_latency_seconds', 'Histogram of e2e request latency in seconds.', labels,
    BUCKETS.requestSeconds,
  ));
  const queue = reg.add(new Histogram(
    'vllm:request_queue_time_seconds', 'Histogram of time spent in WAITING phase for request.', labels,
    BUCKETS.requestSeconds,
  ));
  const prefill = reg.add(new Histogram(
    'vllm:request_prefill_time_seconds', 'Histogram of time spent in PREFILL phase for request.', labels,
    BUCKETS.requestSeconds,
  ));
  const decode = reg.add(new Histogram(
    'vllm:request_decode_time_seconds', 'Histogram of time spent in DECODE phase for request.', labels,
    BUCKETS.requestSeconds,
  ));
  const inference = reg.add(new Histogram(
    'vllm:request_inference_time_seconds', 'Histogram of time spent in RUNNING phase for request.', labels,
    BUCKETS.requestSeconds,
  ));
  const promptHist = reg.add(new Histogram('vllm:request_prompt_tokens', 'Number of prefill tokens processed.', labels, BUCKETS.tokens));
  const genHist = reg.add(
    new Histogram('vllm:request_generation_tokens', 'Number of generation tokens processed.', labels, BUCKETS.tokens),
  );
  return {
    onTokens(tokens, promptOf) {
      for (const t of tokens) {
        gen.inc();
        if (t.index === 1) prompt.inc(promptOf(t.id));
        if (t.gapMs !== null) itl.observe(t.gapMs / S);
      }
    },
    onFinished(ev) {
      success.inc(1, { finished_reason: ev.reason });
      e2e.observe((ev.endMs - ev.arrivalMs) / S);
      promptHist.observe(ev.promptTokens);
      genHist.observe(ev.generatedTokens);
      // queue = first scheduled - arrival in the engine; prefill = first token - first scheduled;
      // decode = last token - first token; inference = last token - first scheduled.
      if (ev.firstScheduledMs !== null) queue.observe((ev.firstScheduledMs - ev.queuedMs) / S);
      if (ev.firstTokenMs !== null) {
        ttft.observe((ev.firstTokenMs - ev.arrivalMs) / S);
        if (ev.firstScheduledMs !== null) prefill.observe((ev.firstTokenMs - ev.firstScheduledMs) / S);
      }
      if (ev.firstTokenMs !== null && ev.lastTokenMs !== null) decode.observe((ev.lastTokenMs - ev.firstTokenMs) / S);
      if (ev.firstScheduledMs !== null && ev.lastTokenMs !== null) inference.observe((ev.lastTokenMs - ev.firstScheduledMs) / S);
    },
    onPreemptions(n) {
      preemptions.inc(n);
    },
    onPrefixCache(queryTokens, hitTokens) {
      prefixQueries.inc(queryTokens);
      prefixHits.inc(hitTokens);
    },
    render: renderAll,
  };
}

function round(v: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}
