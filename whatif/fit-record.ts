// Turns a fit's outcome into the fitted profile file: the simulator's profile JSON and the fit's own record of how far
// to trust it. Runs in Node, pure.

import { percentile, sortValues } from '../analysis/stats';
import type { Profile, SchedulerConfig } from '../sim/profiles';
import type { FitInput } from './fit-cells';
import { BLIND_FACTOR, MIN_SENSITIVITY, type FitOutcome } from './fit';
import type { ArchitectureChoice } from './fit-architecture';
import { FIT_PARAMETER_MEANING, hardwareOverrides } from './fit-parameters';
import type { FitInfo, FitRange, FittedParameter, FittedProfileFile, FitResidual } from './fitted-profile';
import { DRAWN_LIMITS, SCHEDULER_FACTOR, schedulerDraws, type DrawnLimit } from './scheduler-draws';

/** A refit spread wider than this factor (95th over 5th percentile) means the run did not pin the parameter. */
const PINNED_SPREAD = 2;

/** Where each scheduler limit came from: a flag (the server's stated config) or the base profile. */
export type SchedulerSources = Readonly<Record<keyof SchedulerConfig, string | null>>;

export interface FitRecordContext {
  readonly input: FitInput;
  readonly baseName: string;
  readonly name: string;
  readonly schedulerSources: SchedulerSources;
  readonly fittedAt: string;
  readonly architecture: ArchitectureChoice;
}

export function fittedProfileFile(outcome: FitOutcome, ctx: FitRecordContext): FittedProfileFile {
  const { profile } = outcome;
  const hw = profile.hardware;
  return {
    base: ctx.baseName,
    name: ctx.name,
    description: `fitted to ${ctx.input.dir} (${ctx.input.cells.length} cells) on the ${ctx.baseName} architecture`,
    model: ctx.input.model ?? profile.model,
    maxModelLen: ctx.input.contextWindow ?? profile.maxModelLen,
    flavour: profile.flavour,
    // The whole hardware section, so the file does not depend on the base's values staying what they are today.
    hardware: { ...hw, ...hardwareOverrides(outcome.names, outcome.values) },
    scheduler: profile.scheduler,
    fit: fitInfo(outcome, ctx),
  };
}

function fitInfo(outcome: FitOutcome, ctx: FitRecordContext): FitInfo {
  const residuals = residualsOf(outcome, ctx.input);
  const errors = sortValues(residuals.map((r) => Math.abs(r.errorPct)));
  const draws = schedulerDraws(outcome.profile.scheduler, (k) => ctx.schedulerSources[k] !== null,
    outcome.resampled.length, 1);
  return {
    run: ctx.input.dir,
    fittedAt: ctx.fittedAt,
    cells: ctx.input.cells.length,
    requests: ctx.input.cells.reduce((s, c) => s + c.ttftMs.length, 0),
    parameters: [...parametersOf(outcome), ...schedulerParameters(outcome.profile, ctx.schedulerSources, draws)],
    architecture: ctx.architecture,
    range: rangeOf(ctx.input),
    clientGapMs: clientGapOf(ctx.input),
    residuals,
    medianErrorPct: round(percentile(errors, 0.5), 2),
    maxErrorPct: round(errors[errors.length - 1] ?? 0, 2),
    resamples: outcome.resampled.map((values) => hardwareOverrides(outcome.names, values)),
    schedulerResamples: draws,
  };
}

function residualsOf(outcome: FitOutcome, input: FitInput): FitResidual[] {
  return outcome.observations.map((o, i) => {
    const predicted = outcome.predicted[i]!;
    const cell = input.cells[o.cell]!;
    return {
      promptTokens: cell.promptTokens, concurrency: cell.concurrency,
      cell: cell.id, metric: o.metric, measured: round(o.measured, 3), predicted: round(predicted, 3),
      errorPct: round(((predicted - o.measured) / o.measured) * 100, 2),
    };
  });
}

function rangeOf(input: FitInput): FitRange {
  const span = (xs: number[]): [number, number] => [Math.min(...xs), Math.max(...xs)];
  return {
    promptTokens: span(input.cells.map((c) => c.promptTokens)),
    concurrency: span(input.cells.map((c) => c.concurrency)),
    outputTokens: span(input.cells.map((c) => c.outputTokens)),
  };
}

/** The median of the cells' measured gaps between a user's requests (cells of one round have none). */
function clientGapOf(input: FitInput): number {
  const gaps = input.cells.filter((c) => c.rounds > 1).map((c) => c.requestGapMs ?? 0);
  return gaps.length === 0 ? 0 : round(percentile(sortValues(gaps), 0.5), 1);
}

function parametersOf(outcome: FitOutcome): FittedParameter[] {
  return outcome.names.map((name, j) => {
    const spread = sortValues(outcome.resampled.map((v) => v[j]!));
    const low = percentile(spread, 0.05);
    const high = percentile(spread, 0.95);
    const blind = outcome.sensitivity[j]! < MIN_SENSITIVITY;
    const wide = low <= 0 || high / low > PINNED_SPREAD;
    const factor = low > 0 ? (high / low).toFixed(1) : 'of more than 100';
    const note = blind
      ? `the run barely depends on it: refits draw it within a factor ${BLIND_FACTOR} of its start`
      : wide ? `refits spread over a factor ${factor}` : FIT_PARAMETER_MEANING[name];
    return { name, value: sig(outcome.values[j]!), low: sig(low), high: sig(high), pinned: !blind && !wide, note };
  });
}

/**
 * The scheduler's limits are stated, not fitted: pinned when the server's config gave them, else the base's guess,
 * which the refits draw within a factor (the 5th-95th percentile of the draws as its spread).
 */
function schedulerParameters(
  profile: Profile, sources: SchedulerSources, draws: readonly Partial<Record<DrawnLimit, number>>[],
): FittedParameter[] {
  return (Object.keys(sources) as (keyof SchedulerConfig)[])
    .filter((k) => typeof profile.scheduler[k] === 'number')
    .map((k) => {
      const value = profile.scheduler[k] as number;
      const source = sources[k];
      const drawn = source === null && (DRAWN_LIMITS as readonly string[]).includes(k) && draws.length > 0;
      const spread = drawn ? sortValues(draws.map((d) => d[k as DrawnLimit]!)) : null;
      const guess = "the base profile's value: the fit run does not reach this limit; state it with a flag";
      return {
        name: `scheduler.${k}`, value, pinned: source !== null,
        low: spread ? sig(percentile(spread, 0.05)) : value, high: spread ? sig(percentile(spread, 0.95)) : value,
        note: source ?? (drawn ? `${guess} (refits draw it within a factor ${SCHEDULER_FACTOR})` : guess),
      };
    });
}

function round(x: number, digits: number): number {
  return Number(x.toFixed(digits));
}

function sig(x: number): number {
  return x === 0 ? 0 : Number(x.toPrecision(4));
}
