// Time sources for the runner: a monotonic clock for durations and epoch times derived from it. Runs in Node.
import { performance } from 'node:perf_hooks';

/** Monotonic milliseconds (float) since process start. */
export function monoMs(): number {
  return performance.now();
}

const ORIGIN = performance.timeOrigin;

/** Epoch milliseconds (float) on the monotonic clock, so sample times never step backwards. */
export function epochMs(): number {
  return ORIGIN + performance.now();
}

/** Converts a monotonic reading to epoch milliseconds. */
export function monoToEpochMs(mono: number): number {
  return ORIGIN + mono;
}
