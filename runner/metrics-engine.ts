// Metric registry, sinks and sample dispatch with k6's semantics (metrics/registry.go, sink.go). Runs in Node.

import type { MetricKind } from '../lib/metrics';
import { k6Percentile } from '../lib/percentile';

export type Tags = Record<string, string>;
export type Contains = 'default' | 'time' | 'data';

/** One measurement. time is epoch milliseconds (float, sub-microsecond resolution from the monotonic clock). */
export interface Sample {
  readonly metric: Metric;
  readonly time: number;
  readonly value: number;
  readonly tags: Tags;
  /** Sample metadata (exec.vu.metrics.metadata): not indexed, written by the CSV and JSON outputs only. */
  readonly metadata?: Tags;
}

/** Trend values are kept whole so percentiles are exact, computed as k6's TrendSink.P does. */
export class TrendSink {
  private values = new Float64Array(64);
  /** values[0, sortedCount) is sorted; samples after it arrived since the last percentile. */
  private sortedCount = 0;
  count = 0;
  sum = 0;
  min = 0;
  max = 0;

  add(v: number): void {
    if (this.count === this.values.length) {
      const next = new Float64Array(this.values.length * 2);
      next.set(this.values);
      this.values = next;
    }
    if (this.count === 0 || v < this.min) this.min = v;
    if (this.count === 0 || v > this.max) this.max = v;
    this.values[this.count++] = v;
    this.sum += v;
  }

  /** k6: linear interpolation between the closest ranks, i = pct * (count - 1); 0 with no samples. */
  percentile(pct: number): number {
    if (this.count === 0) return 0;
    if (this.count === 1) return this.values[0]!;
    if (this.sortedCount < this.count) this.sortTail();
    return k6Percentile(this.values, this.count, pct);
  }

  /**
   * Sorts only the samples added since the last call and merges them in, so a percentile asked
   * every 2 s during a long run (abortOnFail thresholds) costs O(n), not a full sort that would stall
   * the event loop and every stream with it.
   */
  private sortTail(): void {
    const n = this.count;
    const m = this.sortedCount;
    const tail = this.values.slice(m, n).sort();
    if (m === 0) {
      this.values.set(tail, 0);
    } else {
      const head = this.values.slice(0, m);
      let i = 0;
      let j = 0;
      let k = 0;
      while (i < m && j < tail.length) this.values[k++] = head[i]! <= tail[j]! ? head[i++]! : tail[j++]!;
      while (i < m) this.values[k++] = head[i++]!;
      while (j < tail.length) this.values[k++] = tail[j++]!;
    }
    this.sortedCount = n;
  }

  avg(): number {
    return this.count === 0 ? 0 : this.sum / this.count;
  }

  /** One summary value by its k6 name: avg, min, med, max, count, p(N). */
  stat(name: string): number {
    switch (name) {
      case 'avg':
        return this.avg();
      case 'min':
        return this.min;
      case 'max':
        return this.max;
      case 'med':
        return this.percentile(0.5);
      case 'count':
        return this.count;
      default: {
        const m = /^p\((\d+(?:\.\d+)?)\)$/.exec(name);
        return m ? this.percentile(Number(m[1]) / 100) : 0;
      }
    }
  }
}

export class CounterSink {
  count = 0;
  /** Samples seen: a counter that only got zeros is not empty. */
  samples = 0;
  add(v: number): void {
    this.count += v;
    this.samples++;
  }
}

export class GaugeSink {
  value = 0;
  min = 0;
  max = 0;
  seen = false;
  add(v: number): void {
    this.value = v;
    if (!this.seen || v < this.min) this.min = v;
    if (!this.seen || v > this.max) this.max = v;
    this.seen = true;
  }
}

export class RateSink {
  passes = 0;
  total = 0;
  add(v: number): void {
    this.total++;
    if (v !== 0) this.passes++;
  }
}

export type Sink = TrendSink | CounterSink | GaugeSink | RateSink;

function newSink(kind: MetricKind): Sink {
  switch (kind) {
    case 'trend':
      return new TrendSink();
    case 'counter':
      return new CounterSink();
    case 'gauge':
      return new GaugeSink();
    case 'rate':
      return new RateSink();
  }
}

/** A tag-filtered view of a metric (thresholds key "name{tag:value}"). */
export interface SubMetric {
  readonly name: string;
  readonly suffix: string;
  readonly tags: Readonly<Tags>;
  readonly tagEntries: readonly (readonly [string, string])[];
  readonly sink: Sink;
  /** k6 reports a sub-metric once it is defined, even with no samples. */
}

export class Metric {
  readonly sink: Sink;
  readonly submetrics: SubMetric[] = [];
  /** True once a sample reached it: k6's summary lists only metrics that got samples (plus thresholded sub-metrics). */
  observed = false;

  constructor(
    readonly name: string,
    readonly type: MetricKind,
    readonly contains: Contains,
  ) {
    this.sink = newSink(type);
  }

  addSubmetric(tags: Readonly<Tags>): SubMetric {
    const entries = Object.entries(tags);
    const suffix = entries.map(([k, v]) => `${k}:${v}`).join(',');
    const name = `${this.name}{${suffix}}`;
    const existing = this.submetrics.find((s) => s.name === name);
    if (existing) return existing;
    const sub: SubMetric = { name, suffix, tags, tagEntries: entries, sink: newSink(this.type) };
    this.submetrics.push(sub);
    return sub;
  }
}

const NAME_RE = /^[a-zA-Z_][a-zA-Z0-9_]{1,128}$/;

/**
 * The built-in metrics k6 registers before the script runs (metrics/builtin.go), less those the runner
 * never pushes: checks and group_duration (no check() or group()) and dropped_iterations (README: known
 * differences). sse_event comes with k6/x/sse.
 */
export const BUILTIN_METRICS: readonly (readonly [string, MetricKind, Contains])[] = [
  ['vus', 'gauge', 'default'],
  ['vus_max', 'gauge', 'default'],
  ['iterations', 'counter', 'default'],
  ['iteration_duration', 'trend', 'time'],
  ['data_sent', 'counter', 'data'],
  ['data_received', 'counter', 'data'],
  ['http_reqs', 'counter', 'default'],
  ['http_req_failed', 'rate', 'default'],
  ['http_req_duration', 'trend', 'time'],
  ['http_req_blocked', 'trend', 'time'],
  ['http_req_connecting', 'trend', 'time'],
  ['http_req_tls_handshaking', 'trend', 'time'],
  ['http_req_sending', 'trend', 'time'],
  ['http_req_waiting', 'trend', 'time'],
  ['http_req_receiving', 'trend', 'time'],
];

/** Something that receives every accepted sample (CSV, JSON). */
export interface SampleOutput {
  write(sample: Sample): void;
  close(): Promise<void>;
}

export class MetricsEngine {
  readonly metrics = new Map<string, Metric>();
  private readonly outputs: SampleOutput[] = [];
  /** Tags added to every sample (--tag and options.tags). */
  sampleCount = 0;

  constructor() {
    for (const [name, type, contains] of BUILTIN_METRICS) this.metrics.set(name, new Metric(name, type, contains));
  }

  /** Registers a metric; re-declaring a name with another type is an error, as in k6. */
  register(name: string, type: MetricKind, contains: Contains): Metric {
    const existing = this.metrics.get(name);
    if (existing) {
      if (existing.type !== type || existing.contains !== contains) {
        throw new Error(`metric '${name}' already exists but with type ${existing.type}, instead of ${type}`);
      }
      return existing;
    }
    if (!NAME_RE.test(name)) throw new Error(`Invalid metric name: '${name}'`);
    const m = new Metric(name, type, contains);
    this.metrics.set(name, m);
    return m;
  }

  get(name: string): Metric | undefined {
    return this.metrics.get(name);
  }

  addOutput(out: SampleOutput): void {
    this.outputs.push(out);
  }

  /** Accepts one sample: sinks, matching sub-metrics, outputs. Callers drop samples of cut iterations before this. */
  push(metric: Metric, time: number, value: number, tags: Tags, metadata?: Tags): void {
    metric.observed = true;
    metric.sink.add(value);
    const subs = metric.submetrics;
    for (let i = 0; i < subs.length; i++) {
      const sub = subs[i]!;
      let match = true;
      for (const [k, v] of sub.tagEntries) {
        if (tags[k] !== v) {
          match = false;
          break;
        }
      }
      if (match) sub.sink.add(value);
    }
    this.sampleCount++;
    if (this.outputs.length > 0) {
      const sample: Sample = metadata === undefined ? { metric, time, value, tags } : { metric, time, value, tags, metadata };
      for (const out of this.outputs) out.write(sample);
    }
  }

  async closeOutputs(): Promise<void> {
    await Promise.all(this.outputs.map((o) => o.close()));
  }
}

/** k6's summary `values` object for a sink. */
export function sinkValues(type: MetricKind, sink: Sink, trendStats: readonly string[], durationMs: number): Record<string, number> {
  if (sink instanceof TrendSink) {
    const out: Record<string, number> = {};
    for (const s of trendStats) out[s] = sink.stat(s);
    return out;
  }
  if (sink instanceof CounterSink) return { count: sink.count, rate: durationMs > 0 ? sink.count / (durationMs / 1000) : 0 };
  if (sink instanceof GaugeSink) return { value: sink.value, min: sink.min, max: sink.max };
  if (sink instanceof RateSink) {
    return { rate: sink.total === 0 ? 0 : sink.passes / sink.total, passes: sink.passes, fails: sink.total - sink.passes };
  }
  void type;
  return {};
}
