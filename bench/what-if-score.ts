// How the what-if benchmark scores a prediction against the truth: the targets and the statistics its table prints.
// Pure. Runs in Node.

import { k6Percentile } from '../lib/percentile';


/** The targets the table holds predictions to (speed and accuracy targets live here, never in tests). */
export const WHAT_IF_TARGETS = {
  /** A capacity within this many users of the truth, or within capacityShare of it, whichever is wider. */
  capacityUsers: 1,
  capacityShare: 0.1,
  /** A grid cell's median TTFT and decode speed each within this share of the truth. */
  cellShare: 0.1,
  /** Share of the stated capacity intervals that must hold the truth. */
  coverage: 0.9,
  /** The whole loop (measure, fit, predict, verify) on the simulator, seconds. */
  loopSeconds: 15 * 60,
  /** A real server's capacity within this share or capacityUsers of the measured one. */
  llamaShare: 0.15,
} as const;

/** Whether a predicted capacity is within the target of the truth: `share` of it or `users`, whichever is wider. */
export function capacityWithin(
  predicted: number, truth: number, share: number = WHAT_IF_TARGETS.capacityShare,
  users: number = WHAT_IF_TARGETS.capacityUsers,
): boolean {
  return Math.abs(predicted - truth) <= Math.max(users, share * truth);
}

/** (predicted - truth) / truth; NaN when the truth is 0 or not finite. */
export function relativeError(predicted: number, truth: number): number {
  return truth !== 0 && isFinite(truth) ? (predicted - truth) / truth : Number.NaN;
}

/** Of relative errors: the share within `tolerance` and the one furthest from 0 (NaNs count as outside). */
export function withinShare(errors: readonly number[], tolerance: number): { share: number; worst: number } {
  if (errors.length === 0) return { share: Number.NaN, worst: Number.NaN };
  const inside = errors.filter((e) => Math.abs(e) <= tolerance).length;
  const worst = errors.reduce((w, e) => (Number.isNaN(e) || Math.abs(e) > Math.abs(w) ? e : w), 0);
  return { share: inside / errors.length, worst };
}

/** Whether [low, high] holds the truth. */
export function intervalHolds(low: number, high: number, truth: number): boolean {
  return truth >= low && truth <= high;
}

/** The 5th-95th percentile of values, as whatif/prediction-interval.ts states a capacity's interval. */
export function percentileInterval(values: readonly number[]): { low: number; high: number } {
  const sorted = [...values].sort((a, b) => a - b);
  return { low: k6Percentile(sorted, sorted.length, 0.05), high: k6Percentile(sorted, sorted.length, 0.95) };
}

/** A relative error as a signed percentage, one decimal. */
export function pct(e: number): string {
  return Number.isNaN(e) ? 'n/a' : `${e >= 0 ? '+' : ''}${(e * 100).toFixed(1)}%`;
}

/** "ok" or "MISSED", for a table's verdict column. */
export function verdict(pass: boolean): string {
  return pass ? 'ok' : 'MISSED';
}
