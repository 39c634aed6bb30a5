// Which parts the bench drives, and with what: a capacity search, a sessions search, or fixed steps. Runs in Node.

import type { Plan, ScriptName } from '../lib/plan';
import { CapacitySearch } from './capacity-search';
import { FixedSteps, type StepSource } from './driver';
import { sessionsDrive } from './sessions-search';

/** Scripts the bench drives (lib/drive.ts); the gate keeps its k6 thresholds and slot. */
export const DRIVEN_SCRIPTS: readonly ScriptName[] = ['sweep', 'capacity', 'burst', 'mix', 'sessions'];

/** Beyond the scrape interval, the quiet gap between driven steps: a scrape takes a few ms to answer. */
export const QUIET_MARGIN_MS = 250;

/** What drives a part: the step source, how many VUs it may need, and for capacity the search. */
export interface PartDrive {
  readonly source: StepSource;
  readonly vus: number;
  readonly search: CapacitySearch | null;
}

/** The steps of a driven part (DRIVEN_SCRIPTS); a prediction (whatif/predicted-part.ts) drives them in virtual time. */
export function partDrive(plan: Plan): PartDrive {
  if (plan.script === 'sessions' && plan.search && plan.sessions)
    return sessionsDrive(plan, plan.search, plan.sessions);
  if (plan.script === 'capacity' && plan.search) {
    const ids = [...new Set(plan.cells.map((c) => c.useCase).filter((u): u is string => u !== null))];
    const useCases = ids.map((id) => ({
      useCase: plan.useCases.find((u) => u.id === id)!,
      outputTokens: plan.cells.find((c) => c.useCase === id)!.outputTokens,
    }));
    const search = new CapacitySearch(useCases, plan.search, plan.limitStat, plan.minGoodput);
    return { source: search, vus: Math.max(...search.searches.map((s) => s.maxUsers)), search };
  }
  const specs = plan.cells.map((c) => ({ cell: c, mode: { kind: 'rounds' as const, rounds: c.rounds } }));
  return { source: new FixedSteps(specs), vus: Math.max(...plan.cells.map((c) => c.concurrency)), search: null };
}

/**
 * Whether the bench drives a part: a split run is k6's own mechanism, every runner running its share of each cell in
 * k6's time slots, except the capacity search, whose steps are chosen as it goes (the bench hands each runner its
 * share); with fixedSlots nothing is driven.
 */
export function drivesPart(plan: Plan, runners: number, fixedSlots: boolean): boolean {
  if (fixedSlots) return false;
  return runners === 1 ? DRIVEN_SCRIPTS.includes(plan.script) : plan.script === 'capacity' && Boolean(plan.search);
}
