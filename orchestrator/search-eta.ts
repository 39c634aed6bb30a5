// The time left in a capacity search, for the bench's status line. Runs in Node.
// Pure arithmetic on the use cases' limits and the steps so far.
//
// Averaging the steps so far underestimated badly: the first use cases are the short-context ones,
// and in every use case the costly steps are the last ones, near its capacity. Those steps run at the
// use case's own limits, so their requests last about as long as the limits allow (TTFT limit plus
// the output at the speed limit), and a step lasts one to two such requests. In the quick plan's runs
// on the default simulator, each use case's search took 0.8-1.4 x 4 of these request times (code
// completion, whose short steps are mostly its climb, 3 x).

import { mean } from '../analysis/stats';
import type { UseCase } from '../thresholds/use-cases';

/** Request times a use case's search is expected to cost (see above). */
export const SEARCH_REQUEST_TIMES = 4;

/**
 * The longest a request may last and still be within the limits, in seconds: the e2e limit, or the
 * TTFT limit plus the remaining output tokens at the speed (or ITL / TPOT) limit. Null when the
 * limits do not bound it (no TTFT limit, or nothing that bounds the decode).
 */
export function requestSecondsWithinLimits(limits: UseCase['limits'], outputTokens: number): number | null {
  const upper = (metric: string): number | undefined =>
    limits.find((l) => l.metric === metric && l.operator.startsWith('<'))?.value;
  const lower = (metric: string): number | undefined =>
    limits.find((l) => l.metric === metric && l.operator.startsWith('>'))?.value;
  const e2eMs = upper('e2e');
  if (e2eMs !== undefined) return e2eMs / 1000;
  const ttftMs = upper('ttft');
  if (ttftMs === undefined) return null;
  const decodeTokens = Math.max(0, outputTokens - 1);
  const speed = lower('decodeSpeed');
  if (speed !== undefined && speed > 0) return ttftMs / 1000 + decodeTokens / speed;
  const perTokenMs = upper('tpot') ?? upper('itl');
  if (perTokenMs !== undefined) return (ttftMs + decodeTokens * perTokenMs) / 1000;
  return null;
}

export interface SearchEtaInput {
  /** The use case being searched: its request-time bound, seconds spent on it, and its steps so far (seconds each). */
  readonly current: {
    readonly boundSeconds: number | null; readonly spentSeconds: number; readonly stepSeconds: readonly number[];
    readonly stepsLeft: number;
  };
  /** The request-time bound of each use case still to come. */
  readonly future: readonly (number | null)[];
  /** Every step of the part so far, seconds each: the fallback for a use case without a bound. */
  readonly allStepSeconds: readonly number[];
}

/** Seconds left in the search; null before any step has ended and without bounds to go on. */
export function searchEtaSeconds(input: SearchEtaInput): number | null {
  const { current } = input;
  const meanAll = mean(input.allStepSeconds);
  const meanHere = mean(current.stepSeconds) ?? meanAll;
  // Whichever is longer: the steps the search still expects at this use case's pace so far, or what is left of its
  // budget.
  const byPace = meanHere === null ? null : current.stepsLeft * meanHere;
  const byBound =
    current.boundSeconds === null ? null : SEARCH_REQUEST_TIMES * current.boundSeconds - current.spentSeconds;
  if (byPace === null && byBound === null) return null;
  let seconds = Math.max(byPace ?? 0, byBound ?? 0);
  for (const bound of input.future) {
    if (bound !== null) seconds += SEARCH_REQUEST_TIMES * bound;
    else if (meanAll !== null) seconds += SEARCH_REQUEST_TIMES * meanAll;
    else return null;
  }
  return seconds;
}
