// Open-loop arrival schedules: when each request of a rate cell is meant to be sent. Pure; runs in k6 and Node.
//
// Gaps follow vLLM's `vllm bench serve` definition (docs/guides/open-loop.md): gamma with shape b (`burstiness`) and
// mean 1/R, so b = 1 is a Poisson process, b < 1 burstier, b > 1 smoother; `constant` spaces requests evenly. A ramp
// changes the rate linearly over the cell: arrivals are drawn at unit rate and mapped through the inverse of the
// cumulative rate. As vLLM does, the drawn times are rescaled so that exactly round(mean rate x duration) requests
// fall inside the cell: the offered rate is then the stated one, not the stated one plus sampling noise, and an
// achieved rate short of it is the client's or the server's doing.

import { mulberry32, standardNormal } from './random';

export const ARRIVAL_PROCESSES = ['constant', 'poisson', 'gamma'] as const;
export type ArrivalProcess = (typeof ARRIVAL_PROCESSES)[number];

export interface ArrivalSpec {
  readonly process: ArrivalProcess;
  /** Requests per second at the end of the cell (the whole cell without a ramp). */
  readonly ratePerSecond: number;
  /** Requests per second at the start of a linear ramp to ratePerSecond; null: no ramp. */
  readonly rampFromPerSecond: number | null;
  readonly durationSeconds: number;
  /** The gamma shape b (process gamma); Poisson is 1 whatever this says. */
  readonly burstiness: number;
  readonly seed: number;
}

/** The mean rate over the cell, requests per second. */
export function meanRate(s: Pick<ArrivalSpec, 'ratePerSecond' | 'rampFromPerSecond'>): number {
  return s.rampFromPerSecond === null ? s.ratePerSecond : (s.rampFromPerSecond + s.ratePerSecond) / 2;
}

/** How many requests the schedule holds: the mean rate times the duration, rounded (at least one). */
export function arrivalCount(s: ArrivalSpec): number {
  return Math.max(1, Math.round(meanRate(s) * s.durationSeconds));
}

/**
 * A gamma draw of shape `shape` and scale 1 (Marsaglia and Tsang, 2000; shape below 1 by their boost
 * gamma(a) = gamma(a + 1) * U^(1/a)).
 */
export function gammaDraw(shape: number, random: () => number): number {
  if (shape < 1) return gammaDraw(shape + 1, random) * Math.pow(1 - random(), 1 / shape);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    const x = standardNormal(random);
    const v = Math.pow(1 + c * x, 3);
    if (v <= 0) continue;
    const u = 1 - random();
    if (Math.log(u) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v;
  }
}

/** Arrival positions in "unit time" (0..n), one per request, ascending: where a rate-1 process puts them. */
function unitArrivals(s: ArrivalSpec, n: number): number[] {
  if (s.process === 'constant') return Array.from({ length: n }, (_, k) => k);
  const shape = s.process === 'poisson' ? 1 : s.burstiness;
  const random = mulberry32(s.seed);
  // n + 1 gaps: the last ends the cell, so the n arrivals fall strictly inside it once rescaled.
  const cumulative: number[] = [];
  let sum = 0;
  for (let k = 0; k <= n; k++) {
    sum += gammaDraw(shape, random) / shape;
    cumulative.push(sum);
  }
  return cumulative.slice(0, n).map((x) => (x * n) / sum);
}

/** The time (s) at which the cumulative rate reaches `u` requests: the inverse of r0 t + (r1 - r0) t^2 / (2T). */
function timeAtUnit(u: number, s: ArrivalSpec, scale: number): number {
  const r1 = s.ratePerSecond;
  const r0 = s.rampFromPerSecond ?? r1;
  const x = u * scale;
  if (r0 === r1) return x / r1;
  const a = (r1 - r0) / (2 * s.durationSeconds);
  // a t^2 + r0 t - x = 0, the root in [0, T]; written to stay exact when a is tiny.
  return (2 * x) / (r0 + Math.sqrt(r0 * r0 + 4 * a * x));
}

/** Intended send times, ms after the cell's start, ascending, all within [0, duration). */
export function arrivalTimesMs(s: ArrivalSpec): number[] {
  const n = arrivalCount(s);
  const units = unitArrivals(s, n);
  // The schedule's n requests span the cell's whole cumulative rate, mean rate x duration.
  const scale = (meanRate(s) * s.durationSeconds) / n;
  return units.map((u) => timeAtUnit(u, s, scale) * 1000);
}

/**
 * Requests per second a sender achieved: all n requests over the cell's duration stretched by how late the last one
 * went. A sender that fell behind and caught up achieved the offered rate (its lag is reported on its own); one that
 * ended behind offered its load over a longer time.
 */
export function achievedRate(n: number, durationMs: number, lastLagMs: number): number {
  return n / ((durationMs + Math.max(0, lastLagMs)) / 1000);
}

/**
 * The requests of a schedule of `count` that sender `index` of `senders` sends: every senders-th, from its index. The
 * senders' shares are disjoint and together the whole schedule, each request sent once (docs/guides/split-runs.md).
 */
export function senderShare(count: number, index: number, senders: number): number[] {
  if (!(Number.isInteger(senders) && senders >= 1 && Number.isInteger(index) && index >= 0 && index < senders))
    throw new Error(`sender ${index} of ${senders}: need whole numbers with 0 <= sender < senders`);
  const own: number[] = [];
  for (let i = index; i < count; i += senders) own.push(i);
  return own;
}
