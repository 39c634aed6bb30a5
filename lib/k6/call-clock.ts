// The run clock placed on the wall clock, so that a call to the measuring agent can carry the wall time it was made
// at and the agent can measure the hand-off. Runs in k6 (bundled); imports only k6/execution, so the stream module
// (dist/llm.js) needs no more of k6 than it did.

import exec from 'k6/execution';

/** The Unix epoch time of the run clock's zero, ms; null until calibrateCallClock ran in this VU. */
let runZeroEpochMs: number | null = null;

/** Ticks of Date.now() the calibration reads across. */
const CALIBRATION_TICKS = 3;

/**
 * Places the run clock on the wall clock, to a few microseconds, so that calls to the agent carry the wall time they
 * were made at (callEpochMs) and the agent can measure the hand-off to it. Date.now() in k6 is whole ms (floored), so
 * a reading taken just as it ticks, minus the run clock read just after, lies microseconds below the true offset; the
 * largest of three such readings is kept. Costs the VU up to 3 ms of spinning: the open-loop sender calls it once
 * per cell, before its schedule starts.
 */
export function calibrateCallClock(): void {
  let best = -Infinity;
  for (let tick = 0; tick < CALIBRATION_TICKS; tick++) {
    const before = Date.now();
    let wall = Date.now();
    while (wall === before) wall = Date.now();
    best = Math.max(best, wall - exec.instance.currentTestRunDuration);
  }
  runZeroEpochMs = best;
}

/** The wall-clock time at run-clock time runMs, ms since the Unix epoch; undefined before calibrateCallClock. */
export function epochAt(runMs: number): number | undefined {
  return runZeroEpochMs === null ? undefined : runZeroEpochMs + runMs;
}
