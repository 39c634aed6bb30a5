// What `npm run bench -- --predict` does after the bench has resolved its plan: the base prediction, then each
// --what-if variant as its own predicted run compared with the base, and the table of their capacities. Runs in Node.

import { UserError } from '../lib/exit-codes';
import { PlanError, type PlanInput, type ScriptName } from '../lib/plan';
import { loadPredictProfile } from './predict-profile';
import { predictedPlans, predictRun, type PredictOutcome } from './predict-run';
import { renderReachNotes, renderWhatIfTable } from './what-if-table';
import { applyWhatIf, variantSlug, type WhatIf } from './what-if-variants';

export interface PredictCommand {
  /** --predict: a built-in profile's name or letter, a profile JSON, or a fitted profile JSON. */
  readonly profile: string;
  readonly planInput: PlanInput;
  readonly planLabel: string;
  readonly scripts: readonly ScriptName[];
  readonly resultsRoot: string;
  readonly runId: string;
  readonly whatIfs: readonly WhatIf[];
  readonly log: (line: string) => void;
}

export interface PredictCommandOutcome {
  readonly base: PredictOutcome;
  readonly variants: readonly (PredictOutcome & { readonly whatIf: WhatIf })[];
  /** The capacities of the base and every variant, side by side. */
  readonly table: string;
}

export async function runPredictCommand(c: PredictCommand): Promise<PredictCommandOutcome> {
  const profile = loadPredictProfile(c.profile);
  // Every variant is checked before the first part runs: a bad one costs nothing.
  const useCases = predictedPlans(c.planInput, c.scripts, profile.profile)[0]!.useCases;
  const variantInputs = c.whatIfs.map((w) => {
    const planInput = applyWhatIf(c.planInput, useCases, w);
    try {
      predictedPlans(planInput, c.scripts, profile.profile);
    } catch (e) {
      if (e instanceof UserError) throw new UserError(`--what-if ${w.label}: ${e.message}`, e.exitCode);
      if (e instanceof PlanError) throw new PlanError(`--what-if ${w.label}: ${e.message}`);
      throw e;
    }
    return { w, planInput };
  });
  c.log(`predicting plan ${c.planLabel} with simulator profile ${profile.profile.name} (${profile.source}) ` +
    'in virtual time');
  const common = { profile, planLabel: c.planLabel, scripts: c.scripts, resultsRoot: c.resultsRoot, log: c.log };
  const base = await predictRun({ ...common, planInput: c.planInput, runId: c.runId });
  const variants = [];
  for (const { w, planInput } of variantInputs) {
    c.log(`what if ${w.label}:`);
    const variant = { label: w.label, baseRunDir: base.runDir };
    const runId = `${c.runId}-what-if-${variantSlug(w)}`;
    variants.push({ ...(await predictRun({ ...common, planInput, runId, variant })), whatIf: w });
  }
  const notes = renderReachNotes(base.report);
  const table = renderWhatIfTable([
    { label: 'base', report: base.report },
    ...variants.map((v) => ({ label: v.whatIf.label, report: v.report })),
  ]) + (notes ? `\n${notes}` : '');
  return { base, variants, table };
}
