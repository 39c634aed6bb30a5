// The run clock for k6 code: float milliseconds since the test started. Runs in k6 (bundled).

import exec from 'k6/execution';
import { setTimeout } from 'k6/timers';

/** exec.instance.currentTestRunDuration: float ms, unlike Date.now(), whose resolution in k6 is 1 ms. */
export function nowMs(): number {
  return exec.instance.currentTestRunDuration;
}

/** Waits without blocking the VU's event loop: k6's sleep() would hold its streams' promises too. */
export function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}

