// The two ways a k6 process runs the plan's cells, behind one face: in k6's own time slots, one scenario per cell
// (lib/k6/slot-mode.ts, a plain `k6 run`), or handed every request by the bench (lib/k6/driven-mode.ts). Runs in k6.

import exec from 'k6/execution';
import type { DrivenOptions } from '../options';
import { runnerOf, type RunnerInfo, type SegmentOptions } from '../runner';

/**
 * Passed from setup() to every VU and to handleSummary: a per-run number that makes prompt prefixes unique
 * across runs, and in a split run which runner this process is (written to runner.json at the end).
 */
export interface SetupData {
  readonly runNonce: number;
  readonly runner?: RunnerInfo | null;
}

/** This process's place in a split run. */
export type SplitRunner = NonNullable<ReturnType<typeof runnerOf>>;

/** This process's place in a split run, from k6's options (VU context only: k6 has no options in init). */
export function splitRunner(): SplitRunner | null {
  return runnerOf(exec.test.options as unknown as SegmentOptions);
}

export interface RunMode {
  /** The one scenario of a driven run; null in time slots, one scenario per cell. */
  readonly driven: DrivenOptions | null;
  /** setup()'s part: a split runner in time slots says which cells it has no users in, and waits for the others. */
  setup(split: SplitRunner | null): void;
  /** One iteration of a VU. */
  request(data: SetupData): Promise<void>;
  /** Whether the monitor goes on scraping; made once per monitor (it may keep state between calls). */
  monitorWhile(): () => Promise<boolean>;
  teardown(): Promise<void>;
}
