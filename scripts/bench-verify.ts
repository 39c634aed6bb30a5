// `npm run bench -- --predict <profile> --verify [n]`: measures the steps either side of the n predicted capacities
// the prediction is least sure of (whatif/verify.ts) on the target and states predicted against measured. Runs in Node.

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { EXIT, UserError } from '../lib/exit-codes';
import type { PlanInput } from '../lib/plan';
import type { BenchOutcome } from '../orchestrator/bench-options';
import { analyzeRun } from '../report/generate';
import type { Report } from '../report/report-types';
import { verify, verifyPlanInput, verifySelection } from '../whatif/verify';
import { renderVerification } from '../whatif/verify-table';

/** Use cases verified when --verify gives no count. */
const DEFAULT_VERIFIED = 3;
/** Minutes the verification may take when --verify-budget gives none: the loop's measure-fit-predict-verify in 15. */
export const DEFAULT_VERIFY_BUDGET_MINUTES = 5;

function countOf(arg: string | true | undefined): number {
  if (arg === undefined || arg === true) return DEFAULT_VERIFIED;
  const n = Number(arg);
  if (!Number.isInteger(n) || n < 1) {
    throw new UserError(`--verify must be a whole number >= 1, got "${arg}"`, EXIT.usage);
  }
  return n;
}

/**
 * Measures the verification steps with `measure`, one run per use case, compares them with the prediction, prints the
 * table and writes it beside the predicted run (verification.json, verification.txt). Returns the measured runs'
 * folders; an interrupt keeps what was measured and compares that.
 */
export async function verifyPrediction(
  predicted: Report, planInput: PlanInput, arg: string | true | undefined, budgetMinutes: number,
  measure: (plan: PlanInput, useCase: string) => Promise<BenchOutcome>,
): Promise<string[]> {
  const { steps, seconds, leftOut } = verifySelection(predicted, countOf(arg), budgetMinutes * 60);
  const passedOver = leftOut.map((u) => `${u.useCase} (about ${Math.ceil(u.seconds / 60)} min)`).join(', ');
  if (steps.length === 0) {
    throw new UserError('--verify: the prediction has no capacity between two steps to measure within ' +
      `--verify-budget ${budgetMinutes} min` + (passedOver ? ` (over it: ${passedOver})` : ''), EXIT.badInput);
  }
  process.stderr.write(`verifying ${steps.length} predicted steps on the target, about ${Math.ceil(seconds / 60)} ` +
    `min: ${steps.map((s) => `${s.useCase} at ${s.users}`).join(', ')}` +
    (passedOver ? `; passed over for --verify-budget ${budgetMinutes} min: ${passedOver}` : '') + '\n');
  const runs: { useCase: string; runDir: string; report: Report }[] = [];
  for (const useCase of [...new Set(steps.map((s) => s.useCase))]) {
    const outcome = await measure(verifyPlanInput(planInput, useCase, steps), useCase);
    runs.push({ useCase, runDir: outcome.runDir, report: await analyzeRun(outcome.runDir) });
    if (outcome.interrupted) break;
  }
  const verification = verify(predicted, runs.map((r) => r.report), steps);
  const text = renderVerification(verification);
  process.stdout.write(`PREDICTED against MEASURED (${runs.map((r) => r.runDir).join(', ')}):\n${text}\n`);
  const measuredRuns = Object.fromEntries(runs.map((r) => [r.useCase, r.runDir]));
  const record = { predictedRun: predicted.runDir, measuredRuns, steps, ...verification };
  writeFileSync(path.join(predicted.runDir, 'verification.json'), JSON.stringify(record, null, 2) + '\n');
  writeFileSync(path.join(predicted.runDir, 'verification.txt'), text + '\n');
  return runs.map((r) => r.runDir);
}
