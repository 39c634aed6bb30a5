// A capacity's 95% interval by a bootstrap over the measured requests of each step. Runs in Node.
//
// Why a bootstrap: a step's verdict rests on a statistic (the mean TTFT, a percentile of decode speed)
// of a handful of requests, and on a real server two runs of the same step differ by more than the
// margin that separates the last passing step from the first failing one. Resampling each step's
// requests with replacement gives the spread of that statistic; re-reading the capacity from each
// resampled ladder (the crossing interpolated between the last passing and the first failing step, as the report
// reads a fixed ladder) gives the spread of the capacity. Quantiles of the replicates are the interval. A searched
// capacity is its last passing step, below the crossing by up to the search's resolution: its interval is widened to
// hold it (withCapacity).
//
// Resampling requests sees only the noise they do not share. A server's hiccup (a stall, a slower step) slows every
// request running at that moment, so at many users a step's requests move together and its mean moves by as much as
// one request does, while a bootstrap over them sees no spread at all. Where a step holds at most SOLO_USERS users,
// its requests hardly overlap and their spread is that noise, seen once per request: their pooled coefficient of
// variation (per limit metric) is applied to every larger step as one shared factor per resample, divided by the
// square root of the step's measurements (a repeated step averages two independent stretches of time). It cannot
// see what was not measured (a step the search skipped, a slower day of the server).

import { mulberry32, standardNormal } from '../lib/random';
import { compare, parseThreshold } from '../lib/threshold-grammar';
import { crossingX, extrapolateCrossing, percentile, powerLawBase, sortValues } from './stats';

/** A limit as a ladder checks it (analysis/capacity.ts IntervalLimit): its k6 expression names the aggregation. */
export interface IntervalLimit {
  readonly metric: string;
  readonly operator: '<' | '<=' | '>' | '>=';
  readonly value: number;
  /** e.g. "avg<8000", "p(95)>15", "rate>=0.99". */
  readonly expression: string;
}

/** Requests counted by a share limit (success rate, goodput): those that passed and those that did not. */
export interface ShareCounts {
  readonly passes: number;
  readonly fails: number;
}

/** One measured step: its users and, per limit (same order), the requests' values of that limit's metric. */
export interface IntervalStep {
  readonly users: number;
  /**
   * Per limit: the per-request values (ms or tok/s), or for a share limit the request counts; null for the
   * success-rate limit, which uses succeeded and failed.
   */
  readonly values: readonly (ArrayLike<number> | ShareCounts | null)[];
  readonly succeeded: number;
  readonly failed: number;
  /** How many times the step was measured, its requests pooled (default 1). */
  readonly measurements?: number;
}

/** Steps of at most this many users: their requests barely run together, so each sees its own share of the noise. */
export const SOLO_USERS = 1;

function isShareCounts(v: ArrayLike<number> | ShareCounts | null | undefined): v is ShareCounts {
  return typeof v === 'object' && v !== null && 'passes' in v;
}

export interface CapacityInterval {
  /** 0.95. */
  readonly level: number;
  /** Lower end, in users (0 when the first step may already break a limit). */
  readonly low: number;
  /** Upper end, in users; null when some replicates broke no limit at all (open above the largest step). */
  readonly high: number | null;
  /** The largest step measured (what an open upper end is "more than"). */
  readonly largestStep: number;
  readonly replicates: number;
}

/** The statistic a threshold aggregation names ("avg", "med", "p(95)", "min", "max") of some values. */
export function aggregate(values: ArrayLike<number>, aggregation: string): number {
  if (aggregation === 'avg') {
    let sum = 0;
    for (let i = 0; i < values.length; i++) sum += values[i]!;
    return sum / values.length;
  }
  const sorted = sortValues(values);
  if (aggregation === 'med') return percentile(sorted, 0.5);
  if (aggregation === 'min') return sorted[0]!;
  if (aggregation === 'max') return sorted[sorted.length - 1]!;
  const p = /^p\((\d+(?:\.\d+)?)\)$/.exec(aggregation);
  if (!p) throw new Error(`no aggregation "${aggregation}"`);
  return percentile(sorted, Number(p[1]) / 100);
}

/** Whether a statistic meets a limit, compared as k6 compares a threshold (lib/threshold-grammar.ts). */
function holds(actual: number, limit: IntervalLimit): boolean {
  return compare(actual, limit.operator, limit.value);
}

/** The aggregation of a limit's k6 expression: "avg<8000" -> "avg", "p(95)>15" -> "p(95)". */
function aggregationOf(limit: IntervalLimit): string {
  const parsed = parseThreshold(limit.expression);
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value.aggregation;
}

/**
 * Per limit, the relative noise a step's requests share at many users: the coefficient of variation of one request's
 * value within the steps of at most SOLO_USERS users, pooled over them by degrees of freedom; null for a share limit
 * or without two requests in such a step.
 */
export function sharedNoise(steps: readonly IntervalStep[], limits: readonly IntervalLimit[]): (number | null)[] {
  return limits.map((_, i) => {
    let weighted = 0;
    let freedom = 0;
    for (const step of steps) {
      const values = step.values[i];
      if (step.users > SOLO_USERS || !values || isShareCounts(values) || values.length < 2) continue;
      let sum = 0;
      for (let k = 0; k < values.length; k++) sum += values[k]!;
      const mean = sum / values.length;
      if (!(mean > 0)) continue;
      let squares = 0;
      for (let k = 0; k < values.length; k++) squares += (values[k]! - mean) ** 2;
      weighted += squares / (mean * mean);
      freedom += values.length - 1;
    }
    return freedom > 0 ? Math.sqrt(weighted / freedom) : null;
  });
}

/**
 * One resampled statistic per limit for one step; the success rate as a binomial draw. A step of more than
 * SOLO_USERS users also moves by its shared noise: one factor per limit, as its requests move together.
 */
function resampleStep(
  step: IntervalStep, limits: readonly IntervalLimit[], aggregations: readonly string[], random: () => number,
  shared: readonly (number | null)[] = [],
): (number | null)[] {
  const sharedScale = step.users > SOLO_USERS ? 1 / Math.sqrt(step.measurements ?? 1) : 0;
  return limits.map((limit, i) => {
    const values = step.values[i];
    const share = isShareCounts(values) ? values
      : limit.metric === 'successRate' ? { passes: step.succeeded, fails: step.failed } : null;
    if (share !== null) {
      const n = share.passes + share.fails;
      if (n === 0) return null;
      let ok = 0;
      for (let k = 0; k < n; k++) if (random() < share.passes / n) ok++;
      return ok / n;
    }
    if (!values || isShareCounts(values) || values.length === 0) return null;
    const draw = new Float64Array(values.length);
    for (let k = 0; k < values.length; k++) draw[k] = values[Math.floor(random() * values.length)]!;
    const noise = shared[i] ?? 0;
    const factor = noise > 0 && sharedScale > 0 ? Math.max(0, 1 + noise * sharedScale * standardNormal(random)) : 1;
    return aggregate(draw, aggregations[i]!) * factor;
  });
}

/**
 * The capacity one ladder of statistics gives, as the report reads a fixed ladder: the last passing step,
 * the first broken limit's crossing interpolated towards the first failing step (whole users, strict
 * limits one below an exact crossing); 0 when the first step fails, Infinity when none does.
 */
export function ladderCapacity(
  users: readonly number[], stats: readonly (readonly (number | null)[])[], limits: readonly IntervalLimit[],
): number {
  const ok = stats.map((row) => row.every((v, i) => v !== null && holds(v, limits[i]!)));
  const fail = ok.indexOf(false);
  if (fail < 0) return extrapolatedCapacity(users, stats, limits);
  if (fail === 0) return 0;
  const n0 = users[fail - 1]!;
  const n1 = users[fail]!;
  let best = n1 - 1;
  limits.forEach((limit, i) => {
    const v0 = stats[fail - 1]![i] ?? null;
    const v1 = stats[fail]![i] ?? null;
    if (v1 !== null && holds(v1, limit)) return;
    let x = n0;
    if (v0 !== null && v1 !== null) {
      const c = crossingX(n0, v0, n1, v1, limit.value);
      if (c !== null && isFinite(c)) x = Math.min(Math.max(c, n0), n1);
    }
    let estimate = Math.floor(x);
    if (estimate === x && (limit.operator === '<' || limit.operator === '>') && estimate > n0) estimate -= 1;
    best = Math.min(best, Math.max(n0, Math.min(estimate, n1 - 1)));
  });
  return best;
}

export interface IntervalOptions {
  readonly replicates?: number;
  readonly level?: number;
  readonly seed?: number;
  /** The ladder's shared noise when the caller has it already (sharedNoise of the same steps). */
  readonly shared?: readonly (number | null)[];
}

/**
 * Where the limits would break above a ladder none of whose steps breaks one: each limit's power law through the
 * largest step and its base (analysis/stats.ts powerLawBase), up to twice the largest step, as far as the search
 * climbs at once; Infinity beyond, or when no limit approaches its value.
 */
function extrapolatedCapacity(
  users: readonly number[], stats: readonly (readonly (number | null)[])[], limits: readonly IntervalLimit[],
): number {
  const top = users.length - 1;
  const base = powerLawBase(users, top);
  if (base < 0) return Infinity;
  let best = Infinity;
  limits.forEach((limit, i) => {
    const v0 = stats[base]![i] ?? null;
    const v1 = stats[top]![i] ?? null;
    const x = v0 === null || v1 === null ? null : extrapolateCrossing(users[base]!, v0, users[top]!, v1, limit.value);
    if (x === null) return;
    // The largest whole number of users within the limit: at an exact crossing a strict limit already fails.
    const estimate = Number.isInteger(x) && (limit.operator === '<' || limit.operator === '>') ? x - 1 : Math.floor(x);
    best = Math.min(best, Math.max(users[top]!, estimate));
  });
  return best <= 2 * users[top]! ? best : Infinity;
}

/** The `level` interval of `replicates` seeded draws of a capacity over steps sorted by users (the last, largest). */
function bootstrapInterval(
  ran: readonly IntervalStep[], opts: IntervalOptions, draw: (random: () => number) => number,
): CapacityInterval {
  const replicates = opts.replicates ?? 1000;
  const level = opts.level ?? 0.95;
  // Seeded, so the same run gives the same interval.
  const random = mulberry32(opts.seed ?? 1);
  const capacities = Array.from({ length: replicates }, () => draw(random)).sort((a, b) => a - b);
  const rankOf = (q: number): number => Math.min(replicates - 1, Math.max(0, Math.round(q * (replicates - 1))));
  const at = (q: number): number => capacities[rankOf(q)]!;
  const [low, high, largestStep] = [at((1 - level) / 2), at(1 - (1 - level) / 2), ran.at(-1)!.users];
  // Every resample within the limits at the largest step: the interval is "more than" it, at both ends.
  return { level, low: isFinite(low) ? low : largestStep, high: isFinite(high) ? high : null, largestStep, replicates };
}

/** The bootstrap interval of the capacity of measured steps (any order); null without steps. */
export function capacityInterval(
  steps: readonly IntervalStep[], limits: readonly IntervalLimit[], opts: IntervalOptions = {},
): CapacityInterval | null {
  const ran = steps.filter((s) => s.succeeded + s.failed > 0).sort((a, b) => a.users - b.users);
  if (ran.length === 0 || limits.length === 0) return null;
  const users = ran.map((s) => s.users);
  const aggregations = limits.map(aggregationOf);
  const shared = opts.shared ?? sharedNoise(ran, limits);
  return bootstrapInterval(ran, opts, (random) =>
    ladderCapacity(users, ran.map((s) => resampleStep(s, limits, aggregations, random, shared)), limits));
}

/**
 * The bootstrap interval of a ladder read as measured, a rate ladder (analysis/rate-capacity.ts): each replicate's
 * capacity is its last passing step before the first failing one (0 when the first fails), never interpolated;
 * open above when some replicates break no limit. `users` of each step is then its offered rate.
 */
export function measuredLadderInterval(
  steps: readonly IntervalStep[], limits: readonly IntervalLimit[],
  opts: Pick<IntervalOptions, 'replicates' | 'level' | 'seed'> = {},
): CapacityInterval | null {
  const ran = steps.filter((s) => s.succeeded + s.failed > 0).sort((a, b) => a.users - b.users);
  if (ran.length === 0 || limits.length === 0) return null;
  const aggregations = limits.map(aggregationOf);
  return bootstrapInterval(ran, opts, (random) => {
    const fail = ran.findIndex((s) =>
      !resampleStep(s, limits, aggregations, random).every((v, i) => v !== null && holds(v, limits[i]!)));
    return fail < 0 ? Infinity : fail === 0 ? 0 : ran[fail - 1]!.users;
  });
}

/**
 * The interval widened to hold a capacity stated off the measured steps: a search states its last passing step,
 * which lies below the interpolated crossing by up to its resolution ("51 (51-55)", not "51 (53-55)").
 */
export function withCapacity(interval: CapacityInterval | null, capacity: number | null): CapacityInterval | null {
  if (interval === null || capacity === null) return interval;
  const high = interval.high === null ? null : Math.max(interval.high, capacity);
  return { ...interval, low: Math.min(interval.low, capacity), high };
}

/** A verdict is clear when at least this share of resamples agree on it (one-sided 95%). */
export const CLEAR_VERDICT = 0.95;

/** Whether a step's pass share leaves its verdict unclear: neither pass nor fail holds in 95% of resamples. */
export function isUnclear(passShare: number): boolean {
  return passShare > 1 - CLEAR_VERDICT && passShare < CLEAR_VERDICT;
}

/**
 * The share of bootstrap resamples of one step in which every limit holds: near 1 or 0 the step's verdict is
 * clear, in between the requests measured cannot tell (the capacity search measures such a step again). With the
 * ladder's `shared` noise (sharedNoise), what the requests share counts too.
 */
export function passShare(
  step: IntervalStep, limits: readonly IntervalLimit[],
  opts: { replicates?: number; seed?: number; shared?: readonly (number | null)[] } = {},
): number {
  if (limits.length === 0) return 1;
  const replicates = opts.replicates ?? 400;
  const random = mulberry32(opts.seed ?? 1);
  const aggregations = limits.map(aggregationOf);
  let passed = 0;
  for (let r = 0; r < replicates; r++) {
    const stats = resampleStep(step, limits, aggregations, random, opts.shared);
    if (stats.every((v, i) => v !== null && holds(v, limits[i]!))) passed++;
  }
  return passed / replicates;
}
