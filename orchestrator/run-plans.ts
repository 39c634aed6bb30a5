// A bench run's plans: resolved once from the plan input, bound to the server, their slots sized, one file per part.
// Runs in Node. Every k6 process of a part reads its plan.json as resolved here (lib/k6/plan-load.ts), so the bench,
// the VUs and the report see one plan; writePartPlan is the one writer of plan.json in a bench run.

import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { applyEnvToPlan } from '../lib/env';
import {
  bindTarget, reschedulePlan, resolvePlan, type ApiStyle, type Plan, type PlanInput, type ScriptName,
} from '../lib/plan';
import type { Profile } from '../sim/profiles';
import { predictCellSeconds } from './sim-schedule';

/** Slot sizing against the simulator, whose own engine predicts each cell: slots can be tight. */
const SIMULATOR_SLOTS = { safetyFactor: 1.25, minCellSeconds: 2, gapSeconds: 0.5 } as const;

/**
 * Each part's plan, resolved from the plan input with the run's API (and URL when one was given): the one resolution
 * of a run. Throws PlanError naming the bad field, before any server starts.
 */
export function resolveRunPlans(
  planInput: PlanInput, scripts: readonly ScriptName[], given: { readonly api: ApiStyle; readonly url: string | null },
): Plan[] {
  const input = applyEnvToPlan(planInput, { API: given.api, ...(given.url ? { BASE_URL: given.url } : {}) });
  return scripts.map((script) => resolvePlan(input, script, (file) => readFileSync(file, 'utf8')));
}

/**
 * The plans pointed at the server the run uses, their slots sized by the simulator's own engine when it is the
 * server and the plan fixes no slot.
 */
export function plansForServer(
  plans: readonly Plan[], planInput: PlanInput, server: { baseUrl: string; model: string; simProfile: Profile | null },
): Plan[] {
  const bound = plans.map((plan) => bindTarget(plan, server, planInput.target?.metricsUrl));
  if (!server.simProfile || bound.some((plan) => plan.schedule.cellSeconds != null)) return bound;
  const predictedCellSeconds = predictCellSeconds(bound, server.simProfile);
  return bound.map((plan) => reschedulePlan(plan, { ...plan.schedule, ...SIMULATOR_SLOTS, predictedCellSeconds }));
}

/** The plans with their slots sized from a target's measured speeds (orchestrator/probe.ts). */
export function plansForSpeeds(
  plans: readonly Plan[], speeds: { readonly prefillTokensPerSecond: number; readonly decodeTokensPerSecond: number },
): Plan[] {
  return plans.map((plan) => reschedulePlan(plan, { ...plan.schedule, ...speeds }));
}

/** Whether the plan input fixes the slots or the speeds they are sized from: then no probe is needed. */
export function slotsGiven(planInput: PlanInput): boolean {
  const given = planInput.schedule ?? {};
  return given.prefillTokensPerSecond != null || given.decodeTokensPerSecond != null || given.cellSeconds != null;
}

/** The plan input as the run was asked it, environment applied (plan-input.json): what a rerun starts from. */
export function writePlanInput(runDir: string, planInput: PlanInput): string {
  const file = path.join(runDir, 'plan-input.json');
  writeFileSync(file, JSON.stringify(planInput, null, 2));
  return file;
}

/**
 * A part's resolved plan (plan.json): written before its k6 starts, which reads it, so a part killed hard still has
 * one; written again after a driven part, with the cells the bench chose in place of the planned ones.
 */
export function writePartPlan(dir: string, plan: Plan): string {
  const file = path.join(dir, 'plan.json');
  writeFileSync(file, JSON.stringify(plan, null, 1));
  return file;
}
