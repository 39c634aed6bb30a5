// The exports every k6 entry script needs, made from the suite for one script. Runs in k6 (bundled).
// They are options, setup, default, monitor, teardown and handleSummary.

import type { Options } from 'k6/options';
import { PlanError, type ScriptName } from '../plan';
import { createSuite } from './suite';
import type { SetupData } from './run-mode';

export interface EntryScript {
  readonly options: Options;
  setup(): SetupData;
  /** One iteration: one request, or in a bench-driven run every request the bench hands this VU. */
  run(data: SetupData): Promise<void>;
  monitor(): Promise<void>;
  teardown(): Promise<void>;
  handleSummary(data: unknown): Record<string, string>;
}

/** Must be called in the init context (k6 loads the plan and prompts there). */
export function entryScript(script: ScriptName): EntryScript {
  let suite: ReturnType<typeof createSuite>;
  try {
    suite = createSuite(script);
  } catch (e) {
    // k6 prints a thrown Error with its JavaScript stack; a bad plan, env value or prompts file is the
    // user's input, so it is thrown as its one-line message (k6 exits 107). Anything else is a bug of
    // ours and keeps its stack.
    if (e instanceof PlanError) throw e.message;
    throw e;
  }
  return {
    options: suite.options as Options,
    setup: () => suite.setup(),
    run: (data) => suite.request(data),
    monitor: () => suite.monitor(),
    teardown: () => suite.teardown(),
    handleSummary: (data) => suite.handleSummary(data),
  };
}
