// The plan of a k6 process: the resolved plan the bench wrote, or a plan input resolved here. Runs in k6 (bundled).

import { SharedArray } from 'k6/data';
import { applyEnvToPlan } from '../env';
import {
  isResolvedPlan, PlanError, readResolvedPlan, resolvePlan, type Plan, type PlanInput, type ScriptName,
} from '../plan';

/** The plan and where it came from: a plan this process resolved is its own to write beside the results. */
export interface LoadedPlan {
  readonly plan: Plan;
  /** False when PLAN named a resolved plan (a bench run's plan.json): the bench wrote it and writes it again. */
  readonly resolvedHere: boolean;
}

/** A JSON file k6 opens in init, its failures as one-line PlanErrors naming the variable. */
export function readJsonFile(path: string, what: string): unknown {
  let text: string;
  try {
    text = open(path);
  } catch (e) {
    throw new PlanError(`${what} "${path}" cannot be read: ${String(e)}`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new PlanError(`${what} "${path}" is not valid JSON: ${String(e)}`);
  }
}

/**
 * PLAN's plan: a resolved plan (plan.json of this schema version) is run as it is, since the bench resolved it once
 * for the run, environment included; a plan input (or none) is resolved with the environment's overrides, as a plain
 * `k6 run` needs.
 */
function planFromEnv(script: ScriptName): LoadedPlan {
  const raw = __ENV.PLAN ? readJsonFile(__ENV.PLAN, 'PLAN') : {};
  if (isResolvedPlan(raw)) {
    const plan = readResolvedPlan(raw);
    if (plan.script !== script)
      throw new PlanError(`PLAN "${__ENV.PLAN}" is the resolved plan of the ${plan.script} script, not of ${script}`);
    return { plan, resolvedHere: false };
  }
  const plan = resolvePlan(applyEnvToPlan(raw as PlanInput, __ENV), script, (path) => open(path));
  return { plan, resolvedHere: true };
}

/**
 * Loads and validates the plan once per k6 process, in the first VU's init: every other VU takes a copy of the
 * resolved plan from a SharedArray and never builds the plan's schemas (about 2 MB per VU when each VU resolved
 * it). A plan error crosses as its message, to be thrown as the same PlanError in every VU.
 */
export function loadPlan(script: ScriptName): LoadedPlan {
  type Entry = { loaded?: LoadedPlan; error?: string };
  const shared = new SharedArray(`plan:${script}`, (): Entry[] => {
    try {
      return [{ loaded: planFromEnv(script) }];
    } catch (e) {
      if (e instanceof PlanError) return [{ error: e.message }];
      throw e;
    }
  });
  const entry = shared[0]!;
  if (entry.error !== undefined) throw new PlanError(entry.error);
  return entry.loaded!;
}
