// A minimal Prometheus registry and text exposition (format 0.0.4) for the simulator's /metrics. Runs in Node, pure.
// It has counters, gauges and histograms with labels.

export type Labels = Readonly<Record<string, string>>;

function labelKey(labels: Labels): string {
  return Object.keys(labels)
    .sort()
    .map((k) => `${k}="${escapeLabel(labels[k]!)}"`)
    .join(',');
}

function escapeLabel(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function formatNumber(v: number): string {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  return String(v);
}

function braces(key: string): string {
  return key === '' ? '' : `{${key}}`;
}

interface Metric {
  render(): string;
}

/** A monotonically increasing counter; exposed as <name>_total. */
export class Counter implements Metric {
  private readonly values = new Map<string, number>();
  /** The key of the base label set, computed once: inc() without labels runs once per token. */
  private readonly baseKey: string;

  constructor(readonly name: string, readonly help: string, private readonly base: Labels) {
    this.baseKey = labelKey(base);
  }

  inc(by = 1, labels?: Labels): void {
    const key = labels === undefined ? this.baseKey : labelKey({ ...this.base, ...labels });
    this.values.set(key, (this.values.get(key) ?? 0) + by);
  }

  /** Pre-creates a label set at 0 so the series exists before the first event (as vLLM does for finished_reason). */
  touch(labels: Labels = {}): void {
    const key = labelKey({ ...this.base, ...labels });
    if (!this.values.has(key)) this.values.set(key, 0);
  }

  render(): string {
    const full = `${this.name}_total`;
    let out = `# HELP ${full} ${this.help}\n# TYPE ${full} counter\n`;
    if (this.values.size === 0) this.values.set(labelKey(this.base), 0);
    for (const [key, v] of this.values) out += `${full}${braces(key)} ${formatNumber(v)}\n`;
    return out;
  }
}

/** A gauge whose value is read from a callback at scrape time, or set explicitly. */
export class Gauge implements Metric {
  private readonly values = new Map<string, number>();

  constructor(
    readonly name: string, readonly help: string, private readonly base: Labels, private readonly read?: () => number,
  ) {}

  set(v: number, labels: Labels = {}): void {
    this.values.set(labelKey({ ...this.base, ...labels }), v);
  }

  render(): string {
    let out = `# HELP ${this.name} ${this.help}\n# TYPE ${this.name} gauge\n`;
    if (this.read) this.values.set(labelKey(this.base), this.read());
    for (const [key, v] of this.values) out += `${this.name}${braces(key)} ${formatNumber(v)}\n`;
    return out;
  }
}

/** A cumulative histogram with fixed upper bounds (le); _bucket, _sum and _count series. */
export class Histogram implements Metric {
  private readonly counts: number[];
  private sum = 0;
  private count = 0;

  constructor(
    readonly name: string, readonly help: string, private readonly base: Labels, readonly buckets: readonly number[],
  ) {
    this.counts = new Array<number>(buckets.length).fill(0);
  }

  observe(v: number): void {
    this.sum += v;
    this.count++;
    for (let i = 0; i < this.buckets.length; i++) {
      if (v <= this.buckets[i]!) {
        this.counts[i]!++;
        break;
      }
    }
  }

  render(): string {
    let out = `# HELP ${this.name} ${this.help}\n# TYPE ${this.name} histogram\n`;
    const key = labelKey(this.base);
    const sep = key === '' ? '' : ',';
    let cum = 0;
    for (let i = 0; i < this.buckets.length; i++) {
      cum += this.counts[i]!;
      out += `${this.name}_bucket{${key}${sep}le="${formatNumber(this.buckets[i]!)}"} ${cum}\n`;
    }
    out += `${this.name}_bucket{${key}${sep}le="+Inf"} ${this.count}\n`;
    out += `${this.name}_sum${braces(key)} ${formatNumber(this.sum)}\n`;
    out += `${this.name}_count${braces(key)} ${this.count}\n`;
    return out;
  }
}

/** Metrics in registration order; render() is the whole exposition. */
export class Registry {
  private readonly metrics: Metric[] = [];

  add<M extends Metric>(m: M): M {
    this.metrics.push(m);
    return m;
  }

  render(): string {
    return this.metrics.map((m) => m.render()).join('');
  }
}

/** Bucket bounds, seconds / tokens, close to vLLM's. */
export const BUCKETS = {
  ttftSeconds: [
    0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640, 2560,
  ],
  itlSeconds: [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80],
  requestSeconds: [0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920, 7680],
  tokens: [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000, 200000, 500000],
} as const;
