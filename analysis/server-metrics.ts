// Server-side figures of a cell from the monitor's cumulative samples: histogram sum/count deltas between two scrapes
// that bracket the cell's measured requests and nothing else. Runs in Node.
//
// The monitor samples the engine's counters and histogram _sum/_count as cumulative gauges. A cell's mean server TTFT
// is (sum(t1) - sum(t0)) / (count(t1) - count(t0)), and it is the mean over the client's requests only when the
// server observed exactly those between t0 and t1. So a histogram is read between two scrapes around the cell's
// measured requests (t0 at or before the first one's start, t1 at or after the last one's end) only when the client's
// record shows no other request running between them (a warm-up, a transition request, another cell's: the part's
// request spans) and the server's count grew by exactly the cell's own observations. Otherwise the figure is left
// out and the cell says why: a mean over the scrapes inside the window, as this module once took, is over other
// requests (issue 46: a capacity step's server TTFT came out above its client's, 3,361 ms against 2,262). Rounds
// cells and one-user capacity steps are bracketed so (the driver's quiet gaps); the closed-loop users of a larger
// step keep requests running across every scrape, so its histograms are left out.

import type { ServerMetricKey } from '../lib/metrics';
import { mean, type FloatList } from './stats';
import { runningWithin, type SpanIndex } from './request-spans';

/** A monitor time series (cumulative counters and gauges): sample times (epoch ms) and values, in file order. */
export interface Series {
  readonly times: FloatList;
  readonly values: FloatList;
}

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

/** How many scrapes on each side of a window are tried (the server may observe a request late). */
const EXACT_CANDIDATES = 8;

/**
 * A stretch of a cell's measured requests with no other request among them: one, unless the step was measured again
 * later (the capacity search's repeats), with other steps between.
 */
export interface Period {
  readonly window: Window;
  /** Its requests: their spans among the part's (their e2e samples). */
  readonly requests: number;
}

/** A cell's measured requests: those its client statistics cover. */
export interface OwnRequests {
  /** The first one's start to the last one's end, epoch ms. */
  readonly window: Window;
  /** Requests that succeeded: one observation each in a per-request histogram (TTFT, queue, prefill, e2e). */
  readonly requests: number;
  /** Their token gaps: one observation each in the inter-token histogram. */
  readonly tokenGaps: number;
  readonly periods: readonly Period[];
}

/** Two scrapes of one series, as its sample times. */
export interface ScrapePair {
  readonly t0: number;
  readonly t1: number;
}

/** Two scrapes a histogram was read between, and the observations the server counted there. */
export interface ScrapesRead {
  readonly fromMs: number;
  readonly toMs: number;
  readonly requests: number;
}

/**
 * Pairs of a series' scrapes around a period's requests between which no other request ran (the part's request
 * spans hold only the period's there), tightest first: t1 from the first at or after the end on (a server may observe
 * a request some time after the client has its last byte: SGLang, by up to half a second here), t0 the latest at or
 * before the start first (or the first scrape, when none is that early).
 */
export function isolatingPairs(s: Series, period: Period, spans: SpanIndex): ScrapePair[] {
  const times = s.times.values();
  const order = Array.from(times.keys()).sort((a, b) => times[a]! - times[b]!);
  const w = period.window;
  let before = order.filter((i) => times[i]! <= w.startMs).reverse().slice(0, EXACT_CANDIDATES);
  if (before.length === 0 && order.length > 0) before = [order[0]!];
  const after = order.filter((i) => times[i]! >= w.endMs).slice(0, EXACT_CANDIDATES);
  const pairs: ScrapePair[] = [];
  for (const i1 of after) {
    for (const i0 of before) {
      const t0 = times[i0]!;
      const t1 = times[i1]!;
      if (t0 < t1 && runningWithin(spans, t0, t1) === period.requests) pairs.push({ t0, t1 });
    }
  }
  return pairs;
}

/**
 * A histogram read over a cell's requests: its mean in ms with the scrapes and the count it was read over; `shared`:
 * other requests ran between every pair of scrapes around them; `count`: between the pairs that held only them the
 * server counted another number of observations; `absent`: the server does not expose it.
 */
export type HistogramReading =
  | { readonly kind: 'mean'; readonly ms: number; readonly scrapes: readonly ScrapesRead[]; readonly counted: number }
  | { readonly kind: 'shared' }
  | { readonly kind: 'count'; readonly counted: number; readonly observations: number }
  | { readonly kind: 'absent' };

/** A cumulative series' increase between two of its scrapes (negative on a reset). */
const increase = (s: Series, p: ScrapePair): number => valueAtOrAfter(s, p.t1)! - valueAtOrBefore(s, p.t0)!;

/**
 * A Prometheus histogram's mean over exactly the cell's `observations` (one per request, or per token gap), ms:
 * delta(sum seconds) / delta(count) x 1000 added over the isolating pair of scrapes around each period, which for a
 * per-request histogram is the first whose count grew by the period's requests, for token gaps the tightest. A mean
 * only when the counts add up to exactly `observations`.
 */
export function readHistogram(
  sum: Series | undefined, count: Series | undefined, own: OwnRequests, observations: number, spans: SpanIndex,
  perRequest = true,
): HistogramReading {
  if (!sum || !count || count.times.length === 0 || own.periods.length === 0) return { kind: 'absent' };
  let sumS = 0;
  let counted = 0;
  const scrapes: ScrapesRead[] = [];
  for (const period of own.periods) {
    const pairs = isolatingPairs(count, period, spans);
    if (pairs.length === 0) return { kind: 'shared' };
    const p = (perRequest ? pairs.find((x) => increase(count, x) === period.requests) : undefined) ?? pairs[0]!;
    const [ds, dc] = [increase(sum, p), increase(count, p)];
    if (ds < 0 || dc < 0) return { kind: 'absent' };
    sumS += ds;
    counted += dc;
    scrapes.push({ fromMs: p.t0, toMs: p.t1, requests: dc });
  }
  if (observations <= 0 || counted !== observations) return { kind: 'count', counted, observations };
  return { kind: 'mean', ms: (sumS / counted) * 1000, scrapes, counted };
}

/**
 * A histogram's mean over the pairs of scrapes another per-request histogram was read between (they hold only the
 * cell's requests), ms: the inter-token histogram, whose observations a server may count otherwise than the client's
 * gaps (SGLang observes none for the tokens its first chunk carries beyond the first).
 */
export function readHistogramBetween(
  sum: Series | undefined, count: Series | undefined, scrapes: readonly ScrapesRead[],
): HistogramReading {
  if (!sum || !count || count.times.length === 0) return { kind: 'absent' };
  let sumS = 0;
  let counted = 0;
  for (const r of scrapes) {
    const p = { t0: r.fromMs, t1: r.toMs };
    const [ds, dc] = [increase(sum, p), increase(count, p)];
    if (ds < 0 || dc < 0) return { kind: 'absent' };
    sumS += ds;
    counted += dc;
  }
  return counted > 0 ? { kind: 'mean', ms: (sumS / counted) * 1000, scrapes, counted } : { kind: 'absent' };
}

/** A counter's increase over the tightest isolating pair around each period, added; null without one, or on a reset. */
export function isolatedDelta(s: Series | undefined, own: OwnRequests, spans: SpanIndex): number | null {
  if (!s || own.periods.length === 0) return null;
  let total = 0;
  for (const period of own.periods) {
    const p = isolatingPairs(s, period, spans)[0];
    const d = p ? increase(s, p) : -1;
    if (d < 0) return null;
    total += d;
  }
  return total;
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
  /**
   * Preemptions while the cell's requests ran: between the isolating scrapes, else between the scrapes inside its
   * window (events under its load, not a mean over requests).
   */
  readonly preemptions: number | null;
  /** Largest engine queue length seen in the window. */
  readonly maxWaiting: number | null;
  /** Largest KV-cache usage seen in the window, 0..1. */
  readonly maxKvCacheUsage: number | null;
  /**
   * The server's prefix-cache hit rate over the cell's requests, 0..1: cached / queried prompt tokens (vLLM's
   * counters), else the mean of the server's own rate gauge (SGLang), between the isolating scrapes. Null when the
   * server exposes neither, or no pair of scrapes isolates the cell's requests.
   */
  readonly prefixCacheHitRate: number | null;
  /**
   * Prompt tokens per second of prompt processing as the server timed the cell's requests (llama.cpp: prompt
   * tokens / prompt seconds, both summed over slots, between the isolating scrapes): one request's prefill speed.
   */
  readonly serverPrefillTokensPerSecond: number | null;
  /** Generated tokens per second of generation time summed over slots (llama.cpp): one request's decode speed. */
  readonly serverDecodeTokensPerSecond: number | null;
  /**
   * The scrapes the TTFT mean (else the e2e mean) was read between, and the requests the server counted there: a pair
   * per period of the cell's requests (a step measured again has two or more).
   */
  readonly scrapes: readonly ScrapesRead[] | null;
  /** Why the first histogram mean the server exposes but this cell lacks is left out; null when none is. */
  readonly leftOut: LeftOut | null;
}

/** Tokens over seconds from two cumulative counters over the cell's requests; null without both or time spent. */
export function counterRatio(
  tokens: Series | undefined, seconds: Series | undefined, own: OwnRequests, spans: SpanIndex,
): number | null {
  const t = isolatedDelta(tokens, own, spans);
  const s = isolatedDelta(seconds, own, spans);
  return t === null || s === null || s <= 0 ? null : t / s;
}

/** Hit rate from cumulative hit and query counters over the cell's requests, else a rate gauge's mean there. */
export function prefixCacheHitRate(
  monitor: Partial<Record<ServerMetricKey, Series>>, own: OwnRequests, spans: SpanIndex,
): number | null {
  const queries = isolatedDelta(monitor.prefixCacheQueriesTotal, own, spans);
  const hits = isolatedDelta(monitor.prefixCacheHitsTotal, own, spans);
  if (queries !== null && hits !== null && queries > 0) return Math.min(1, Math.max(0, hits / queries));
  const gauge = monitor.prefixCacheHitRate;
  if (!gauge || own.periods.length === 0) return null;
  const rates: number[] = [];
  for (const period of own.periods) {
    const p = isolatingPairs(gauge, period, spans)[0];
    if (!p) return null;
    // A sample at t0 is of the requests before: the gauge's samples after it, to t1, are the cell's.
    rates.push(...samplesIn(gauge, { startMs: p.t0 + 1e-9, endMs: p.t1 }));
  }
  return mean(rates);
}

/**
 * Why a server histogram's mean is left out: other requests (warm-ups, requests across a step change, another cell's)
 * ran between every pair of scrapes around the measured ones, or the server counted another number of observations
 * (requests, or token gaps) there than the client measured.
 */
export type LeftOut =
  | { readonly kind: 'shared' }
  | {
    readonly kind: 'count'; readonly of: 'requests' | 'tokenGaps'; readonly counted: number;
    readonly observations: number;
  };

/** Why a reading is left out (null for a mean, or a histogram the server lacks). */
function leftOutOf(r: HistogramReading, of: 'requests' | 'tokenGaps'): LeftOut | null {
  if (r.kind === 'shared') return { kind: 'shared' };
  if (r.kind === 'count') return { kind: 'count', of, counted: r.counted, observations: r.observations };
  return null;
}

/**
 * A cell's server figures over its measured requests (`own`), given every request of its part (`spans`); the gauges
 * over its window (the nearest sample within toleranceMs for a window shorter than the scrape interval).
 */
export function serverFigures(
  monitor: Partial<Record<ServerMetricKey, Series>>, own: OwnRequests, spans: SpanIndex, toleranceMs = 0,
): ServerFigures | null {
  const w = own.window;
  const max = (xs: number[]): number | null => (xs.length === 0 ? null : Math.max(...xs));
  const read = (sum: Series | undefined, count: Series | undefined) =>
    readHistogram(sum, count, own, own.requests, spans);
  const ttft = read(monitor.serverTtftSum, monitor.serverTtftCount);
  const e2e = read(monitor.serverE2eSum, monitor.serverE2eCount);
  const queue = read(monitor.queueTimeSum, monitor.queueTimeCount);
  const prefill = read(monitor.prefillTimeSum, monitor.prefillTimeCount);
  const ms = (r: HistogramReading): number | null => (r.kind === 'mean' ? r.ms : null);
  const timed = [ttft, e2e].find((r) => r.kind === 'mean');
  // Token gaps between the scrapes that held exactly the cell's requests, once they were all counted ended (e2e).
  const ended = [e2e, ttft].find((r) => r.kind === 'mean');
  const itl = ended?.kind === 'mean'
    ? readHistogramBetween(monitor.serverItlSum, monitor.serverItlCount, ended.scrapes)
    : readHistogram(monitor.serverItlSum, monitor.serverItlCount, own, own.tokenGaps, spans, false);
  const readings = [[ttft, 'requests'], [e2e, 'requests'], [itl, 'tokenGaps'], [queue, 'requests'],
    [prefill, 'requests']] as const;
  const f: ServerFigures = {
    queueWaitMs: ms(queue),
    prefillTimeMs: ms(prefill),
    serverTtftMs: ms(ttft),
    serverItlMs: ms(itl),
    serverE2eMs: ms(e2e),
    preemptions: isolatedDelta(monitor.preemptionsTotal, own, spans) ?? innerDeltaOver(monitor.preemptionsTotal, w),
    maxWaiting: max(samplesNear(monitor.waiting, w, toleranceMs)),
    maxKvCacheUsage: max(samplesNear(monitor.kvCacheUsage, w, toleranceMs)),
    prefixCacheHitRate: prefixCacheHitRate(monitor, own, spans),
    serverPrefillTokensPerSecond: counterRatio(monitor.promptTokensTotal, monitor.prefillSecondsTotal, own, spans),
    serverDecodeTokensPerSecond: counterRatio(monitor.generationTokensTotal, monitor.decodeSecondsTotal, own, spans),
    scrapes: timed?.kind === 'mean' ? timed.scrapes : null,
    leftOut: readings.map(([r, of]) => leftOutOf(r, of)).find((x) => x !== null) ?? null,
  };
  return Object.values(f).every((v) => v === null) ? null : f;
}
