// The scheduler limits a fit run neither reached nor was told, drawn per refit so the prediction interval carries
// them. Runs in Node, pure.
//
// A fit run's timings say nothing of the KV cache size, the batch's sequence limit or the prefill chunk unless a run
// reaches them; unstated, they are the base profile's guess. Held fixed, that guess showed no doubt in the interval,
// though a long prompt's TTFT under load rests on the chunk and a high capacity on the cache. Each refit draws them
// log-uniformly within a factor of the guess. The block size only rounds the cache's allocation: kept.

import { mulberry32 } from '../lib/random';
import type { SchedulerConfig } from '../sim/profiles';

/** The limits drawn when not stated. */
export const DRAWN_LIMITS = ['kvCapacityTokens', 'maxNumSeqs', 'chunkTokens'] as const;
export type DrawnLimit = (typeof DRAWN_LIMITS)[number];
/** How far an unstated limit may be from the base's guess, either way: a server's defaults differ by about that. */
export const SCHEDULER_FACTOR = 2;

/** Per refit, a draw of each unstated limit (whole numbers); empty objects when every limit was stated. */
export function schedulerDraws(
  scheduler: SchedulerConfig, stated: (limit: DrawnLimit) => boolean, count: number, seed: number,
): Partial<Record<DrawnLimit, number>>[] {
  const loose = DRAWN_LIMITS.filter((k) => !stated(k));
  const random = mulberry32(seed ^ 0x5c4ed);
  const width = Math.log(SCHEDULER_FACTOR);
  return Array.from({ length: count }, () => Object.fromEntries(loose.map((k) =>
    [k, Math.max(1, Math.round(scheduler[k] * Math.exp((2 * random() - 1) * width)))])));
}
