// Server-side figures of a cell from the monitor's cumulative samples: histogram sum/count deltas across the cell's
// window. Runs in Node.
//
// The monitor samples the engine's counters and histogram _sum/_count as cumulative gauges. A
// cell's mean server queue wait is (sum(t1) - sum(t0)) / (count(t1) - count(t0)). The outer scrapes
// (t0 the last at or before the window start, t1 the first at or after its end) cover every request
// of the cell, but also whatever the neighbouring steps' requests were observed doing between those
// scrapes and the window's edges: a 1-user step after a busier one took in the busier step's TTFTs,
// and the server's mean came out above the client's. So a histogram uses scrapes around the window only
// when their count delta is exactly the cell's own number of observations (then they are the cell's own),
// and otherwise the inner scrapes (the first at or after the start, the last at or before the end):
// a sample of the cell's requests, none of its neighbours'.

import type { ServerMetricKey } from '../lib/metrics';
import type { Series } from './read-samples';
import { mean } from './stats';

/** A time window in epoch milliseconds. */
export interface Window {
  readonly startMs: number;
  readonly endMs: number;
}

/** The value of a cumulative series just before (at or before) time t; the first value if none is that early. */
export function valueAtOrBefore(s: Series, t: number): number | null {
  const times = s.times.values();
  const values = s.values.values();
  if (times.length === 0) return null;
  let best = -1;
  for (let i = 0; i < times.length; i++) {
    if (times[i]! <= t && (best < 0 || times[i]! >= times[best]!)) best = i;
  }
  if (best < 0) {
    let first = 0;
    for (let i = 1; i < times.length; i++) if (times[i]! < times[first]!) first = i;
    return values[first]!;
  }
  return values[best]!;
}

/** The value of a cumulative series just after (at or after) time t; the last value if none is that late. */
export function valueAtOrAfter(s: Series, t: number): number | null {
  const times = s.times.values();
  const values = s.values.values();
  if (times.length === 0) return null;
  let best = -1;
  for (let i = 0; i < times.length; i++) {
    if (times[i]! >= t && (best < 0 || times[i]! <= times[best]!)) best = i;
  }
  if (best < 0) {
    let last = 0;
    for (let i = 1; i < times.length; i++) if (times[i]! > times[last]!) last = i;
    return values[last]!;
  }
  return values[best]!;
}

/** Increase of a cumulative series over a window; null without samples. Counter resets (a negative delta) give null. */
export function deltaOver(s: Series | undefined, w: Window): number | null {
  if (!s) return null;
  const a = valueAtOrBefore(s, w.startMs);
  const b = valueAtOrAfter(s, w.endMs);
  if (a === null || b === null) return null;
  const d = b - a;
  return d < 0 ? null : d;
}

/**
 * Increase of a cumulative series between the first sample at or after the window start and the last at or before
 * its end: what was observed inside the window only. Null without two such samples, or on a counter reset.
 */
export function innerDeltaOver(s: Series | undefined, w: Window): number | null {
  if (!s) return null;
  const times = s.times.values();
  const values = s.values.values();
  let first = -1;
  let last = -1;
  for (let i = 0; i < times.length; i++) {
    const t = times[i]!;
    if (t < w.startMs || t > w.endMs) continue;
    if (first < 0 || t < times[first]!) first = i;
    if (last < 0 || t > times[last]!) last = i;
  }
  if (first < 0 || times[last]! <= times[first]!) return null;
  const d = values[last]! - values[first]!;
  return d < 0 ? null : d;
}

/** How many scrapes on each side of a window are tried for an exact count (the server may observe late). */
const EXACT_CANDIDATES = 8;

/**
 * Two scrapes around the window between which the count grew by exactly `observations`: the latest at or before the
 * start (or the first scrape, when none is that early) and the earliest at or after the end that do. A server may
 * observe a request some time after the client has its last byte (SGLang, by up to half a second here), so scrapes
 * after the first one past the end are tried too. Null when no pair counts exactly that many.
 */
export function exactScrapes(count: Series, w: Window, observations: number): { t0: number; t1: number } | null {
  const times = count.times.values();
  const values = count.values.values();
  const order = Array.from(times.keys()).sort((a, b) => times[a]! - times[b]!);
  let before = order.filter((i) => times[i]! <= w.startMs).reverse().slice(0, EXACT_CANDIDATES);
  if (before.length === 0 && order.length > 0) before = [order[0]!];
  const after = order.filter((i) => times[i]! >= w.endMs).slice(0, EXACT_CANDIDATES);
  for (const i1 of after) {
    for (const i0 of before) {
      const exact = times[i0]! < times[i1]! && values[i1]! - values[i0]! === observations;
      if (exact) return { t0: times[i0]!, t1: times[i1]! };
    }
  }
  return null;
}

/**
 * Mean of a Prometheus histogram over a window, in ms: delta(sum seconds) / delta(count) x 1000. `observations` is how
 * many the cell's own requests made (one per request, or one per token gap): when two scrapes around the window
 * counted exactly that many (exactScrapes), the mean is over those, the cell's own; otherwise over what the scrapes
 * inside the window saw (see the header). Null when the series are missing or no observation was counted.
 */
export function histogramMeanMs(
  sum: Series | undefined, count: Series | undefined, w: Window, observations: number | null = null,
): number | null {
  if (!sum || !count) return null;
  const exact = observations !== null && observations > 0 ? exactScrapes(count, w, observations) : null;
  if (exact) {
    const ds = valueAtOrAfter(sum, exact.t1)! - valueAtOrBefore(sum, exact.t0)!;
    return ds < 0 ? null : (ds / observations!) * 1000;
  }
  const ic = innerDeltaOver(count, w);
  const is = innerDeltaOver(sum, w);
  if (ic === null || is === null || ic <= 0) return null;
  return (is / ic) * 1000;
}

/** Samples of a gauge inside a window. */
export function samplesIn(s: Series | undefined, w: Window): number[] {
  if (!s) return [];
  const times = s.times.values();
  const values = s.values.values();
  const out: number[] = [];
  for (let i = 0; i < times.length; i++) if (times[i]! >= w.startMs && times[i]! <= w.endMs) out.push(values[i]!);
  return out;
}

/**
 * Samples of a gauge inside a window; when none falls inside (a window shorter than the scrape
 * interval), the one sample nearest to the window within toleranceMs of its edges.
 */
export function samplesNear(s: Series | undefined, w: Window, toleranceMs: number): number[] {
  const inside = samplesIn(s, w);
  if (inside.length > 0 || !s || toleranceMs <= 0) return inside;
  const times = s.times.values();
  const values = s.values.values();
  let best = -1;
  let bestD = Infinity;
  for (let i = 0; i < times.length; i++) {
    const t = times[i]!;
    const d = t < w.startMs ? w.startMs - t : t > w.endMs ? t - w.endMs : 0;
    if (d < bestD) {
      bestD = d;
      best = i;
    }
  }
  return best >= 0 && bestD <= toleranceMs ? [values[best]!] : [];
}

/** Server-side figures of one cell (null fields: not measured). */
export interface ServerFigures {
  /** Mean engine queue wait per request, ms. */
  readonly queueWaitMs: number | null;
  /** Mean engine prefill time per request, ms. */
  readonly prefillTimeMs: number | null;
  /** Mean server-side TTFT, ms. */
  readonly serverTtftMs: number | null;
  /** Mean server-side inter-token latency, ms (vLLM and SGLang observe one gap per token). */
  readonly serverItlMs: number | null;
  /** Mean server-side request latency, arrival to last token, ms. */
  readonly serverE2eMs: number | null;
  /** Preemptions during the window. */
  readonly preemptions: number | null;
  /** Largest engine queue length seen in the window. */
  readonly maxWaiting: number | null;
  /** Largest KV-cache usage seen in the window, 0..1. */
  readonly maxKvCacheUsage: number | null;
  /**
   * The server's prefix-cache hit rate over the window, 0..1: cached / queried prompt tokens (vLLM's
   * counters), else the mean of the server's own rate gauge (SGLang). Null when the server exposes neither.
   */
  readonly prefixCacheHitRate: number | null;
  /**
   * Prompt tokens per second of prompt processing as the server timed it over the window (llama.cpp:
   * prompt tokens / prompt seconds, both summed over slots): one request's prefill speed. Null elsewhere.
   */
  readonly serverPrefillTokensPerSecond: number | null;
  /** Generated tokens per second of generation time summed over slots (llama.cpp): one request's decode speed. */
  readonly serverDecodeTokensPerSecond: number | null;
}

/** Tokens over seconds from two cumulative counters over a window; null without both or without time spent. */
export function counterRatio(tokens: Series | undefined, seconds: Series | undefined, w: Window): number | null {
  const t = deltaOver(tokens, w);
  const s = deltaOver(seconds, w);
  return t === null || s === null || s <= 0 ? null : t / s;
}

/** Hit rate from cumulative hit and query counters over a window, else the mean of a rate gauge sampled in it. */
export function prefixCacheHitRate(
  monitor: Partial<Record<ServerMetricKey, Series>>, w: Window, toleranceMs: number,
): number | null {
  const queries = deltaOver(monitor.prefixCacheQueriesTotal, w);
  const hits = deltaOver(monitor.prefixCacheHitsTotal, w);
  if (queries !== null && hits !== null && queries > 0) return Math.min(1, Math.max(0, hits / queries));
  const rates = samplesNear(monitor.prefixCacheHitRate, w, toleranceMs);
  return mean(rates);
}

/** How many histogram observations a cell's own requests made: one per request, and one per token gap. */
export interface OwnObservations {
  readonly requests: number;
  readonly tokenGaps: number;
}

export function serverFigures(
  monitor: Partial<Record<ServerMetricKey, Series>>, w: Window, toleranceMs = 0, own: OwnObservations | null = null,
): ServerFigures | null {
  const perRequest = own?.requests ?? null;
  const max = (xs: number[]): number | null => (xs.length === 0 ? null : Math.max(...xs));
  const f: ServerFigures = {
    queueWaitMs: histogramMeanMs(monitor.queueTimeSum, monitor.queueTimeCount, w, perRequest),
    prefillTimeMs: histogramMeanMs(monitor.prefillTimeSum, monitor.prefillTimeCount, w, perRequest),
    serverTtftMs: histogramMeanMs(monitor.serverTtftSum, monitor.serverTtftCount, w, perRequest),
    serverItlMs: histogramMeanMs(monitor.serverItlSum, monitor.serverItlCount, w, own?.tokenGaps ?? null),
    serverE2eMs: histogramMeanMs(monitor.serverE2eSum, monitor.serverE2eCount, w, perRequest),
    preemptions: deltaOver(monitor.preemptionsTotal, w),
    maxWaiting: max(samplesNear(monitor.waiting, w, toleranceMs)),
    maxKvCacheUsage: max(samplesNear(monitor.kvCacheUsage, w, toleranceMs)),
    prefixCacheHitRate: prefixCacheHitRate(monitor, w, toleranceMs),
    serverPrefillTokensPerSecond: counterRatio(monitor.promptTokensTotal, monitor.prefillSecondsTotal, w),
    serverDecodeTokensPerSecond: counterRatio(monitor.generationTokensTotal, monitor.decodeSecondsTotal, w),
  };
  return Object.values(f).every((v) => v === null) ? null : f;
}
