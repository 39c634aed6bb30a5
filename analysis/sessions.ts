// A sessions cell's own figures: the requests its active users kept in flight, and TTFT and cache hits by turn.
// Runs in Node.
//
// Formulas:
//   concurrent requests at time t = the part's sessions requests (any phase, any step: a user's request from the step
//     before runs into this one) started before t and not yet ended; over the cell's measured window its time-weighted
//     mean and 95th percentile (the count that 95% of the window stays at or below)
//   users per slot = active users / mean concurrent requests
//   prefix-cache hit rate of a turn = cached / prompt tokens of its measured requests (usage.prompt_tokens_details)

import { turnOfTag } from '../lib/sessions';
import type { SessionAccumulator } from './session-samples';
import type { RequestSpans } from './request-spans';
import { summarize } from './stats';

export interface TurnStats {
  /** The turn tag: "1", "2", ..., "16+". */
  readonly turn: string;
  readonly requests: number;
  readonly ttftMeanMs: number | null;
  readonly ttftP95Ms: number | null;
  /** Cached / prompt tokens; null when the server reported no cached tokens in the cell. */
  readonly hitRate: number | null;
}

export interface SessionCellStats {
  /** Time-weighted mean and 95th percentile of the requests in flight over the measured window; null without one. */
  readonly concurrentMean: number | null;
  readonly concurrentP95: number | null;
  /** Cached / prompt tokens of every measured turn; null when the server reported none. */
  readonly hitRate: number | null;
  readonly turns: readonly TurnStats[];
}

/**
 * The time-weighted mean and 95th percentile of the number of intervals [start, end) covering each instant of
 * [from, to]; null for an empty window.
 */
export function inFlight(
  starts: ArrayLike<number>, ends: ArrayLike<number>, from: number, to: number,
): { mean: number; p95: number } | null {
  if (!(to > from)) return null;
  const events: [number, number][] = [];
  let level = 0;
  for (let i = 0; i < starts.length; i++) {
    const s = starts[i]!;
    const e = ends[i]!;
    if (e <= from || s >= to) continue;
    if (s <= from) level++;
    else events.push([s, 1]);
    if (e < to) events.push([e, -1]);
  }
  // Ends before starts at one instant: a request that ends as another starts is not two in flight.
  events.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const timeAt = new Map<number, number>();
  let at = from;
  for (const [t, d] of events) {
    timeAt.set(level, (timeAt.get(level) ?? 0) + (t - at));
    level += d;
    at = t;
  }
  timeAt.set(level, (timeAt.get(level) ?? 0) + (to - at));
  const total = to - from;
  let mean = 0;
  for (const [n, ms] of timeAt) mean += (n * ms) / total;
  let covered = 0;
  let p95 = 0;
  for (const n of [...timeAt.keys()].sort((a, b) => a - b)) {
    covered += timeAt.get(n)!;
    p95 = n;
    if (covered >= 0.95 * total) break;
  }
  return { mean, p95 };
}

/** A sessions cell's figures over its measured window (the first measured request's start to the last's end). */
export function sessionCellStats(
  acc: SessionAccumulator, spans: RequestSpans | null, window: { startMs: number; endMs: number } | null,
): SessionCellStats {
  const flight = window && spans
    ? inFlight(spans.starts.values(), spans.ends.values(), window.startMs, window.endMs)
    : null;
  const turns = [...acc.turns.entries()].sort((a, b) => turnOfTag(a[0]) - turnOfTag(b[0]));
  // vLLM writes cached_tokens only when some were cached: once the cell saw it, an absent one is 0.
  const reported = turns.some(([, t]) => t.cachedReported > 0);
  let cached = 0;
  let input = 0;
  const stats = turns.map(([turn, t]): TurnStats => {
    const ttft = summarize(t.ttft.sorted());
    cached += t.cachedTokens;
    input += t.inputTokens;
    return {
      turn, requests: ttft?.count ?? 0, ttftMeanMs: ttft?.mean ?? null, ttftP95Ms: ttft?.p95 ?? null,
      hitRate: reported && t.inputTokens > 0 ? t.cachedTokens / t.inputTokens : null,
    };
  });
  return {
    concurrentMean: flight?.mean ?? null,
    concurrentP95: flight?.p95 ?? null,
    hitRate: reported && input > 0 ? cached / input : null,
    turns: stats,
  };
}
