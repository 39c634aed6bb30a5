// `npm run bench -- --predict`: the flags that do not apply to a prediction refused, the prediction run, its
// report and what-if table printed. Runs in Node.

import type { PlanInput, ScriptName } from '../lib/plan';
import { EXIT, UserError } from '../lib/exit-codes';
import { newRunId } from '../orchestrator/bench-options';
import { runPredictCommand } from '../whatif/predict-command';
import { parseWhatIf } from '../whatif/what-if-variants';
import type { Report } from '../report/report-types';

export interface PredictFlags {
  predict?: string;
  whatIf: string[];
  results: string;
  runId?: string;
  report: boolean;
  /** --verify [n]: true without a count. */
  verify?: string | true;
  /** --verify-budget <minutes>. */
  verifyBudget?: number;
}

/** Flags of a measured run that a prediction has no use for: each would silently do nothing. */
const MEASURING_FLAGS = [
  'url', 'target', 'model', 'apiKey', 'api', 'profile', 'simNoise', 'simNoiseSeed', 'fixedSlots', 'runners',
  'prometheusRw', 'tokenizer', 'trace',
] as const;

/** With --verify the target flags say what to measure; these still make no sense beside a prediction. */
const VERIFY_REFUSED = ['fixedSlots', 'trace'] as const;

/** Runs the prediction; the bench's plan (preset, --scripts, --min-goodput, the environment) as resolved. */
export async function predictFromCommandLine(
  o: PredictFlags,
  plan: {
    planInput: PlanInput; planLabel: string; scripts: readonly ScriptName[]; given: (flag: string) => boolean;
    /** --verify: the target flags say where the prediction is then measured. */
    verifying: boolean;
  },
): Promise<Report> {
  if (o.predict === undefined)
    throw new UserError('--what-if needs --predict <profile>: a variant is predicted', EXIT.usage);
  const refused: readonly string[] = plan.verifying ? VERIFY_REFUSED : MEASURING_FLAGS;
  const flag = refused.find((f) => plan.given(f));
  if (flag) {
    const name = flag.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
    throw new UserError(`--${name} measures a server: leave it out with --predict, which runs in virtual time`,
      EXIT.usage);
  }
  if (!o.report) throw new UserError('--no-report with --predict: the report is what a prediction writes', EXIT.usage);
  const whatIfs = o.whatIf.map(parseWhatIf);
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const outcome = await runPredictCommand({
    profile: o.predict, planInput: plan.planInput, planLabel: plan.planLabel, scripts: plan.scripts,
    resultsRoot: o.results, runId: o.runId ?? newRunId(), whatIfs, log,
  });
  log(`predicted in ${outcome.base.seconds.toFixed(1)} s` +
    (outcome.variants.length > 0 ? `, ${outcome.variants.length} what-if variant(s) in ` +
      `${outcome.variants.reduce((s, v) => s + v.seconds, 0).toFixed(1)} s` : ''));
  const profile = outcome.base.report.predicted?.profile ?? o.predict;
  process.stdout.write(`PREDICTED capacities (simulator profile ${profile}, not measured):\n${outcome.table}\n`);
  process.stdout.write(`results: ${outcome.base.runDir}\n`);
  for (const v of outcome.variants) process.stdout.write(`what if ${v.whatIf.label}: ${v.runDir}\n`);
  return outcome.base.report;
}
