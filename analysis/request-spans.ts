// When each request of a part ran, whatever its cell and phase: what was in flight during a step, and whether
// anything but a cell's own requests ran between two scrapes of the server. Runs in Node (pure).

import { FloatList } from './stats';

/**
 * Every request of a part with a sample of its whole time (e2e, or an embed request's latency: lib/metrics.ts
 * REQUEST_SPAN_KEYS), in any phase and of any cell, as [start, end] epoch ms: a step's warm-ups and transition requests
 * (those its users started in the step before included) and every other cell's. A failed request has no such sample
 * and is left out.
 */
export interface RequestSpans {
  readonly starts: FloatList;
  readonly ends: FloatList;
}

export function newRequestSpans(): RequestSpans {
  return { starts: new FloatList(256), ends: new FloatList(256) };
}

/** A request that ended at `endMs` after `e2eMs` (its llm_e2e or llm_embed_latency sample). */
export function addRequestSpan(spans: RequestSpans, endMs: number, e2eMs: number): void {
  spans.starts.push(endMs - e2eMs);
  spans.ends.push(endMs);
}

/** The spans' starts and ends, each sorted: how many requests ran within a time, by two binary searches. */
export interface SpanIndex {
  readonly starts: Float64Array;
  readonly ends: Float64Array;
}

export function spanIndex(spans: RequestSpans): SpanIndex {
  return { starts: spans.starts.sorted(), ends: spans.ends.sorted() };
}

/** How many of the sorted values are below x (strictly, or at most x with `orEqual`). */
function countBelow(sorted: Float64Array, x: number, orEqual: boolean): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < x || (orEqual && sorted[mid] === x)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * How many requests ran at some time strictly between t0 and t1 (t0 < t1): those started before t1 less those
 * ended by t0 (a request that ended by t0 started before t1 too).
 */
export function runningWithin(index: SpanIndex, t0: number, t1: number): number {
  return countBelow(index.starts, t1, false) - countBelow(index.ends, t0, true);
}

/**
 * A cell's requests ([start, end] as `ends - e2e` and `ends`) split where another request of the part ran between
 * two of them: the stretches a step measured again later was measured in, each with its window and request count.
 */
export function ownPeriods(
  e2e: ArrayLike<number>, ends: ArrayLike<number>, index: SpanIndex,
): { window: { startMs: number; endMs: number }; requests: number }[] {
  const order = Array.from({ length: Math.min(e2e.length, ends.length) }, (_, i) => i)
    .sort((a, b) => ends[a]! - e2e[a]! - (ends[b]! - e2e[b]!));
  const periods: { window: { startMs: number; endMs: number }; requests: number }[] = [];
  for (const i of order) {
    const [start, end] = [ends[i]! - e2e[i]!, ends[i]!];
    const last = periods[periods.length - 1];
    // Between the stretch's last end and this start none of the cell's ran: any request running there is another's.
    if (last && (start <= last.window.endMs || runningWithin(index, last.window.endMs, start) === 0)) {
      last.window.endMs = Math.max(last.window.endMs, end);
      last.requests++;
    } else periods.push({ window: { startMs: start, endMs: end }, requests: 1 });
  }
  return periods;
}
