// The adaptive search over offered rate (requests per second) of one use case: climb until a limit breaks, then narrow
// between the last passing and the first failing rate to the plan's resolution. Pure. Runs in Node.
//
// It is the users' search (orchestrator/capacity-search.ts nextSearchStep) on a grid of RATE_GRID_PER_SECOND steps per
// request/s, so both capacities are found by one rule: the same climb (a power law through the passing steps, at most
// x2), the same interpolation between pass and fail, the same bisection when a guess does not halve the interval.
// Each step's verdict is the report's own (report/rate-capacity.ts judgeRateCell), so the search and the report's
// rate table cannot disagree. Its interval is the report's ladder interval read as measured
// (report/capacity-interval.ts measuredLadderInterval): between two rates the queue either keeps up or grows without
// bound, and no line between them says where that turns.
//
// A step whose sender fell behind its schedule measured another rate than its own: it is kept and shown, never
// dropped, and the search stops there (rates above it would fall behind further), its capacity undetermined above
// the last clean pass, as a users' step that the client bound twice ends its search.

import { nextSearchStep, type SearchPoint } from './capacity-search';
import { measuredLadderInterval, withCapacity } from '../report/capacity-interval';
import type { CapacityInterval, IntervalStep } from '../report/capacity-interval';
import type { LadderLimit, LimitCheck } from '../report/capacity';

/** Grid of the search: 0.1 request/s, below any resolution a plan would ask for at rates above 2 requests/s. */
export const RATE_GRID_PER_SECOND = 10;

export interface RateSearchConfig {
  /** The first rate tried (requests/s). */
  readonly startRate: number;
  /** The highest rate tried: passing it ends the search with no break found. */
  readonly maxRate: number;
  /** The search ends once the first failing rate is within this percentage above the last passing one. */
  readonly resolutionPercent: number;
}

/** One measured rate step: its verdict, its per-request values for the interval, and whether its sender kept up. */
export interface RateStep {
  readonly rate: number;
  readonly ok: boolean;
  readonly checks: readonly LimitCheck[];
  /** Its requests' values per limit, `users` holding its rate; null when not kept. */
  readonly sample: IntervalStep | null;
  /** Why its sender measured another rate than its own (achieved short of offered); null when it kept up. */
  readonly senderBehind: string | null;
}

export type RateSearchState =
  | { readonly kind: 'next'; readonly rate: number }
  | {
      readonly kind: 'done';
      /** The highest rate that met every limit; null when none did. */
      readonly lastPass: number | null;
      /** The lowest rate above it that broke a limit, as measured; null when none did (maxRate held). */
      readonly firstFail: number | null;
      /** The step whose sender fell behind, ending the search; null when none did. */
      readonly senderBehind: RateStep | null;
    };

/** A rate in grid units (a whole number), and back. */
export function toGrid(rate: number): number {
  return Math.round(rate * RATE_GRID_PER_SECOND);
}
export function fromGrid(units: number): number {
  return units / RATE_GRID_PER_SECOND;
}

/** The users' search configuration on the rate grid: every grid step exact, the rest by the percentage. */
function gridConfig(cfg: RateSearchConfig) {
  return { startUsers: Math.max(1, toGrid(cfg.startRate)), exactBelow: 1, resolutionPercent: cfg.resolutionPercent };
}

/** Validates a search's configuration once; throws a one-line message naming the bad field. */
export function checkRateSearchConfig(cfg: RateSearchConfig): void {
  if (!(cfg.startRate >= fromGrid(1))) throw new Error(`rate search startRate must be at least ${fromGrid(1)}/s`);
  if (!(cfg.maxRate >= cfg.startRate)) throw new Error('rate search maxRate must be at least its startRate');
  if (!(cfg.resolutionPercent > 0 && cfg.resolutionPercent <= 50))
    throw new Error('rate search resolutionPercent must be above 0 and at most 50');
}

/** A rate step as the users' search reads a step: its grid position in place of users. */
function asPoint(s: RateStep): SearchPoint {
  return { users: toGrid(s.rate), ok: s.ok, checks: s.checks };
}

/**
 * The search's next rate from the steps measured so far, in the order measured, or its outcome. A step whose sender
 * fell behind ends it (see the header); otherwise the users' search decides on the grid.
 */
export function nextRateStep(
  steps: readonly RateStep[], cfg: RateSearchConfig, limits: readonly LadderLimit[],
): RateSearchState {
  const behind = steps.find((s) => s.senderBehind !== null) ?? null;
  const clean = steps.filter((s) => s.senderBehind === null);
  if (behind !== null) {
    const below = clean.filter((s) => s.rate < behind.rate);
    const lastPass = Math.max(0, ...below.filter((s) => s.ok).map((s) => s.rate));
    const fails = below.filter((s) => !s.ok && s.rate > lastPass).map((s) => s.rate);
    return {
      kind: 'done', lastPass: lastPass === 0 ? null : lastPass,
      firstFail: fails.length > 0 ? Math.min(...fails) : null, senderBehind: behind,
    };
  }
  const state = nextSearchStep(clean.map(asPoint), gridConfig(cfg), toGrid(cfg.maxRate), limits);
  if (state.kind === 'next') return { kind: 'next', rate: fromGrid(state.users) };
  return {
    kind: 'done', lastPass: state.lastPass === null ? null : fromGrid(state.lastPass),
    firstFail: state.firstFail === null ? null : fromGrid(state.firstFail), senderBehind: null,
  };
}

/**
 * The searched capacity's 95% bootstrap interval over the steps whose sender kept up, read as measured; widened to
 * hold the capacity the search states (its last pass). Null when a clean step kept no per-request values.
 */
export function rateSearchInterval(
  steps: readonly RateStep[], limits: readonly LadderLimit[], lastPass: number | null,
): CapacityInterval | null {
  const clean = steps.filter((s) => s.senderBehind === null);
  if (clean.some((s) => s.sample === null)) return null;
  const samples = clean.map((s) => ({ ...s.sample!, users: s.rate }));
  return withCapacity(measuredLadderInterval(samples, limits), lastPass);
}
