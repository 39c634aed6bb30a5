// A fitted profile's prediction interval: the capacity predicted with each refit on resampled requests, and the
// 5th-95th percentile of those predictions. Pure. Runs in Node.

import { k6Percentile } from '../lib/percentile';

/** The interval's method, as report.json and the report state it. */
export const INTERVAL_METHOD = 'fit-resamples-p5-p95';
export const INTERVAL_LOW = 0.05;
export const INTERVAL_HIGH = 0.95;

export interface CapacityInterval {
  readonly useCase: string;
  /** The 5th and 95th percentile of the resampled profiles' capacities, users. */
  readonly low: number;
  readonly high: number;
  /** How many resampled profiles predicted a capacity for the use case. */
  readonly resamples: number;
}

/**
 * Per use case, the spread of the capacities the resampled profiles predict (each a map use case -> users); a use
 * case no resample predicted is left out.
 */
export function capacityIntervals(predictions: readonly ReadonlyMap<string, number>[]): CapacityInterval[] {
  const byUseCase = new Map<string, number[]>();
  for (const p of predictions) for (const [id, users] of p) byUseCase.set(id, [...(byUseCase.get(id) ?? []), users]);
  return [...byUseCase].map(([useCase, values]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return {
      useCase,
      low: k6Percentile(sorted, sorted.length, INTERVAL_LOW),
      high: k6Percentile(sorted, sorted.length, INTERVAL_HIGH),
      resamples: sorted.length,
    };
  });
}

/**
 * Refits an interval uses at most: each costs a whole capacity search (the full plan's: about 10 s), and 20 already
 * place the 5th and 95th percentiles between the two lowest and the two highest capacities.
 */
export const INTERVAL_REFITS = 20;

/** At most `count` of the refits, evenly spread over the fit record's (which are in no particular order). */
export function intervalRefits<T>(refits: readonly T[], count = INTERVAL_REFITS): T[] {
  if (refits.length <= count) return [...refits];
  return Array.from({ length: count }, (_, i) => refits[Math.floor((i * refits.length) / count)]!);
}
