// The cut-offs the report grades figures by: bands of per-user decode speed, TTFT and ITL, a saturated queue, severe
// contention, a prefix cache that hits, a capacity most of whose requests broke a limit. Numbers and predicates only;
// report/judgement.ts words each band and verdict. Runs in Node (pure).

import type { UseCaseCapacity } from './capacity';

/**
 * One band of a graded figure: values at or above the previous band's `below` and under its own (null: no upper
 * end).
 */
export interface Band {
  readonly below: number | null;
}

/** Per-user generation speed (tok/s) against reading speed: slow, acceptable, fast, very fast. */
export const DECODE_SPEED_BOUNDS_TOKS = [15, 25, 50, null] as const;
/** Time to first token (ms): instant, responsive, noticeable, slow, frustrating. */
export const TTFT_BOUNDS_MS = [500, 2000, 5000, 10000, null] as const;
/** Inter-token latency (ms): imperceptible, noticeable, tokens visible as they stream. */
export const ITL_BOUNDS_MS = [20, 70, null] as const;
/** Mean server queue wait (ms) above which requests wait for the GPU rather than being served at once. */
export const QUEUE_SATURATED_ABOVE_MS = 1000;
/** Scaling efficiency (0..1) below which adding requests brings diminishing returns. */
export const SEVERE_CONTENTION_BELOW = 0.5;
/**
 * Prefix-cache hit rate (0..1) from which a cell counts as hitting: the smallest rate the one-decimal column shows
 * as 0.1%, not 0.0%.
 */
export const PREFIX_CACHE_HIT_FROM = 0.0005;

/** Bands from their bounds and what the report says of each, one to one. */
export function withBounds<W extends object>(
  bounds: readonly (number | null)[], words: readonly W[],
): (W & Band)[] {
  if (bounds.length !== words.length) throw new Error(`${bounds.length} bounds for ${words.length} bands`);
  return bounds.map((below, i) => ({ below, ...words[i]! }));
}

/** The band a value falls in; past the last bound (or NaN), the open top band. */
export function bandOf<B extends Band>(bands: readonly B[], v: number): B {
  return bands.find((b) => b.below !== null && v < b.below) ?? bands[bands.length - 1]!;
}

export function queueSaturated(queueWaitMs: number): boolean {
  return queueWaitMs > QUEUE_SATURATED_ABOVE_MS;
}

export function severeContention(scalingEfficiency: number): boolean {
  return scalingEfficiency < SEVERE_CONTENTION_BELOW;
}

export function prefixCacheHit(hitRate: number): boolean {
  return hitRate >= PREFIX_CACHE_HIT_FROM;
}

/**
 * Below this goodput at the capacity step, the capacity is not called supported. A limit is judged on the step's
 * statistic (by default the mean): where fewer than half of the step's requests met every limit on their own figures,
 * the statistic held because a minority was far better than the limit, and a typical user of that step saw one
 * broken. The quick example's 96K coding assistant: 2 users within the mean limits, 0% of its requests within them.
 */
export const LOW_GOODPUT = 0.5;

/** Whether a capacity holds on its step's statistic while most of that step's requests broke a limit. */
export function lowGoodput(capacity: Pick<UseCaseCapacity, 'goodputAtCapacity' | 'result'>): boolean {
  const held = capacity.result.kind === 'within' || capacity.result.kind === 'beyond';
  return held && capacity.goodputAtCapacity !== null && capacity.goodputAtCapacity < LOW_GOODPUT;
}
