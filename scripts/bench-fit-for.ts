// `npm run bench -- --plan fit --fit-for <plan> [--fit-budget <minutes>]`: the fit plan sized to the plan the
// prediction will be asked (whatif/fit-plan-for.ts), read from the command line. Runs in Node.

import { readFileSync } from 'node:fs';
import { EXIT } from '../lib/exit-codes';
import type { PlanInput, ScriptName } from '../lib/plan';
import { DEFAULT_PLANS, PLAN_SCRIPTS, REPORT_PRESETS } from '../orchestrator/default-plans';
import { findProfile } from '../sim/profiles';
import { DEFAULT_FIT_BUDGET_MINUTES, fitPlanFor } from '../whatif/fit-plan-for';
import { UserError } from './cli';

export interface FitForFlags {
  readonly fitFor?: string;
  readonly fitBudget?: string;
  readonly profile?: string;
}

/** The scripts a plan runs when no --scripts is given, as the bench picks them. */
function planScripts(name: string): readonly ScriptName[] {
  return REPORT_PRESETS[name]?.scripts ?? PLAN_SCRIPTS[name] ?? ['sweep', 'capacity'];
}

function readTarget(name: string): PlanInput {
  const builtIn = DEFAULT_PLANS[name];
  if (builtIn) return builtIn;
  try {
    return JSON.parse(readFileSync(name, 'utf8')) as PlanInput;
  } catch (e) {
    throw new UserError(`--fit-for ${name}: ${(e as Error).message.split('\n')[0]}`, EXIT.usage);
  }
}

/**
 * The sized fit plan and its label, or null without --fit-for. Its cost is estimated on the simulator profile the
 * run names (--profile), else profile A: the order of a GPU the fit plan is meant for.
 */
export function fitForPlan(o: FitForFlags, planName: string): { plan: PlanInput; label: string } | null {
  if (o.fitFor === undefined) {
    if (o.fitBudget !== undefined) throw new UserError('--fit-budget sizes --fit-for: give both', EXIT.usage);
    return null;
  }
  if (planName !== 'fit') throw new UserError('--fit-for sizes the fit plan: give --plan fit', EXIT.usage);
  const budget = Number(o.fitBudget ?? DEFAULT_FIT_BUDGET_MINUTES);
  if (!(budget > 0)) throw new UserError('--fit-budget must be a number of minutes > 0', EXIT.usage);
  const cost = findProfile(o.profile ?? 'A');
  if (!cost) throw new UserError(`--profile ${o.profile}: no such simulator profile`, EXIT.usage);
  let sized;
  try {
    sized = fitPlanFor(readTarget(o.fitFor), planScripts(o.fitFor), budget, cost);
  } catch (e) {
    if (e instanceof UserError) throw e;
    throw new UserError(`--fit-for ${o.fitFor}: ${(e as Error).message.split('\n')[0]}`, EXIT.usage);
  }
  for (const note of sized.notes) process.stderr.write(`${note}\n`);
  return { plan: sized.plan, label: `built-in "fit" sized for ${o.fitFor}` };
}
