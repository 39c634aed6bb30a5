// The CPU priority of vLLM's test lane, raised above the main group beside it. Runs in Node (vitest).

import { getPriority, setPriority } from 'node:os';

/** How many nice levels the lane runs above the test files beside it. */
const LANE_PRIORITY_RAISE = 5;

/**
 * vLLM's file runs beside the main group of test files (vitest.config.ts), in a worker thread of its own. Raised above
 * the rest, this thread and what it starts (the server, the bench, k6, the agent) take their core when they need it,
 * as they did when only one other file ran beside them. Linux keeps a nice value per thread, and a child takes its
 * starting thread's. Where raising is not permitted (not root), the lane runs as given.
 */
export function raiseLanePriority(): void {
  const target = getPriority(process.pid) - LANE_PRIORITY_RAISE;
  try {
    if (getPriority() > target) setPriority(target);
  } catch {
    // Not permitted: nothing to do; the server's own clock still judges the client.
  }
}
