// Verification of a prediction: which steps to measure on the real server (the two either side of each predicted
// capacity), the plan that measures exactly those, and predicted against measured for each. Runs in Node, pure.

import type { PlanInput } from '../lib/plan';
import type { LadderStep, UseCaseCapacity } from '../analysis/capacity';
import type { Report } from '../report/report-types';
import { percentile, sortValues } from '../analysis/stats';
import { ladderDisplay } from '../report/capacity-words';
import { PLAN_DEFAULTS } from '../lib/plan-defaults';

/** A step to measure: a use case at a number of users, and what the prediction said of it. */
export interface VerifyStep {
  readonly useCase: string;
  readonly users: number;
  /** Whether the prediction had every limit hold at this step. */
  readonly predictedOk: boolean;
}

/**
 * How little the prediction knows of a use case, for ordering: figures beyond the fit run first (more of them, less
 * known), then a fit that missed where its limit lives, then the interval's width relative to the capacity, then the
 * longest context. Each is a key compared in turn, larger first.
 */
function uncertaintyKeys(predicted: Report, u: UseCaseCapacity): number[] {
  const reach = predicted.predicted?.reach?.find((r) => r.useCase === u.useCase.id);
  const interval = predicted.predicted?.intervals?.find((i) => i.useCase === u.useCase.id);
  const capacity = Math.max(1, u.result.lastPass ?? 1);
  return [
    reach?.range === 'extrapolated' ? reach.beyond.length : 0, reach?.fitCheck ? 1 : 0,
    interval ? (interval.high - interval.low) / capacity : 0, u.useCase.contextTokens ?? 0,
  ];
}

function byUncertainty(keys: (u: UseCaseCapacity) => number[]) {
  return (a: UseCaseCapacity, b: UseCaseCapacity): number => {
    const ka = keys(a);
    const kb = keys(b);
    for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return kb[i]! - ka[i]!;
    return 0;
  };
}

/**
 * What measuring a use case's two steps costs on the target, estimated from the prediction itself: each step's
 * predicted cell window (the same plan, run in virtual time) and its warm-up (each user's warm-up requests beside its
 * measured ones: half the window again by default, a whole request per user, which for a 1024-token answer near a
 * 15 tok/s limit is over a minute), plus a bench run's start and report and each step's settling. A prediction that is
 * right about the figures is right about the time they take.
 */
export const VERIFY_RUN_OVERHEAD_SECONDS = 30;
export const VERIFY_STEP_OVERHEAD_SECONDS = 15;

/** A step's warm-up against its measured window: each user's warm-up requests over its measured ones. */
function warmupShare(predicted: Report): number {
  const search = predicted.parts?.find((p) => p.search)?.search;
  const warmup = search?.warmupRequests ?? PLAN_DEFAULTS.capacity.warmupRequests;
  const measured = search?.minRequestsPerUser ?? PLAN_DEFAULTS.capacity.rounds;
  return warmup / Math.max(1, measured);
}

export function verifySeconds(predicted: Report, u: UseCaseCapacity): number {
  const warmup = warmupShare(predicted);
  const stepSeconds = [u.result.lastPass, u.result.firstFail].map((users) => {
    const step = u.result.steps.find((s) => s.concurrency === users);
    const cell = step && predicted.cells?.find((c) => c.id === step.cellId);
    const window = cell && cell.windowStartMs !== null && cell.windowEndMs !== null
      ? (cell.windowEndMs - cell.windowStartMs) / 1000 : 0;
    return window * (1 + warmup) + VERIFY_STEP_OVERHEAD_SECONDS;
  });
  return VERIFY_RUN_OVERHEAD_SECONDS + stepSeconds.reduce((a, b) => a + b, 0);
}

/** The steps to measure, and the use cases passed over because measuring them would overrun the time budget. */
export interface VerifySelection {
  readonly steps: VerifyStep[];
  /** Estimated seconds of the chosen use cases' runs together. */
  readonly seconds: number;
  readonly leftOut: readonly { readonly useCase: string; readonly seconds: number }[];
}

/**
 * The steps either side of each predicted capacity (the last that held, the first that broke), for the `count` use
 * cases with a capacity between two steps where the prediction is least certain: extrapolated beyond the fit run,
 * resting on cells the fit missed, with the widest interval, with the longest context (the report's order breaks
 * ties). Those are where a measurement tells most. Within `budgetSeconds`: a use case whose measurement would overrun
 * what is left is passed over for the next most uncertain (the many-user steps of a short use case can take minutes).
 */
export function verifySelection(predicted: Report, count: number, budgetSeconds = Infinity): VerifySelection {
  const candidates = predicted.useCases
    .filter((u) => u.source === 'capacity' && u.result.kind === 'within')
    .sort(byUncertainty((u) => uncertaintyKeys(predicted, u)));
  const chosen: UseCaseCapacity[] = [];
  const leftOut: { useCase: string; seconds: number }[] = [];
  let seconds = 0;
  for (const u of candidates) {
    if (chosen.length === count) break;
    const cost = verifySeconds(predicted, u);
    if (seconds + cost > budgetSeconds) {
      leftOut.push({ useCase: u.useCase.id, seconds: Math.round(cost) });
      continue;
    }
    chosen.push(u);
    seconds += cost;
  }
  const steps = chosen.flatMap((u) => {
    const { lastPass, firstFail } = u.result;
    return [
      { useCase: u.useCase.id, users: lastPass!, predictedOk: true },
      { useCase: u.useCase.id, users: firstFail!, predictedOk: false },
    ];
  });
  return { steps, seconds: Math.round(seconds), leftOut };
}

/** verifySelection's steps with no time budget. */
export function verifySteps(predicted: Report, count: number): VerifyStep[] {
  return verifySelection(predicted, count).steps;
}

/**
 * The plan that measures one use case's steps the way the prediction did: the predicted plan's capacity part for that
 * use case alone, its search started at the lower step and stopped at the upper, so it measures the two in its steady
 * state (and searches below when the lower step breaks). No other part.
 */
export function verifyPlanInput(planInput: PlanInput, useCase: string, steps: readonly VerifyStep[]): PlanInput {
  const users = steps.filter((s) => s.useCase === useCase).map((s) => s.users);
  const only = <T>(byUseCase: Record<string, T> | undefined) =>
    byUseCase && Object.fromEntries(Object.entries(byUseCase).filter(([id]) => id === useCase));
  const given = planInput.capacity ?? {};
  const capacity = {
    ...given, useCases: [useCase], concurrencies: { [useCase]: users },
    ...(given.outputTokens ? { outputTokens: only(given.outputTokens) } : {}),
    startUsers: Math.min(...users), maxUsers: Math.max(...users),
  };
  const { name, prompts, target, limitStat, minGoodput, schedule } = planInput;
  return {
    name: `${name ?? 'plan'}-verify-${useCase}`, capacity,
    ...(prompts ? { prompts } : {}), ...(target ? { target } : {}), ...(limitStat ? { limitStat } : {}),
    ...(minGoodput !== undefined ? { minGoodput } : {}), ...(schedule ? { schedule } : {}),
  };
}

/** One limit at one step, predicted against measured. */
export interface VerifiedCheck {
  readonly useCase: string;
  readonly users: number;
  readonly metric: LadderStep['checks'][number]['metric'];
  readonly limit: string;
  readonly predicted: number | null;
  readonly measured: number | null;
  /** (predicted - measured) / measured x 100; null without both. */
  readonly errorPct: number | null;
  readonly predictedOk: boolean;
  readonly measuredOk: boolean | null;
}

/** A use case's capacity as predicted and as the verifying search found it (within the steps it measured). */
export interface VerifiedCapacity {
  readonly useCase: string;
  readonly predicted: string;
  readonly measured: string;
}

export interface Verification {
  readonly checks: readonly VerifiedCheck[];
  readonly capacities: readonly VerifiedCapacity[];
  /** Steps whose verdict (every limit held, or not) the measurement agreed with, out of those measured. */
  readonly agreed: number;
  readonly measuredSteps: number;
  /** Median and largest |error| over the timing checks with both figures (not success or goodput shares), %. */
  readonly medianErrorPct: number | null;
  readonly maxErrorPct: number | null;
}

function ladderStep(reports: readonly Report[], useCase: string, users: number): LadderStep | undefined {
  for (const report of reports) {
    const ladder = report.useCases.find((u) => u.useCase.id === useCase)?.result.steps;
    const step = ladder?.find((s) => s.concurrency === users);
    if (step) return step;
  }
  return undefined;
}

function capacityOf(reports: readonly Report[], useCase: string): string | undefined {
  for (const report of reports) {
    const u = report.useCases.find((x) => x.useCase.id === useCase);
    if (u && u.result.kind !== 'untested') return ladderDisplay(u.result);
  }
  return undefined;
}

/** Each verified step's limits, predicted against what the measured runs (one per use case) found. */
export function verify(predicted: Report, measured: readonly Report[], steps: readonly VerifyStep[]): Verification {
  const checks: VerifiedCheck[] = [];
  let agreed = 0;
  let measuredSteps = 0;
  for (const step of steps) {
    const p = ladderStep([predicted], step.useCase, step.users);
    const m = ladderStep(measured, step.useCase, step.users);
    if (m) {
      measuredSteps++;
      if (m.ok === step.predictedOk) agreed++;
    }
    for (const check of p?.checks ?? []) {
      const other = m?.checks.find((c) => c.label === check.label);
      const both = check.actual !== null && other?.actual != null && other.actual !== 0;
      checks.push({
        useCase: step.useCase, users: step.users, metric: check.metric, limit: check.label, predicted: check.actual,
        measured: other?.actual ?? null,
        errorPct: both ? ((check.actual! - other!.actual!) / other!.actual!) * 100 : null,
        predictedOk: check.ok, measuredOk: other ? other.ok : null,
      });
    }
  }
  const timed = checks.filter((c) => c.metric !== 'successRate' && c.metric !== 'goodput');
  const errors = sortValues(timed.flatMap((c) => (c.errorPct === null ? [] : [Math.abs(c.errorPct)])));
  const capacities = [...new Set(steps.map((s) => s.useCase))].map((id) => ({
    useCase: id,
    predicted: capacityOf([predicted], id) ?? 'not predicted',
    measured: capacityOf(measured, id) ?? 'not measured',
  }));
  return {
    checks, capacities, agreed, measuredSteps,
    medianErrorPct: errors.length > 0 ? percentile(errors, 0.5) : null,
    maxErrorPct: errors.length > 0 ? errors[errors.length - 1]! : null,
  };
}
