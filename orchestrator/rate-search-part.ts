// How `npm run bench` runs a rate part that searches (plan `rate.search`): one k6 process per step, each a part
// folder of its own holding one rate cell, the next rate chosen from the steps so far (orchestrator/rate-search.ts).
// A trace part that searches (plan `trace.search`) runs the same way on the replay speed: its steps are the trace at
// one speed each, and the search finds the fastest the trace holds within its use case's limits. Runs in Node.
//
// One process per step: an open-loop cell's schedule is drawn before it starts, so the next rate cannot be handed to a
// running one. Each process draws its own run nonce, so no step repeats an earlier step's prompts (the prefix cache
// would serve them: docs/guides/open-loop.md). Each step is judged from its own folder by the report's own code, and
// the report reads the step folders together as the run's rate ladder, so the two cannot disagree.

import { arrivalCount } from '../lib/arrivals';
import { reschedulePlan, traceDrafts, type Plan } from '../lib/plan';
import { MIN_SUCCESS_RATE } from '../lib/plan-defaults';
import { formatRate } from '../lib/plan-schedule';
import { ladderLimits, type LadderLimit } from '../analysis/capacity';
import { measureParts, DEFAULT_REPORT_OPTIONS } from '../report/build-report';
import { loadRun } from '../report/load-run';
import { judgeRateCell, type LadderAxis, type LatencyFrom } from '../analysis/rate-capacity';
import { clientLimitWords } from '../report/capacity-words';
import { readPartSamples } from '../report/split-inputs';
import type { UseCase } from '../thresholds/use-cases';
import { stepClientLimit } from './machine-stall';
import {
  checkRateSearchConfig, formatRatePerSecond as f, nextRateStep, rateSearchInterval, type RateSearchConfig,
  type RateSearchState, type RateStep,
} from './rate-search';

/** One use case's search: its limits, its steps in the order measured, its outcome once it has one. */
export interface UseCaseRateSearch {
  readonly useCase: UseCase;
  readonly limits: readonly LadderLimit[];
  readonly steps: RateStep[];
  outcome: Extract<RateSearchState, { kind: 'done' }> | null;
}

/** The step folder of the n-th step (from 1) of a rate or trace search: a part of the run, beside its other parts. */
export function stepPartName(n: number, script: 'rate' | 'trace' | 'agentic' = 'rate'): string {
  return `${script}-search-${String(n).padStart(2, '0')}`;
}

/** What a search's axis is: requests/s for a rate part, the replay speed for a trace part. */
export function searchAxis(plan: Plan): { readonly unit: string; readonly of: LadderAxis } {
  return plan.script === 'trace'
    ? { unit: 'x', of: (c) => c.openLoop!.speed ?? 1 }
    : { unit: ' req/s', of: (c) => c.openLoop!.offeredRate };
}

/**
 * The plan of one step: the use case's cell of the searched plan (drawn at the search's start rate) at `rate`, its
 * request count and slot sized for it, alone in the plan.
 */
export function rateStepPlan(plan: Plan, useCaseId: string, rate: number, again = false): Plan {
  if (plan.script === 'trace') {
    // The trace at this speed, drafted as the plan drafts its speeds, slot sized by the plan's schedule.
    const drafts = traceDrafts(plan.trace!, [rate]).map((d) => ({ ...d, id: again ? `${d.id}_again` : d.id }));
    return reschedulePlan({ ...plan, cells: drafts as unknown as Plan['cells'] }, plan.schedule);
  }
  const start = plan.cells.find((c) => c.useCase === useCaseId && c.arrivals);
  const arrivals = start?.arrivals;
  if (!start || !arrivals || arrivals.process === 'trace')
    throw new Error(`the rate plan has no rate cell for use case "${useCaseId}"`);
  const spec = { ...arrivals, process: arrivals.process, ratePerSecond: rate };
  const cell = {
    // A step measured again keeps an id of its own: the report reads the two apart, as a users' search's.
    ...start, id: `rate_${useCaseId}_r${formatRate(rate)}${again ? '_again' : ''}`,
    arrivals: { ...spec, requests: arrivalCount(spec) },
  };
  return reschedulePlan({ ...plan, cells: [cell] }, plan.schedule);
}

/** Each use case's rate search, in the plan's order, one after another. */
export class RateSearchRun {
  readonly searches: UseCaseRateSearch[];
  private at = 0;

  constructor(private readonly plan: Plan, private readonly cfg: RateSearchConfig) {
    checkRateSearchConfig(cfg);
    const ids = [...new Set(plan.cells.map((c) => c.useCase).filter((u): u is string => u !== null))];
    this.searches = ids.map((id) => ({
      useCase: plan.useCases.find((u) => u.id === id)!,
      limits: ladderLimits(plan.useCases.find((u) => u.id === id)!.limits, plan.limitStat, MIN_SUCCESS_RATE,
        plan.minGoodput),
      steps: [],
      outcome: null,
    }));
  }

  /** The next step to measure (its use case, rate and plan), or null when every search has ended. */
  next(): { search: UseCaseRateSearch; rate: number; plan: Plan } | null {
    while (this.at < this.searches.length) {
      const s = this.searches[this.at]!;
      const state = nextRateStep(s.steps, this.cfg, s.limits);
      if (state.kind === 'next')
        return { search: s, rate: state.rate, plan: rateStepPlan(this.plan, s.useCase.id, state.rate, state.again) };
      s.outcome = state;
      this.at++;
    }
    return null;
  }

  /** One line per use case: its capacity, interval, breaking rate and the steps measured. */
  summary(): string[] {
    return this.searches.map((s) => {
      const o = s.outcome;
      const u = searchAxis(this.plan).unit;
      const tried = s.steps.map((p) => `${f(p.rate)}${p.clientLimited ? '!' : p.ok ? '+' : 'x'}`).join(' ');
      if (!o) return `${s.useCase.id}: not searched to its end (steps ${tried || 'none'})`;
      const interval = rateSearchInterval(s.steps, s.limits, o.lastPass);
      const high = interval?.high == null ? 'open' : f(interval.high);
      const ci = interval ? ` (95% ${f(interval.low)}-${high})` : '';
      const capacity = o.lastPass !== null ? `${f(o.lastPass)}${u}${ci}`
        : o.clientLimited ? 'undetermined (no clean step passed)' : 'below the first rate';
      const broke = o.firstFail !== null ? `breaks at ${f(o.firstFail)}${u}`
        : o.clientLimited ? 'no clean step broke a limit' : 'no rate broke a limit';
      const behind = o.clientLimited
        ? `; the client limited ${f(o.clientLimited.rate)}${u} twice (${o.clientLimited.clientLimited})` : '';
      return `${s.useCase.id}: ${capacity}, ${broke}${behind}; steps ${tried}`;
    });
  }
}

/** A searched step's folder measured as the report measures a run: its cells and their per-request values. */
export async function measureStepFolder(stepDir: string): Promise<ReturnType<typeof measureParts>> {
  const input = loadRun(stepDir);
  const samples = [];
  for (const part of input.parts) samples.push(await readPartSamples(part));
  return measureParts(input, samples, DEFAULT_REPORT_OPTIONS);
}

/**
 * A step judged from its own folder: its cell's statistics and per-request values as the report builds them, judged
 * as the report's rate ladder judges a cell (analysis/rate-capacity.ts judgeRateCell).
 */
export async function judgeStepFolder(
  stepDir: string, cellId: string, limits: readonly LadderLimit[], plan: Plan,
  { latencyFrom = 'intended', stallMs = null }: { latencyFrom?: LatencyFrom; stallMs?: number | null } = {},
): Promise<RateStep> {
  const measured = await measureStepFolder(stepDir);
  const cell = measured.cells.find((c) => c.id === cellId);
  if (!cell?.openLoop) throw new Error(`step ${stepDir}: no measured rate cell ${cellId}`);
  const judged = judgeRateCell(cell, limits, searchAxis(plan).of, {
    limitStat: plan.limitStat, minSuccessRate: MIN_SUCCESS_RATE, minGoodput: plan.minGoodput,
    requestValues: measured.requestValues, latencyFrom,
  });
  const own = judged.clientLimited && clientLimitWords(judged.clientLimited);
  return { ...judged, clientLimited: stepClientLimit(own, stallMs) };
}

/** A judged step as the bench's log says it: "within limits", "limit broken (e2e < 1.8 s)", "limited by the client". */
export function rateStepVerdict(judged: RateStep): string {
  if (judged.clientLimited) return `limited by the client (${judged.clientLimited})`;
  return judged.ok ? 'within limits' : `limit broken (${judged.checks.filter((k) => !k.ok).map((k) => k.label)})`;
}
