// The k6 side of an entry script, assembled from its steps. Runs in k6 (bundled).
// Init loads the plan (lib/k6/plan-load.ts) and what sends its requests (cell-requests.ts), and picks the way the
// run goes (run-mode.ts); setup draws the run's nonce; the monitor scrapes the server; handleSummary writes the files.

import { buildOptions, type SuiteOptions } from '../options';
import type { Cell, Plan, ScriptName } from '../plan';
import { readSummaryData } from '../summary-data';
import { renderTextSummary } from '../summary-text';
import { segmentPosition } from '../segments';
import { cellShare, RUNNER_FILE, runnerLabel } from '../runner';
import { loadPlan } from './plan-load';
import { cellRequests } from './cell-requests';
import { controlClient } from './control-client';
import { drivenMode } from './driven-mode';
import { slotMode } from './slot-mode';
import { runMonitor } from './monitor';
import { splitRunner, type SetupData } from './run-mode';

export interface Suite {
  readonly plan: Plan;
  readonly options: SuiteOptions;
  setup(): SetupData;
  request(data: SetupData): Promise<void>;
  monitor(): Promise<void>;
  teardown(): Promise<void>;
  handleSummary(data: unknown): Record<string, string>;
}

/**
 * What handleSummary writes: summary.json, the text summary, plan.json when this process resolved the plan (a bench
 * run's plan.json is the bench's to write) and, in a split run, runner.json.
 */
function summaryFiles(raw: unknown, plan: Plan, resultsDir: string, writePlan: boolean): Record<string, string> {
  const data = readSummaryData(raw, 'handleSummary data');
  const runner = (data.setup_data as SetupData | undefined)?.runner ?? null;
  const position = runner ? segmentPosition(runner.segment, runner.sequence) : null;
  const usersOf = position ? (cell: Cell) => cellShare(position, cell) : undefined;
  const files: Record<string, string> = {
    [`${resultsDir}/summary.json`]: JSON.stringify(data, null, 1),
    stdout: renderTextSummary(data, plan, resultsDir, usersOf),
  };
  if (writePlan) files[`${resultsDir}/plan.json`] = JSON.stringify(plan, null, 1);
  if (runner) {
    files[`${resultsDir}/${RUNNER_FILE}`] = JSON.stringify(runner, null, 1);
    // Each runner's thresholds and figures are its share's: say so before they are read as the run's.
    files.stdout =
      `${runnerLabel(runner)}: the figures and thresholds below are this runner's share; ` +
      `npm run report merges the runners' folders\n${files.stdout}`;
  }
  return files;
}

/** Creates the suite for one entry script. Must be called in the init context. */
export function createSuite(script: ScriptName): Suite {
  const { plan, resolvedHere } = loadPlan(script);
  const requests = cellRequests(plan);
  // Set by the bench when it drives the run (lib/drive.ts): VUs ask it for every request.
  const control = __ENV.CONTROL_URL ? controlClient(__ENV.CONTROL_URL.replace(/\/+$/, '')) : null;
  const mode = control ? drivenMode(requests, control) : slotMode(requests);
  const resultsDir = (__ENV.RESULTS_DIR || 'results/latest').replace(/\/+$/, '');
  return {
    plan,
    options: buildOptions(plan, mode.driven),
    setup(): SetupData {
      const { prompts } = requests;
      if (!prompts.exact)
        console.warn(`prompts are approximate (${prompts.tokenizer}); run npm run prepare-prompts for exact lengths`);
      // setup() runs on every runner of a split run: it only draws this runner's nonce and says what it will do.
      const split = splitRunner();
      mode.setup(split);
      return { runNonce: Math.floor(Math.random() * 1_000_000), runner: split?.info ?? null };
    },
    request: (data) => mode.request(data),
    monitor: () => runMonitor(plan, mode.monitorWhile()),
    teardown: () => mode.teardown(),
    handleSummary: (raw) => summaryFiles(raw, plan, resultsDir, resolvedHere),
  };
}
