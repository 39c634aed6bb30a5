// The adaptive search over offered rate (requests per second) of one use case: climb until a limit breaks, then narrow
// between the last passing and the first failing rate to the plan's resolution. Pure. Runs in Node.
//
// It is the users' search (orchestrator/capacity-search.ts nextSearchStep) on a grid of RATE_GRID_PER_SECOND steps per
// request/s, so both capacities are found by one rule: the same climb (a power law through the passing steps, at most
// x2), the same interpolation between pass and fail, the same bisection when a guess does not halve the interval.
// Each step's verdict is the report's own (analysis/rate-capacity.ts judgeRateCell), so the search and the report's
// rate table cannot disagree. Its interval is the report's ladder interval read as measured
// (analysis/capacity-interval.ts measuredLadderInterval): between two rates the queue either keeps up or grows without
// bound, and no line between them says where that turns.
//
// A step the client limited (its sender fell behind its schedule, or the measuring agent was too busy to read the
// streams on time: analysis/client-bound.ts) measured the client, not the server. It is kept and shown, never dropped,
// and measured once more (a neighbour's load passes); limited again, the search stops there (rates above it would be
// limited further), its capacity undetermined above the last clean pass, as a users' step that the client bound twice
// ends its search.

import { resolutionAt } from '../lib/plan';
import { nextSearchStep, type SearchPoint } from './capacity-search';
import { measuredLadderInterval, withCapacity } from '../analysis/capacity-interval';
import type { CapacityInterval, IntervalStep } from '../analysis/capacity-interval';
import type { LadderLimit, LimitCheck } from '../analysis/capacity';

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
  /** Why the client limited it (the sender fell behind, the agent was client-bound); null when it did not. */
  readonly clientLimited: string | null;
}

export type RateSearchState =
  | {
      readonly kind: 'next';
      readonly rate: number;
      /** A client-limited step measured again. */
      readonly again: boolean;
    }
  | {
      readonly kind: 'done';
      /** The highest rate that met every limit; null when none did. */
      readonly lastPass: number | null;
      /** The lowest rate above it that broke a limit, as measured; null when none did (maxRate held). */
      readonly firstFail: number | null;
      /** The step the client limited twice, ending the search; null when none did. */
      readonly clientLimited: RateStep | null;
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
 * The search's next rate from the steps measured so far, in the order measured, or its outcome. A client-limited step
 * is measured again, and ends the search when limited again (see the header); otherwise the users' search decides on
 * the grid, climbing at least one resolution step at a time (a limit that nears its value slowly would otherwise
 * creep up a grid step at a time).
 */
export function nextRateStep(
  steps: readonly RateStep[], cfg: RateSearchConfig, limits: readonly LadderLimit[],
): RateSearchState {
  const limited = steps.filter((s) => s.clientLimited !== null);
  const twice = limited.find((s) => limited.filter((o) => o.rate === s.rate).length >= 2) ?? null;
  const clean = steps.filter((s) => s.clientLimited === null);
  if (twice !== null) return { ...outcomeBelow(clean, twice.rate), clientLimited: twice };
  const last = steps.at(-1);
  if (last?.clientLimited) return { kind: 'next', rate: last.rate, again: true };
  const grid = gridConfig(cfg);
  const state = nextSearchStep(clean.map(asPoint), grid, toGrid(cfg.maxRate), limits);
  if (state.kind === 'next') {
    const passes = clean.filter((s) => s.ok).map((s) => toGrid(s.rate));
    const climbing = clean.every((s) => s.ok) && passes.length > 0;
    const lo = Math.max(0, ...passes);
    const least = Math.min(toGrid(cfg.maxRate), lo + resolutionAt(lo, grid));
    const units = climbing ? Math.max(state.users, least) : state.users;
    return { kind: 'next', rate: fromGrid(units), again: false };
  }
  return {
    kind: 'done', lastPass: state.lastPass === null ? null : fromGrid(state.lastPass),
    firstFail: state.firstFail === null ? null : fromGrid(state.firstFail), clientLimited: null,
  };
}

/** The last clean pass below `ceiling` and the first clean fail above it: where a client-limited search ends. */
function outcomeBelow(clean: readonly RateStep[], ceiling: number) {
  const below = clean.filter((s) => s.rate < ceiling);
  const lastPass = Math.max(0, ...below.filter((s) => s.ok).map((s) => s.rate));
  const fails = below.filter((s) => !s.ok && s.rate > lastPass).map((s) => s.rate);
  const firstFail = fails.length > 0 ? Math.min(...fails) : null;
  return { kind: 'done' as const, lastPass: lastPass === 0 ? null : lastPass, firstFail };
}

/** A rate as written in progress lines and tables: 12.5, 13. */
export function formatRatePerSecond(rate: number): string {
  return String(Math.round(rate * 1000) / 1000);
}

/**
 * The searched capacity's 95% bootstrap interval over the steps whose sender kept up, read as measured; widened to
 * hold the capacity the search states (its last pass). Null when a clean step kept no per-request values.
 */
export function rateSearchInterval(
  steps: readonly RateStep[], limits: readonly LadderLimit[], lastPass: number | null,
): CapacityInterval | null {
  const clean = steps.filter((s) => s.clientLimited === null);
  if (clean.some((s) => s.sample === null)) return null;
  const samples = clean.map((s) => ({ ...s.sample!, users: s.rate }));
  return withCapacity(measuredLadderInterval(samples, limits), lastPass);
}
