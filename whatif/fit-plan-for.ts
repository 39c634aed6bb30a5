// The fit plan sized to the plan a prediction will be asked (`npm run bench -- --plan fit --fit-for <plan>`): its
// longest prompt and its most users inside the measured range, within a time budget. Runs in Node, pure.
//
// The fixed fit plan measures prompts to 16K tokens and 2 to 64 users. A target with 128K prompts is then predicted
// from an attention term and a KV read that the run saw only at an eighth of the length: both grow with the prompt,
// so the error grows with it. The sized plan adds contexts by fours up to the target's longest prompt (the single
// user there pins attention, a few users the KV read in a batch) and users by doubling up to its most; cells whose
// prompts together exceed a token cap are left out, the cap halved until the estimate fits the budget.

import { resolvePlan, type PlanInput, type ScriptName } from '../lib/plan';
import { FIT_PLAN } from '../orchestrator/default-plans';
import type { Profile } from '../sim/profiles';
import { runVirtualClosedLoop } from '../sim/virtual-run';

/** The default time budget of a sized fit run, minutes: the whole loop's target is 15. */
export const DEFAULT_FIT_BUDGET_MINUTES = 10;
/** The fixed plan's grid: the least a sized plan measures. */
const BASE_CONTEXTS = [256, 1024, 4096, 16_384];
const BASE_USERS = [1, 2, 4, 8, 16, 32, 64];
/** Past this many users a fit learns nothing new about the step (the batch limits come from flags). */
const MOST_USERS = 256;
/** The fixed plan's largest cell: 64 users of 16K tokens. */
const START_TOKENS_IN_FLIGHT = 64 * 16_384;
const OUTPUT_TOKENS = 128;
const ROUNDS = 2;

/** What the target plan will ask of the fit: its longest prompt and its most concurrent users. */
export interface TargetReach {
  readonly longestPrompt: number;
  readonly mostUsers: number;
}

export interface SizedFitPlan {
  readonly plan: PlanInput;
  readonly reach: TargetReach;
  /** The estimated minutes of the plan on the cost profile, cells back to back with their gaps. */
  readonly estimatedMinutes: number;
  readonly maxTokensInFlight: number;
  /** Said to the user: what was sized to what, and what did not fit the budget. */
  readonly notes: readonly string[];
}

/** The target's longest prompt and most users over the scripts it runs (a capacity search counts its user cap). */
export function targetReach(target: PlanInput, scripts: readonly ScriptName[]): TargetReach {
  let longestPrompt = 0;
  let mostUsers = 1;
  for (const script of scripts) {
    const plan = resolvePlan(target, script);
    for (const cell of plan.cells) {
      longestPrompt = Math.max(longestPrompt, cell.contextTokens);
      mostUsers = Math.max(mostUsers, cell.concurrency);
    }
    if (script === 'capacity' && plan.search) mostUsers = Math.max(mostUsers, ...Object.values(plan.search.maxUsers));
  }
  if (longestPrompt === 0) throw new Error('the plan to fit for has no cells in the scripts it runs');
  return { longestPrompt, mostUsers };
}

/** Contexts by fours from 256 to the longest prompt, the longest itself last; never fewer than the fixed plan's. */
function contextsFor(longest: number): number[] {
  const contexts = [...BASE_CONTEXTS];
  for (let c = BASE_CONTEXTS.at(-1)! * 4; c < longest; c *= 4) contexts.push(c);
  if (longest > contexts.at(-1)!) contexts.push(longest);
  return contexts;
}

/** Users by doubling from 1 to the first at or past the target's most (at most 256); never fewer than 1-64. */
function usersFor(most: number): number[] {
  const users = [...BASE_USERS];
  for (let n = 128; n <= MOST_USERS && users.at(-1)! < most; n *= 2) users.push(n);
  return users;
}

function sweepPlan(contexts: number[], users: number[], maxTokensInFlight: number): PlanInput {
  return {
    name: 'fit',
    sweep: { contexts, concurrencies: users, rounds: ROUNDS, outputTokens: OUTPUT_TOKENS, maxTokensInFlight },
    schedule: FIT_PLAN.schedule,
  };
}

/**
 * Seconds the plan's cells take on a profile, back to back as the bench drives them: each cell until its users'
 * rounds are done (virtual time), plus the gap between cells.
 */
export function estimatedSeconds(plan: PlanInput, profile: Profile): number {
  const gap = plan.schedule?.gapSeconds ?? 1;
  return resolvePlan(plan, 'sweep').cells.reduce((sum, cell) => {
    const requests = runVirtualClosedLoop(profile, cell.contextTokens, cell.outputTokens,
      [{ users: cell.concurrency, seconds: Infinity }], { requestsPerUser: cell.rounds });
    const endMs = Math.max(...requests.map((r) => r.startMs + r.e2eMs));
    return sum + endMs / 1000 + gap;
  }, 0);
}

/**
 * The plans tried, largest first: the token cap halved down to two users of the longest prompt; then, if still over
 * the budget, users no further than the fixed plan's 64; then without the contexts between 16K and the longest.
 */
function candidates(contexts: number[], users: number[]): { plan: PlanInput; cap: number; trim: string }[] {
  const floor = 2 * contexts.at(-1)!;
  const out: { plan: PlanInput; cap: number; trim: string }[] = [];
  for (let cap = Math.max(START_TOKENS_IN_FLIGHT, floor); cap >= floor; cap /= 2)
    out.push({ plan: sweepPlan(contexts, users, cap), cap, trim: '' });
  const fewer = users.filter((n) => n <= BASE_USERS.at(-1)!);
  if (fewer.length < users.length)
    out.push({ plan: sweepPlan(contexts, fewer, floor), cap: floor, trim: `users up to ${fewer.at(-1)} only` });
  const ends = contexts.filter((c) => c <= BASE_CONTEXTS.at(-1)! || c === contexts.at(-1));
  if (ends.length < contexts.length) {
    out.push({ plan: sweepPlan(ends, fewer, floor), cap: floor,
      trim: `users up to ${fewer.at(-1)}, no contexts between ${BASE_CONTEXTS.at(-1)} and the longest` });
  }
  return out;
}

/**
 * The fit plan for a target: its reach covered, then trimmed (candidates above) until the estimate on
 * `costProfile` fits `budgetMinutes`; the smallest when none does.
 */
export function fitPlanFor(
  target: PlanInput, scripts: readonly ScriptName[], budgetMinutes: number, costProfile: Profile,
): SizedFitPlan {
  const reach = targetReach(target, scripts);
  const tried = candidates(contextsFor(reach.longestPrompt), usersFor(reach.mostUsers));
  let chosen = tried[0]!;
  let seconds = estimatedSeconds(chosen.plan, costProfile);
  for (const next of tried.slice(1)) {
    if (seconds <= budgetMinutes * 60) break;
    chosen = next;
    seconds = estimatedSeconds(next.plan, costProfile);
  }
  const sweep = chosen.plan.sweep!;
  const cells = resolvePlan(chosen.plan, 'sweep').cells.length;
  const notes = [
    `fit plan sized to a longest prompt of ${reach.longestPrompt} tokens and ${reach.mostUsers} users: ` +
      `contexts ${sweep.contexts!.join(', ')}, users ${sweep.concurrencies!.join(', ')}, cells up to ${chosen.cap} ` +
      `prompt tokens in flight${chosen.trim ? ` (${chosen.trim}, for the budget)` : ''} (${cells} cells), about ` +
      `${(seconds / 60).toFixed(1)} min on simulator profile ${costProfile.letter}`,
  ];
  if (seconds > budgetMinutes * 60) {
    notes.push(`over the ${budgetMinutes}-minute budget even trimmed: give a larger --fit-budget, or accept the ` +
      'longer run');
  }
  return { plan: chosen.plan, reach, estimatedMinutes: seconds / 60, maxTokensInFlight: chosen.cap, notes };
}
