// The simulator's /metrics content: vLLM (or SGLang) metric names fed by batcher events, plus the DCGM power gauge.
// Runs in Node.

import type { FinishedEvent, TokenEvent } from './batcher';
import { BUCKETS, Counter, Gauge, Histogram, Registry, type Labels } from './metrics-exposition';
import type { Flavour } from './profiles';
import { smoothTowards } from './step-time';

/** Live batcher state read at scrape time. */
export interface BatcherState {
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
  /** Prefix-cache lookups of the requests admitted in one batcher step, in tokens. */
  onPrefixCache(queryTokens: number, hitTokens: number): void;
  render(): string;
}

const S = 1000;

/** A moment of a request's life in the batcher, as its finished event records it (ms). */
type Moment = 'arrivalMs' | 'queuedMs' | 'firstScheduledMs' | 'firstTokenMs' | 'lastTokenMs' | 'endMs';

/**
 * A latency histogram the server keeps, seconds: either one sample per generated token after the first (its gap), or
 * one per finished request, from one moment to another, when the request reached both.
 */
interface LatencyHistogram {
  readonly name: string;
  readonly help: string;
  readonly buckets: readonly number[];
  readonly span: 'token gap' | { readonly from: Moment; readonly to: Moment };
}

/** Each flavour's latency histograms in the order its server exposes them, named and described as the server does. */
const LATENCY_HISTOGRAMS: Record<Flavour, readonly LatencyHistogram[]> = {
  sglang: [
    {
      name: 'sglang:time_to_first_token_seconds', help: 'Histogram of time to first token in seconds.',
      buckets: BUCKETS.ttftSeconds, span: { from: 'arrivalMs', to: 'firstTokenMs' },
    },
    {
      name: 'sglang:inter_token_latency_seconds', help: 'Histogram of inter-token latency in seconds.',
      buckets: BUCKETS.itlSeconds, span: 'token gap',
    },
    {
      name: 'sglang:e2e_request_latency_seconds', help: 'Histogram of End-to-end request latency in seconds',
      buckets: BUCKETS.requestSeconds, span: { from: 'arrivalMs', to: 'endMs' },
    },
    {
      name: 'sglang:queue_time_seconds', help: 'Histogram of queueing time in seconds.',
      buckets: BUCKETS.requestSeconds, span: { from: 'queuedMs', to: 'firstScheduledMs' },
    },
  ],
  // vLLM's phases: queue = first scheduled - arrival in the batcher; prefill = first token - first scheduled;
  // decode = last token - first token; inference = last token - first scheduled.
  vllm: [
    {
      name: 'vllm:time_to_first_token_seconds', help: 'Histogram of time to first token in seconds.',
      buckets: BUCKETS.ttftSeconds, span: { from: 'arrivalMs', to: 'firstTokenMs' },
    },
    {
      name: 'vllm:inter_token_latency_seconds', help: 'Histogram of inter-token latency in seconds.',
      buckets: BUCKETS.itlSeconds, span: 'token gap',
    },
    {
      name: 'vllm:e2e_request_latency_seconds', help: 'Histogram of e2e request latency in seconds.',
      buckets: BUCKETS.requestSeconds, span: { from: 'arrivalMs', to: 'endMs' },
    },
    {
      name: 'vllm:request_queue_time_seconds', help: 'Histogram of time spent in WAITING phase for request.',
      buckets: BUCKETS.requestSeconds, span: { from: 'queuedMs', to: 'firstScheduledMs' },
    },
    {
      name: 'vllm:request_prefill_time_seconds', help: 'Histogram of time spent in PREFILL phase for request.',
      buckets: BUCKETS.requestSeconds, span: { from: 'firstScheduledMs', to: 'firstTokenMs' },
    },
    {
      name: 'vllm:request_decode_time_seconds', help: 'Histogram of time spent in DECODE phase for request.',
      buckets: BUCKETS.requestSeconds, span: { from: 'firstTokenMs', to: 'lastTokenMs' },
    },
    {
      name: 'vllm:request_inference_time_seconds', help: 'Histogram of time spent in RUNNING phase for request.',
      buckets: BUCKETS.requestSeconds, span: { from: 'firstScheduledMs', to: 'lastTokenMs' },
    },
  ],
};

/** What the batcher's events feed, shared by both flavours. */
interface EventSinks {
  onToken(t: TokenEvent): void;
  onFinished(ev: FinishedEvent): void;
}

/** Registers a flavour's latency histograms and returns what feeds them from the batcher's events. */
function addLatencyHistograms(reg: Registry, labels: Labels, table: readonly LatencyHistogram[]): EventSinks {
  const added = table.map((h) => ({ span: h.span, hist: reg.add(new Histogram(h.name, h.help, labels, h.buckets)) }));
  return {
    onToken(t) {
      if (t.gapMs === null) return;
      for (const { span, hist } of added) if (span === 'token gap') hist.observe(t.gapMs / S);
    },
    onFinished(ev) {
      for (const { span, hist } of added) {
        if (span === 'token gap') continue;
        const from = ev[span.from];
        const to = ev[span.to];
        if (from !== null && to !== null) hist.observe((to - from) / S);
      }
    },
  };
}

/** The GPUs' power as dcgm-exporter writes it: one series per GPU (labels gpu, UUID, device, modelName). */
function addDcgmPower(reg: Registry, state: BatcherState, gpus: GpuInfo): () => string {
  // A reader sums the series for the system's power (lib/prometheus.ts readServerSnapshot), so a two-GPU server
  // reports twice one GPU's draw.
  const power = reg.add(new Gauge('DCGM_FI_DEV_POWER_USAGE', 'Power draw (in W).', {}));
  const gpuLabels: Labels[] = Array.from({ length: gpus.count }, (_, i) => ({
    gpu: String(i),
    UUID: `GPU-00000000-0000-0000-0000-${String(i).padStart(12, '0')}`,
    device: `nvidia${i}`,
    modelName: `${gpus.name} (simulated)`,
  }));
  return () => {
    const watts = round(state.powerWatts(), 3);
    for (const l of gpuLabels) power.set(watts, l);
    return reg.render();
  };
}

/** The KV-cache configuration vLLM reports in vllm:cache_config_info. */
export interface CacheConfig {
  readonly blockSize: number;
  readonly numGpuBlocks: number;
  readonly prefixCaching: boolean;
}

/** Metric set of the chosen flavour, labels model_name (and engine="0" for vLLM). */
export function createSimMetrics(
  flavour: Flavour,
  modelName: string,
  state: BatcherState,
  cache: CacheConfig,
  gpus: GpuInfo = { count: 1, name: 'NVIDIA H200' },
): SimMetrics {
  const reg = new Registry();
  const labels: Labels = flavour === 'vllm' ? { model_name: modelName, engine: '0' } : { model_name: modelName };
  const render = addDcgmPower(reg, state, gpus);
  return flavour === 'sglang'
    ? sglangMetrics(reg, labels, state, render)
    : vllmMetrics(reg, labels, state, cache, render);
}

function sglangMetrics(reg: Registry, labels: Labels, state: BatcherState, render: () => string): SimMetrics {
  reg.add(new Gauge('sglang:num_running_reqs', 'The number of running requests.', labels, state.running));
  reg.add(new Gauge('sglang:num_queue_reqs', 'The number of requests in the waiting queue.', labels, state.waiting));
  reg.add(new Gauge('sglang:token_usage', 'The token usage (0..1).', labels, state.kvUsage));
  const counter = (name: string, help: string) => reg.add(new Counter(name, help, labels));
  const prompt = counter('sglang:prompt_tokens', 'Number of prefill tokens processed.');
  const gen = counter('sglang:generation_tokens', 'Number of generation tokens processed.');
  const reqs = counter('sglang:num_requests', 'Number of requests processed.');
  const retracted = counter('sglang:num_retracted_requests', 'Number of retracted (preempted) requests.');
  const latency = addLatencyHistograms(reg, labels, LATENCY_HISTOGRAMS.sglang);
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
        latency.onToken(t);
      }
    },
    onFinished(ev) {
      reqs.inc();
      latency.onFinished(ev);
    },
    onPreemptions(n) {
      retracted.inc(n);
    },
    onPrefixCache(queryTokens, hitTokens) {
      if (queryTokens > 0) hitRate.set(hitTokens / queryTokens);
      if (hitTokens > 0) cachedTokens.inc(hitTokens);
    },
    render,
  };
}

function vllmMetrics(
  reg: Registry, labels: Labels, state: BatcherState, cache: CacheConfig, render: () => string,
): SimMetrics {
  reg.add(new Gauge('vllm:num_requests_running', 'Number of requests in model execution batches.', labels,
    state.running));
  reg.add(new Gauge('vllm:num_requests_waiting', 'Number of requests waiting to be processed.', labels, state.waiting));
  reg.add(new Gauge('vllm:kv_cache_usage_perc', 'KV-cache usage. 1 means 100 percent usage.', labels, state.kvUsage));
  const info = reg.add(new Gauge('vllm:cache_config_info', 'Information of the LLMEngine CacheConfig', {
    ...labels, block_size: String(cache.blockSize), num_gpu_blocks: String(cache.numGpuBlocks),
    enable_prefix_caching: cache.prefixCaching ? 'True' : 'False',
  }));
  info.set(1);
  const counter = (name: string, help: string) => reg.add(new Counter(name, help, labels));
  // vLLM v1: at each admission, the request's tokens are queried and the cached ones counted as hits.
  const prefixQueries = counter(
    'vllm:prefix_cache_queries', 'Prefix cache queries, in terms of number of queried tokens.',
  );
  const prefixHits = counter('vllm:prefix_cache_hits', 'Prefix cache hits, in terms of number of cached tokens.');
  const preemptions = counter('vllm:num_preemptions', 'Cumulative number of preemption from the batcher.');
  const prompt = counter('vllm:prompt_tokens', 'Number of prefill tokens processed.');
  const gen = counter('vllm:generation_tokens', 'Number of generation tokens processed.');
  const success = counter('vllm:request_success', 'Count of successfully processed requests.');
  for (const r of ['stop', 'length', 'abort']) success.touch({ finished_reason: r });
  const latency = addLatencyHistograms(reg, labels, LATENCY_HISTOGRAMS.vllm);
  const tokenHistogram = (name: string, help: string) => reg.add(new Histogram(name, help, labels, BUCKETS.tokens));
  const promptHist = tokenHistogram('vllm:request_prompt_tokens', 'Number of prefill tokens processed.');
  const genHist = tokenHistogram('vllm:request_generation_tokens', 'Number of generation tokens processed.');
  return {
    onTokens(tokens, promptOf) {
      for (const t of tokens) {
        gen.inc();
        if (t.index === 1) prompt.inc(promptOf(t.id));
        latency.onToken(t);
      }
    },
    onFinished(ev) {
      success.inc(1, { finished_reason: ev.reason });
      promptHist.observe(ev.promptTokens);
      genHist.observe(ev.generatedTokens);
      latency.onFinished(ev);
    },
    onPreemptions(n) {
      preemptions.inc(n);
    },
    onPrefixCache(queryTokens, hitTokens) {
      prefixQueries.inc(queryTokens);
      prefixHits.inc(hitTokens);
    },
    render,
  };
}

function round(v: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}
