// Pure statistics for every judgement: k6-compatible percentiles, distributions, linear interpolation. Runs in Node.
//
// Percentiles follow k6's Trend sink (metrics/sink.go, TrendSink.P): sort the values, take the
// fractional rank i = p x (count - 1) and interpolate linearly between the values at floor(i) and
// ceil(i). Using k6's method means a report figure and k6's summary of the same samples agree.

import { k6Percentile } from '../lib/percentile';

/** A growable array of float64 values: stores millions of samples without boxing numbers. */
export class FloatList {
  private buf: Float64Array;
  length = 0;

  constructor(initialCapacity = 64) {
    this.buf = new Float64Array(initialCapacity);
  }

  push(v: number): void {
    if (this.length === this.buf.length) {
      const next = new Float64Array(this.buf.length * 2);
      next.set(this.buf);
      this.buf = next;
    }
    this.buf[this.length++] = v;
  }

  /** Appends many values at once (a split run's runners merged: report/merge-samples.ts). */
  pushAll(values: ArrayLike<number>): void {
    let capacity = Math.max(1, this.buf.length);
    while (this.length + values.length > capacity) capacity *= 2;
    if (capacity !== this.buf.length) {
      const next = new Float64Array(capacity);
      next.set(this.buf.subarray(0, this.length));
      this.buf = next;
    }
    this.buf.set(values, this.length);
    this.length += values.length;
  }

  /** A sorted copy of the values (ascending). */
  sorted(): SortedValues {
    const copy = this.buf.slice(0, this.length);
    copy.sort();
    return copy as SortedValues;
  }

  values(): Float64Array {
    return this.buf.subarray(0, this.length);
  }
}

/** Values sorted ascending; produced only by sortValues / FloatList.sorted so percentile never sees unsorted input. */
export type SortedValues = Float64Array & { readonly __sorted: true };

export function sortValues(values: ArrayLike<number>): SortedValues {
  const copy = Float64Array.from(values);
  copy.sort();
  return copy as SortedValues;
}

/** k6's percentile (lib/percentile.ts) of sorted values; p in 0..1. */
export function percentile(sorted: SortedValues, p: number): number {
  return k6Percentile(sorted, sorted.length, p);
}

/** Summary of one metric in one cell, in the metric's unit (ms or tokens/s). */
export interface Distribution {
  readonly count: number;
  readonly mean: number;
  readonly min: number;
  readonly max: number;
  readonly p50: number;
  readonly p90: number;
  readonly p95: number;
  readonly p99: number;
  /** Sample standard deviation (0 for one value): the spread a comparison of means weighs changes against. */
  readonly stdDev?: number;
}

/** Summarises values; null when there are none (a metric with no samples has no statistics). */
export function summarize(sorted: SortedValues): Distribution | null {
  const n = sorted.length;
  if (n === 0) return null;
  let sum = 0;
  for (let i = 0; i < n; i++) sum += sorted[i]!;
  const mean = sum / n;
  let squares = 0;
  for (let i = 0; i < n; i++) squares += (sorted[i]! - mean) ** 2;
  return {
    count: n,
    mean,
    stdDev: n > 1 ? Math.sqrt(squares / (n - 1)) : 0,
    min: sorted[0]!,
    max: sorted[n - 1]!,
    p50: percentile(sorted, 0.5),
    p90: percentile(sorted, 0.9),
    p95: percentile(sorted, 0.95),
    p99: percentile(sorted, 0.99),
  };
}

/**
 * A distribution as k6's summary `values` object ({avg, med, "p(95)", ...}), so the threshold code of
 * lib/threshold-grammar.ts evaluates a use-case limit against report figures exactly as k6 would.
 */
export function toK6Values(d: Distribution | null): Record<string, number> {
  if (d === null) return { avg: 0, min: 0, max: 0, med: 0, 'p(90)': 0, 'p(95)': 0, 'p(99)': 0, count: 0 };
  return {
    avg: d.mean, min: d.min, max: d.max, med: d.p50, 'p(50)': d.p50, 'p(90)': d.p90, 'p(95)': d.p95, 'p(99)': d.p99,
    count: d.count,
  };
}

/**
 * Linear interpolation: the x at which the line through (x0, y0) and (x1, y1) reaches y.
 * Returns null when the segment is flat (y0 === y1) or x0 === x1.
 */
export function crossingX(x0: number, y0: number, x1: number, y1: number, y: number): number | null {
  if (y1 === y0 || x1 === x0) return null;
  return x0 + ((y - y0) * (x1 - x0)) / (y1 - y0);
}

/**
 * Where a limit's statistic is predicted to cross its value, from two passing points on a power law (log-log line);
 * null when it does not approach it.
 */
export function extrapolateCrossing(n0: number, v0: number, n1: number, v1: number, limit: number): number | null {
  if (!(n0 > 0 && n1 > n0 && v0 > 0 && v1 > 0 && limit > 0) || v0 === v1) return null;
  const b = Math.log(v1 / v0) / Math.log(n1 / n0);
  const x = n1 * Math.pow(limit / v1, 1 / b);
  return isFinite(x) && x > n1 ? x : null;
}

/**
 * The step to fit a power law from, with the largest step (index `top` of ascending `users`): the largest at most half
 * of it, else the smallest; -1 with a single step. Two neighbouring steps' noise would set the slope; a factor 2
 * apart their difference is the load's, and over such a span the limits' statistics follow a power law closely.
 */
export function powerLawBase(users: readonly number[], top: number): number {
  if (top <= 0) return -1;
  let base = 0;
  for (let i = 0; i < top; i++) if (users[i]! <= users[top]! / 2) base = i;
  return base;
}

/** Linear interpolation: the y of the line through (x0, y0) and (x1, y1) at x. */
export function valueAt(x0: number, y0: number, x1: number, y1: number, x: number): number {
  if (x1 === x0) return y0;
  return y0 + ((x - x0) * (y1 - y0)) / (x1 - x0);
}

/** Mean of numbers, null when empty. */
export function mean(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  let s = 0;
  for (const v of values) s += v;
  return s / values.length;
}

/**
 * The element with the largest f (elements where f is null are skipped); null when there is none. Ties keep the
 * first.
 */
export function maxBy<T>(xs: readonly T[], f: (x: T) => number | null): T | null {
  let best: T | null = null;
  let bestV = -Infinity;
  for (const x of xs) {
    const v = f(x);
    if (v !== null && v > bestV) {
      bestV = v;
      best = x;
    }
  }
  return best;
}

/** The element with the smallest f; see maxBy. */
export function minBy<T>(xs: readonly T[], f: (x: T) => number | null): T | null {
  return maxBy(xs, (x) => {
    const v = f(x);
    return v === null ? null : -v;
  });
}

/** One statistic of a distribution by its k6 name ("avg", "med", "p(95)"...); null without samples. */
export function statistic(d: Distribution | null | undefined, stat: string): number | null {
  return d ? (toK6Values(d)[stat] ?? null) : null;
}
