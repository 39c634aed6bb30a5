// The adaptive capacity search: per use case, climb until a limit breaks, then bisect to the plan's resolution.
// Pure. Runs in Node.
//
// Each step's verdict comes from its measured requests, evaluated with the report's own limit checks
// (analysis/capacity.ts on analysis/cells.ts statistics), so the bench's decision and the report's table
// cannot disagree.

import { resolutionAt, type CapacitySearchConfig, type LimitStat } from '../lib/plan';
import type { UseCase } from '../thresholds/use-cases';
import { checkLimit, ladderLimits, limitTrend, type LadderLimit, type LimitCheck } from '../analysis/capacity';
import { buildCellStats, type CellStats } from '../analysis/cells';
import type { ClientBoundCause } from '../analysis/client-bound';
import { extrapolateCrossing, powerLawBase } from '../analysis/stats';
import { addClientSample, newCellAccumulator, type CellAccumulator } from '../analysis/cell-accumulator';
import { DEFAULT_COST } from '../analysis/power';
import { MIN_SUCCESS_RATE } from '../lib/plan-defaults';
import type { StepMode, StepRequest, StepResult, StepSource, StepSpec } from './driver';
import {
  capacityInterval, isUnclear, passShare, sharedNoise, SOLO_USERS, withCapacity, type CapacityInterval,
  type IntervalStep,
} from '../analysis/capacity-interval';

/**
 * A one-user step measures at least 6 requests, or 6 s of them: the requests a bootstrap reads the server's shared
 * noise from (analysis/capacity-interval.ts). Short requests (the use cases whose large steps need it) get 6 in a few
 * seconds; a long-context step stops at the cap. Fewer left the estimate too often far below the noise (4 requests:
 * 3 degrees of freedom, one run in five stated an exact capacity on the noisy simulator). The part's first request
 * warms the connections and code up.
 */
const NOISE_PROBE = { requests: 6, seconds: 6 } as const;

/**
 * Where one user's requests vary by more than this (coefficient of variation of a limit's metric), the server has
 * noise of its own, and the probe is measured again once the search has narrowed: noise that arrives after the
 * search's start (a neighbour's load, a thermal limit) then shows in the pooled probe's spread, between the two
 * stretches as well as within each. Below it (the deterministic simulator: 0.1%) the second probe would only cost
 * time. Real servers' single-user requests vary by 0.5-2%, the noisy simulator's by 1-5%.
 */
export const LATE_PROBE_MIN_NOISE = 0.005;

/** One measured step of a use case. */
export interface SearchPoint {
  readonly users: number;
  readonly ok: boolean;
  readonly checks: readonly LimitCheck[];
  /** Its measured requests' values per limit, for the capacity's bootstrap interval (absent: not kept). */
  readonly sample?: IntervalStep;
  /** The share of bootstrap resamples of its requests that pass every limit (absent: not computed). */
  readonly passShare?: number;
  /** How many times it was measured: a step whose verdict was unclear is measured again, its requests pooled. */
  readonly measurements?: number;
}


export type SearchState =
  | { readonly kind: 'next'; readonly users: number }
  | { readonly kind: 'done'; readonly lastPass: number | null; readonly firstFail: number | null };


/** How far one climbing step may go: x2 of the last passing step. */
const MAX_CLIMB = 2;

/**
 * The broken limit's predicted crossing between a passing and a failing point (log-log interpolation, else linear);
 * null without figures.
 */
export function interpolateCrossing(
  pass: SearchPoint, fail: SearchPoint, limits: readonly LadderLimit[],
): number | null {
  let best: number | null = null;
  limits.forEach((l, i) => {
    if (fail.checks[i]?.ok !== false) return;
    const v0 = pass.checks[i]?.actual;
    const v1 = fail.checks[i]?.actual;
    if (v0 == null || v1 == null || v0 === v1) return;
    let x: number;
    if (v0 > 0 && v1 > 0 && l.value > 0) {
      const exponent = Math.log(fail.users / pass.users) / Math.log(v1 / v0);
      x = pass.users * Math.pow(l.value / v0, exponent);
    } else x = pass.users + ((l.value - v0) * (fail.users - pass.users)) / (v1 - v0);
    if (isFinite(x) && (best === null || x < best)) best = x;
  });
  return best;
}

/**
 * The search's next move from the points measured so far, in the order measured.
 * Climbing: the largest passing step grows to the crossing a power law through it and its base predicts (the
 * largest passing step at most half of it: analysis/stats.ts powerLawBase), at least +1 and at most x2 (an overshoot
 * is the dearest step: the most users, the slowest requests), capped at maxUsers. Once a step fails: the
 * crossing interpolated between the last pass and the first fail is tried, then the step one
 * resolution beyond it on the other side, so a good prediction ends the search in two steps; when
 * a try does not halve the interval, the next is its middle, so the search always ends.
 */
export function nextSearchStep(
  points: readonly SearchPoint[], cfg: Pick<CapacitySearchConfig, 'startUsers' | 'exactBelow' | 'resolutionPercent'>,
  maxUsers: number, limits: readonly LadderLimit[],
): SearchState {
  if (points.length === 0) return { kind: 'next', users: Math.min(cfg.startUsers, maxUsers) };
  const passes = points.filter((p) => p.ok);
  const { lo, hi } = searchInterval(points);
  if (hi !== null) {
    if (lo === 0 && hi === 1) return { kind: 'done', lastPass: null, firstFail: 1 };
    const res = resolutionAt(Math.max(lo, 1), cfg);
    if (hi - lo <= res) return { kind: 'done', lastPass: lo === 0 ? null : lo, firstFail: hi };
    const mid = Math.floor((lo + hi) / 2);
    const inside = (n: number) => Math.min(hi - 1, Math.max(lo + 1, n));
    // Bisect when the last two tries left more than half of the interval they started from.
    const widths = intervalWidths(points);
    const slow = widths.length >= 3 && widths[widths.length - 1]! > widths[widths.length - 3]! / 2;
    if (slow || lo === 0) return { kind: 'next', users: mid };
    const last = points[points.length - 1]!;
    const pass = passes.find((p) => p.users === lo)!;
    const fail = points.find((p) => !p.ok && p.users === hi)!;
    // The last try landed next to the crossing: probe one resolution beyond it.
    if (last === pass && points.length >= 2 && !points[points.length - 2]!.ok)
      return { kind: 'next', users: inside(lo + res) };
    const guess = interpolateCrossing(pass, fail, limits);
    return { kind: 'next', users: inside(guess === null ? mid : Math.floor(guess)) };
  }
  if (lo >= maxUsers) return { kind: 'done', lastPass: lo, firstFail: null };
  const sorted = [...passes].sort((a, b) => a.users - b.users);
  let target = lo * MAX_CLIMB;
  if (sorted.length >= 2) {
    const b = sorted[sorted.length - 1]!;
    const a = sorted[powerLawBase(sorted.map((p) => p.users), sorted.length - 1)]!;
    let nearest: number | null = null;
    limits.forEach((l, i) => {
      const va = a.checks[i]?.actual;
      const vb = b.checks[i]?.actual;
      if (va == null || vb == null) return;
      const x = extrapolateCrossing(a.users, va, b.users, vb, l.value);
      if (x !== null && (nearest === null || x < nearest)) nearest = x;
    });
    if (nearest !== null) target = Math.min(lo * MAX_CLIMB, Math.floor(nearest as number));
  }
  return { kind: 'next', users: Math.min(maxUsers, Math.max(lo + 1, target)) };
}

/** [lo, hi): the largest passing step (0 without one) and the smallest failing step above it (null without one). */
function searchInterval(points: readonly SearchPoint[]): { lo: number; hi: number | null } {
  const lo = Math.max(0, ...points.filter((p) => p.ok).map((p) => p.users));
  const fails = points.filter((p) => !p.ok && p.users > lo).map((p) => p.users);
  return { lo, hi: fails.length > 0 ? Math.min(...fails) : null };
}

/** The width of the [last pass, first fail) interval after each point, from the first failure on. */
function intervalWidths(points: readonly SearchPoint[]): number[] {
  const out: number[] = [];
  for (let i = 1; i <= points.length; i++) {
    const { lo, hi } = searchInterval(points.slice(0, i));
    if (hi !== null) out.push(hi - lo);
  }
  return out;
}

/** A step's measured requests as the bootstrap reads them: per limit, each request's value of its metric. */
function intervalStep(
  users: number, limits: readonly LadderLimit[], acc: CellAccumulator, measurements: number,
): IntervalStep {
  const values = limits.map((l) => {
    if (l.metric === 'goodput') return { passes: acc.goodput.good, fails: acc.goodput.judged - acc.goodput.good };
    const trend = limitTrend(l);
    return trend === null ? null : acc.trends[trend].values();
  });
  return { users, values, succeeded: acc.okCount, failed: acc.failCount, measurements };
}

/** The bootstrap interval of a search's capacity, holding its last passing step; null before any step. */
export function searchInterval95(s: UseCaseSearch): CapacityInterval | null {
  const samples = s.points.flatMap((p) => (p.sample ? [p.sample] : []));
  if (samples.length !== s.points.length) return null;
  return withCapacity(capacityInterval(samples, s.limits), searchInterval(s.points).lo);
}

/** A step's measured requests gathered as the report gathers a cell's samples (report/read-samples.ts). */
function measuredAccumulator(cellId: string, requests: readonly StepRequest[]): CellAccumulator {
  const acc = newCellAccumulator(cellId, {});
  for (const r of requests) {
    if (r.phase !== 'measured') continue;
    // A failed request is judged too (not good), as lib/k6/llm.ts pushes its llm_goodput sample from the agent's
    // record.
    if (r.goodput !== null) {
      acc.goodput.judged++;
      if (r.goodput) acc.goodput.good++;
    }
    if (!r.ok) {
      acc.failCount++;
      continue;
    }
    acc.okCount++;
    const t = acc.trends;
    if (r.ttftMs !== null) t.ttft.push(r.ttftMs);
    if (r.ttfcMs !== null) t.ttfc.push(r.ttfcMs);
    if (r.e2eMs !== null) {
      t.e2e.push(r.e2eMs);
      acc.windowStartMs = Math.min(acc.windowStartMs, r.startMs);
      acc.windowEndMs = Math.max(acc.windowEndMs, r.endMs);
    }
    if (r.tpotMs !== null) t.tpot.push(r.tpotMs);
    if (r.decodeTokensPerSecond !== null) t.decodeSpeed.push(r.decodeTokensPerSecond);
    if (r.prefillTokensPerSecond !== null) t.prefillSpeed.push(r.prefillTokensPerSecond);
    for (const x of r.itlMs) t.itl.push(x);
    acc.outputTokens += r.outputTokens;
    addHealth(acc, r);
  }
  return acc;
}

/** The agent's health with a request, gathered as the report gathers its samples, so both judge the client alike. */
function addHealth(acc: CellAccumulator, r: StepRequest): void {
  if (r.readLagMs !== null) addClientSample(acc, 'readLag', r.endMs, r.readLagMs);
  if (r.stallMs !== null) addClientSample(acc, 'stall', r.endMs, r.stallMs);
  if (r.cpuPerCore !== null) addClientSample(acc, 'cpuSeconds', r.endMs, r.cpuPerCore);
  if (r.tokensReadTogether !== null) addClientSample(acc, 'readTogether', r.endMs, r.tokensReadTogether);
}

/** A step's statistics from its measured requests, built as the report builds a cell's (analysis/cells.ts). */
function measuredStats(spec: StepSpec, acc: CellAccumulator): CellStats {
  const cell = {
    ...spec.cell, rounds: 0, warmupRounds: 0, startSeconds: 0, maxDurationSeconds: 0, gracefulStopSeconds: 0,
  };
  return buildCellStats(cell, acc, {}, DEFAULT_COST);
}

export interface UseCaseSearch {
  readonly useCase: UseCase;
  readonly outputTokens: number;
  readonly maxUsers: number;
  readonly limits: readonly LadderLimit[];
  readonly points: SearchPoint[];
  outcome: Extract<SearchState, { kind: 'done' }> | null;
  /** Repeats of unclear steps spent so far (at most the plan's maxRepeats). */
  repeats: number;
  /** Whether the one-user noise probe was measured again at the search's end (LATE_PROBE_MIN_NOISE). */
  lateProbe: boolean;
  /** Steps whose verdict was unclear when the search ended (the repeat budget spent, or none given). */
  readonly unclear: number[];
  /**
   * How the search ended, once it has: narrow (the capacity's interval within the resolution), budget (still wide,
   * unclear steps left, no repeats left), steps-clear (still wide, though every step's verdict is clear: the
   * limit's statistic barely moves with users, and measuring again would not narrow it), client-bound (a step was
   * client-bound when measured again: the capacity is undetermined above the last clean pass).
   */
  decision: 'narrow' | 'budget' | 'steps-clear' | 'client-bound' | null;
  /**
   * Steps whose measurement was client-bound (analysis/client-bound.ts): run once more under a cell id of their own
   * (the first measurement's samples stay apart in the report), and the reason of each that was client-bound again.
   */
  readonly clientRetried: Set<number>;
  readonly clientBound: { users: number; cause: ClientBoundCause }[];
  /** The step to measure again now, its first measurement client-bound; null when none. */
  retryUsers: number | null;
  /** The measured requests of each step, by users, pooled over its measurements. */
  readonly requests: Map<number, StepRequest[]>;
}

/** A use case's ceiling of users, as the resolved plan fills it in for every use case it searches. */
function maxUsersOf(cfg: CapacitySearchConfig, useCaseId: string): number {
  const max = cfg.maxUsers[useCaseId];
  if (max === undefined) throw new Error(`the plan's capacity search has no maxUsers for use case "${useCaseId}"`);
  return max;
}

/**
 * The steps of the capacity part: each use case in turn, searched as above. Its `searches` say where
 * each search stands (the bench's progress lines and the end-of-part table read them).
 */
export class CapacitySearch implements StepSource {
  readonly searches: UseCaseSearch[];
  private at = 0;
  private seen = 0;

  constructor(
    useCases: readonly { readonly useCase: UseCase; readonly outputTokens: number }[],
    private readonly cfg: CapacitySearchConfig,
    limitStat: LimitStat,
    minGoodput: number | null = null,
    /**
     * The step of `users` users: a capacity step by default; the sessions script searches its own steps of active
     * users.
     */
    private readonly cellOf: (s: UseCaseSearch, users: number) => StepSpec['cell'] = capacityCell,
  ) {
    this.searches = useCases.map(({ useCase, outputTokens }) => ({
      useCase,
      outputTokens,
      maxUsers: maxUsersOf(cfg, useCase.id),
      limits: ladderLimits(useCase.limits, limitStat, MIN_SUCCESS_RATE, minGoodput),
      points: [],
      outcome: null,
      repeats: 0,
      lateProbe: false,
      unclear: [],
      decision: null,
      clientRetried: new Set(),
      clientBound: [],
      retryUsers: null,
      requests: new Map(),
    }));
  }

  next(done: readonly StepResult[]): StepSpec | null {
    // Fold in the steps that ended since the last call (one at a time: the driver calls after each).
    for (; this.seen < done.length; this.seen++) this.fold(this.searches[this.at]!, done[this.seen]!);
    while (this.at < this.searches.length) {
      const s = this.searches[this.at]!;
      if (s.retryUsers !== null) {
        const users = s.retryUsers;
        s.retryUsers = null;
        return this.spec(s, users);
      }
      if (s.clientBound.length > 0) {
        this.endClientBound(s);
        continue;
      }
      const state = nextSearchStep(s.points, this.cfg, s.maxUsers, s.limits);
      if (state.kind === 'next') return this.spec(s, state.users);
      if (this.wantsLateProbe(s)) {
        s.lateProbe = true;
        return this.spec(s, SOLO_USERS);
      }
      const repeat = this.repeatFor(s, state);
      if (repeat !== null) {
        s.repeats++;
        return this.spec(s, repeat);
      }
      s.outcome = state;
      this.at++;
    }
    return null;
  }

  /**
   * Once the search has narrowed to its resolution: the step to measure again, or null when the capacity is
   * decided. Decided means its bootstrap interval is no wider than the resolution on both sides (what the report
   * calls narrow), so a deterministic server costs nothing more, and the first failing step's verdict is clear
   * (censoredAbove). Otherwise the less certain of the last pass and the first fail (resamples nearer an even split),
   * when unclear, is measured again, while the plan's budget lasts; under a narrow interval, the first fail.
   */
  private repeatFor(s: UseCaseSearch, state: Extract<SearchState, { kind: 'done' }>): number | null {
    const capacity = state.lastPass ?? 0;
    const interval = searchInterval95(s);
    s.decision = 'narrow';
    s.unclear.splice(0);
    if (interval === null) return null;
    const allowed = 2 * resolutionAt(Math.max(1, capacity), this.cfg);
    const firstFail = s.points.find((p) => p.users === state.firstFail);
    const narrow = interval.high !== null && interval.high - interval.low <= allowed;
    if (narrow && !censoredAbove(firstFail)) return null;
    // The last pass and the first fail set the capacity: the less certain of them first (a step above the first
    // fail matters only where it flips), then the other unclear steps, nearest the capacity first.
    const bracket = (p: SearchPoint) => p.users === state.lastPass || p.users === state.firstFail;
    const unclear = s.points.filter((p) => p.passShare !== undefined && isUnclear(p.passShare))
      .sort((a, b) => Number(bracket(b)) - Number(bracket(a)) ||
        (bracket(a) ? Math.abs(a.passShare! - 0.5) - Math.abs(b.passShare! - 0.5) : 0) ||
        Math.abs(a.users - capacity) - Math.abs(b.users - capacity));
    s.unclear.splice(0, s.unclear.length, ...unclear.map((p) => p.users));
    if (unclear.length === 0) {
      s.decision = 'steps-clear';
      return null;
    }
    if (s.repeats >= this.cfg.maxRepeats) {
      s.decision = 'budget';
      return null;
    }
    // A narrow interval is in doubt only above it: the (unclear, so listed) first fail.
    return narrow ? firstFail!.users : unclear[0]!.users;
  }

  /**
   * Whether to measure the one-user probe again now that the search has narrowed: once per use case, when the probe
   * ran as the search's first step, and its requests showed noise of the server's own (LATE_PROBE_MIN_NOISE).
   */
  private wantsLateProbe(s: UseCaseSearch): boolean {
    if (s.lateProbe) return false;
    const probe = s.points.find((p) => p.users <= SOLO_USERS);
    if (!probe?.sample || probe.measurements !== 1 || s.points[s.points.length - 1] === probe) return false;
    const noise = sharedNoise([probe.sample], s.limits);
    return noise.some((cv) => cv !== null && cv >= LATE_PROBE_MIN_NOISE);
  }

  /**
   * A step whose client limited it is no measurement of the server: it is measured once more, and when it is
   * client-bound again the search of its use case ends there, its capacity undetermined above the last clean pass
   * (docs/design/client-integrity.md).
   */
  private endClientBound(s: UseCaseSearch): void {
    const { lo, hi } = searchInterval(s.points);
    s.outcome = { kind: 'done', lastPass: lo === 0 ? null : lo, firstFail: hi };
    s.decision = 'client-bound';
    this.at++;
  }

  /** Whether a step's own requests were client-bound; if so, it is set to be measured again or to end the search. */
  private clientBoundStep(s: UseCaseSearch, result: StepResult): boolean {
    const users = result.spec.cell.concurrency;
    const own = measuredStats(result.spec, measuredAccumulator(result.spec.cell.id, result.requests));
    if (own.clientBound === null) return false;
    if (s.clientRetried.has(users)) s.clientBound.push({ users, cause: own.clientBound });
    else {
      s.clientRetried.add(users);
      s.retryUsers = users;
    }
    return true;
  }

  /** Folds a measured step into its use case's points; a repeat of a step pools its requests with the earlier ones. */
  private fold(s: UseCaseSearch, result: StepResult): void {
    if (this.clientBoundStep(s, result)) return;
    const users = result.spec.cell.concurrency;
    const requests = [...(s.requests.get(users) ?? []), ...result.requests];
    s.requests.set(users, requests);
    const acc = measuredAccumulator(result.spec.cell.id, requests);
    const checks = s.limits.map((l) => checkLimit(measuredStats(result.spec, acc), l));
    const at = s.points.findIndex((p) => p.users === users);
    const measurements = at < 0 ? 1 : (s.points[at]!.measurements ?? 1) + 1;
    const sample = intervalStep(users, s.limits, acc, measurements);
    const point: SearchPoint = { users, ok: checks.every((k) => k.ok), checks, sample, measurements };
    // The points stay in the order measured: a repeat is the latest measurement of its step.
    if (at >= 0) s.points.splice(at, 1);
    s.points.push(point);
    // Every step's verdict is judged again: the noise its requests share is read off the ladder's smallest steps.
    const shared = sharedNoise(s.points.flatMap((p) => (p.sample ? [p.sample] : [])), s.limits);
    s.points.forEach((p, i) => {
      if (p.sample) s.points[i] = { ...p, passShare: passShare(p.sample, s.limits, { shared }) };
    });
  }

  /** The use case being searched and its interval so far: [last pass, first fail). */
  get position(): {
    useCase: string; lastPass: number | null; firstFail: number | null; index: number; count: number;
  } | null {
    const s = this.searches[this.at];
    if (!s) return null;
    const { lo, hi } = searchInterval(s.points);
    return {
      useCase: s.useCase.id, lastPass: lo === 0 ? null : lo, firstFail: hi, index: this.at, count: this.searches.length,
    };
  }

  /** The part's first step meets cold connections and code: its first request is a warm-up. */
  private coldStart(s: UseCaseSearch): boolean {
    return this.searches.indexOf(s) === 0 && s.points.length === 0;
  }

  private spec(s: UseCaseSearch, users: number): StepSpec {
    const cell = this.cellOf(s, users);
    const mode: StepMode = {
      kind: 'steady',
      warmupRequests: this.cfg.warmupRequests,
      minRequestsPerUser: this.cfg.minRequestsPerUser,
      minMeasuredSeconds: this.cfg.minMeasuredSeconds,
      freshUsers: s.points.length === 0,
      ...(users <= SOLO_USERS ? { noiseProbe: { ...NOISE_PROBE, warmupRequests: this.coldStart(s) ? 1 : 0 } } : {}),
      // Closed loop: the server's histograms can be read over a one-user step's own requests (sessions users think).
      ...(cell.script === 'capacity' ? { quietEdges: true } : {}),
    };
    // A step measured again after a client-bound measurement keeps a cell of its own: the report judges them apart.
    return { cell: s.clientRetried.has(users) ? { ...cell, id: `${cell.id}_again` } : cell, mode };
  }
}

/**
 * Whether the interval cannot see above the first failing step: its verdict is unclear, and in the resamples where
 * it passes no step above it was measured, so they place the capacity on an extrapolation just above it. A narrow
 * interval then only says the search stopped there (on the noisy simulator a first fail read 2.6% slow, passing in
 * 16% of resamples, stated 15 (15-16) where the truth was 17); measuring it again says whether it fails.
 */
function censoredAbove(firstFail: SearchPoint | undefined): boolean {
  return firstFail?.passShare !== undefined && isUnclear(firstFail.passShare);
}

/** The capacity script's step of `users` closed-loop users of a use case. */
function capacityCell(s: UseCaseSearch, users: number): StepSpec['cell'] {
  return {
    id: `capacity_${s.useCase.id}_n${users}`, script: 'capacity', contextTokens: s.useCase.contextTokens,
    outputTokens: s.outputTokens, concurrency: users, useCase: s.useCase.id, profile: null,
  };
}
