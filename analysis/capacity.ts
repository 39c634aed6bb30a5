// Capacity per use case (burst depth: analysis/burst-capacity.ts). Runs in Node.
// Limits are evaluated with lib/threshold-grammar.ts; crossings are interpolated between steps.
//
// A ladder is a list of steps (cells) of rising concurrency. Every limit is turned into a k6
// threshold expression ("<limitStat><op><value>", e.g. "avg<8000") and evaluated with the suite's
// one threshold implementation against the step's distribution, so a limit means here exactly what
// it means to k6. Capacity is the last passing step before the first failing one; when the next
// step fails, the crossing is estimated by linear interpolation of each broken limit's statistic
// between the two steps (shown "~N"); when no step fails, capacity is "more than N".

import type { UseCase, UseCaseLimit } from '../thresholds/use-cases';
import { evaluateThreshold, parseThreshold, type ParsedThreshold } from '../lib/threshold-grammar';
import { METRICS, type MetricKey } from '../lib/metrics';
import type { LimitStat } from '../lib/plan';
import type { CellStats } from './cells';
import { crossingX, toK6Values, valueAt } from './stats';
import { limitExpression } from '../lib/options';
import { capacityInterval, passShare, sharedNoise, withCapacity, type CapacityInterval } from './capacity-interval';
import type { TrendKey } from './cell-accumulator';
import { decidingClientBound, type ClientBoundCause } from './client-bound';

/** A capacity cell's per-request values of the request Trends (ITL aside: one value per token, no limit here). */
export type RequestValues = Partial<Record<TrendKey, Float64Array>>;

/**
 * One limit, resolved to a threshold expression. metric "successRate" checks the share of successful requests,
 * "goodput" the share of requests that met every limit on their own figures (plan minGoodput).
 */
export interface LadderLimit {
  readonly metric: UseCaseLimit['metric'] | 'successRate' | 'goodput';
  readonly operator: UseCaseLimit['operator'];
  readonly value: number;
  readonly label: string;
  /** The k6 threshold expression evaluated, e.g. "avg<8000" or "rate>=0.99". */
  readonly expression: string;
}

export interface LimitCheck {
  readonly metric: LadderLimit['metric'];
  readonly label: string;
  readonly expression: string;
  /** The statistic compared (e.g. the average TTFT in ms); null when the metric had no samples. */
  readonly actual: number | null;
  readonly ok: boolean;
}

export interface LadderStep {
  readonly cellId: string;
  readonly concurrency: number;
  readonly checks: readonly LimitCheck[];
  readonly ok: boolean;
}

export type CapacityKind = 'untested' | 'below' | 'within' | 'beyond' | 'undetermined';

export interface LadderResult {
  readonly steps: readonly LadderStep[];
  /**
   * untested: no step ran; below: even the first step breaks a limit; within: a limit breaks between
   * lastPass and firstFail; beyond: no tested step breaks a limit (capacity is more than the largest step);
   * undetermined: a step that would decide it was client-bound (analysis/client-bound.ts) and never measured cleanly,
   * so it is no measurement of the server: the capacity lies above lastPass (below firstFail, when one broke).
   */
  readonly kind: CapacityKind;
  readonly lastPass: number | null;
  readonly firstFail: number | null;
  /** Largest concurrency estimated to be within every limit (an integer); null for untested/below. */
  readonly estimate: number | null;
  /** True when estimate lies strictly between tested steps (interpolated: shown "~N"). */
  readonly interpolated: boolean;
  /** The limit that broke first (lowest estimated crossing); null when none broke. */
  readonly brokenBy: LadderLimit | null;
  /** Undetermined only: the client-bound steps that would decide the capacity, and why each was. */
  readonly clientBound?: readonly { readonly users: number; readonly cause: ClientBoundCause }[];
}

const SUCCESS_METRIC = 'successRate';
const GOODPUT_METRIC = 'goodput';

/** The share limits (success rate, goodput): judged on counts of requests, not on a distribution of values. */
export function isShareLimit(limit: Pick<LadderLimit, 'metric'>): boolean {
  return limit.metric === SUCCESS_METRIC || limit.metric === GOODPUT_METRIC;
}

/** The request Trend a limit is checked on; null for a share limit. */
export function limitTrend(limit: Pick<LadderLimit, 'metric'>): UseCaseLimit['metric'] | null {
  return limit.metric === SUCCESS_METRIC || limit.metric === GOODPUT_METRIC ? null : limit.metric;
}

/** A share limit's counts on one cell: requests that count, and of those the ones that passed. */
export function shareCounts(cell: CellStats, limit: Pick<LadderLimit, 'metric'>): { passes: number; fails: number } {
  if (limit.metric === GOODPUT_METRIC) {
    const good = Math.round((cell.goodput ?? 0) * cell.goodputJudged);
    return { passes: good, fails: cell.goodputJudged - good };
  }
  return { passes: cell.succeeded, fails: cell.failed };
}

/** "95%", "99.5%": a share as a limit's label writes it. */
function sharePercent(share: number): string {
  return `${(share * 100).toFixed(Math.round(share * 1000) % 10 === 0 ? 0 : 1)}%`;
}

export function ladderLimits(
  limits: readonly UseCaseLimit[], stat: LimitStat, minSuccessRate: number | null, minGoodput: number | null = null,
): LadderLimit[] {
  const out: LadderLimit[] = limits.map((l) => ({
    metric: l.metric, operator: l.operator, value: l.value, label: l.label,
    expression: limitExpression(l, l.stat ?? stat),
  }));
  if (minGoodput !== null) {
    out.push({
      metric: GOODPUT_METRIC, operator: '>=', value: minGoodput, label: `goodput >= ${sharePercent(minGoodput)}`,
      expression: limitExpression({ operator: '>=', value: minGoodput }, 'rate'),
    });
  }
  if (minSuccessRate !== null && minSuccessRate > 0) {
    out.push({
      metric: SUCCESS_METRIC, operator: '>=', value: minSuccessRate,
      label: `success >= ${(minSuccessRate * 100).toFixed(minSuccessRate >= 0.999 ? 1 : 0)}%`,
      expression: limitExpression({ operator: '>=', value: minSuccessRate }, 'rate'),
    });
  }
  return out;
}

function parsed(expression: string): ParsedThreshold {
  const r = parseThreshold(expression);
  if (!r.ok) throw new Error(r.error);
  return r.value;
}

/** The statistic a limit is checked on, for one cell; null when there were no samples. */
export function limitActual(cell: CellStats, limit: LadderLimit): number | null {
  if (limit.metric === SUCCESS_METRIC) return cell.successRate;
  if (limit.metric === GOODPUT_METRIC) return cell.goodput;
  const d = cell.metrics[limit.metric as UseCaseLimit['metric']];
  if (d === null) return null;
  return toK6Values(d)[parsed(limit.expression).aggregation] ?? null;
}

/** Evaluates one limit on one cell with lib/threshold-grammar.ts. */
export function checkLimit(cell: CellStats, limit: LadderLimit): LimitCheck {
  const t = parsed(limit.expression);
  if (isShareLimit(limit)) {
    const rate = limitActual(cell, limit);
    // No request judged for goodput (no use case on the cell, an old run) cannot meet a goodput limit.
    const ok = rate === null ? false : evaluateThreshold(t, { rate, ...shareCounts(cell, limit) }, 'rate');
    return { metric: limit.metric, label: limit.label, expression: limit.expression, actual: rate, ok };
  }
  const key: MetricKey = limit.metric as UseCaseLimit['metric'];
  const d = cell.metrics[key as UseCaseLimit['metric']];
  // A step with no samples of the metric (every request failed) cannot be within the limit.
  const ok = d === null ? false : evaluateThreshold(t, toK6Values(d), METRICS[key].kind);
  const actual = limitActual(cell, limit);
  return { metric: limit.metric, label: limit.label, expression: limit.expression, actual, ok };
}

/**
 * How every ladder is read (use cases, bursts, rates, embeddings): bottom up, the last step that holds before the
 * first that breaks. A queue that has started to grow does not shrink with more users, so a step above the first
 * break that held again is no capacity. `steps` in rising order; null where there is no such step.
 */
export function readLadder<T>(
  steps: readonly T[], holds: (step: T) => boolean,
): { lastHeld: T | null; firstBroken: T | null } {
  const breakAt = steps.findIndex((step) => !holds(step));
  const held = breakAt < 0 ? steps.length : breakAt;
  return { lastHeld: held > 0 ? steps[held - 1]! : null, firstBroken: breakAt < 0 ? null : steps[breakAt]! };
}

function isStrict(op: LadderLimit['operator']): boolean {
  return op === '<' || op === '>';
}

/**
 * Evaluates a ladder of cells (any order; sorted by concurrency here) against limits. Cells without requests are left
 * out (they never ran), and so are client-bound cells: the client, not the server, set their pace. When such a cell
 * is the step that would decide the capacity (between the last pass and the first fail, with no clean measurement of
 * its users), the capacity is undetermined, never read off it.
 */
export function evaluateLadder(
  cells: readonly CellStats[], limits: readonly LadderLimit[], interpolate = true,
): LadderResult {
  const result = evaluateCleanLadder(cells.filter((c) => c.clientBound === null), limits, interpolate);
  const deciding = decidingClientBound(cells, result.lastPass, result.firstFail);
  if (deciding.length === 0) return result;
  const undetermined = { kind: 'undetermined', estimate: null, interpolated: false, brokenBy: null } as const;
  return { ...result, ...undetermined, clientBound: deciding };
}

/** evaluateLadder over cells the client did not limit. */
function evaluateCleanLadder(
  cells: readonly CellStats[], limits: readonly LadderLimit[], interpolate: boolean,
): LadderResult {
  const ran = cells.filter((c) => c.requests > 0).sort((a, b) => a.concurrency - b.concurrency);
  const steps: LadderStep[] = ran.map((c) => {
    const checks = limits.map((l) => checkLimit(c, l));
    return { cellId: c.id, concurrency: c.concurrency, checks, ok: checks.every((k) => k.ok) };
  });
  if (steps.length === 0) return measured(steps, 'untested', null, null, null, null);
  const { lastHeld: pass, firstBroken: fail } = readLadder(steps, (s) => s.ok);
  if (fail === null) {
    const top = pass!.concurrency;
    return measured(steps, 'beyond', top, null, top, null);
  }
  const broken = limits.filter((_, i) => !fail.checks[i]!.ok);
  const f = fail.concurrency;
  if (pass === null) return measured(steps, 'below', null, f, null, broken[0] ?? null);
  const n0 = pass.concurrency;
  const n1 = fail.concurrency;
  // A search measured both sides to its resolution: the capacity is the last passing step, as measured.
  if (!interpolate) return measured(steps, 'within', n0, n1, n0, broken[0] ?? null);
  let best = n1;
  let brokenBy: LadderLimit | null = broken[0] ?? null;
  for (const l of broken) {
    const i = limits.indexOf(l);
    const v0 = pass.checks[i]!.actual;
    const v1 = fail.checks[i]!.actual;
    let x: number = n0;
    if (v0 !== null && v1 !== null) {
      const c = crossingX(n0, v0, n1, v1, l.value);
      if (c !== null && isFinite(c)) x = Math.min(Math.max(c, n0), n1);
    }
    // The largest whole concurrency still within the limit: at an exact crossing a strict limit already fails.
    let est = Math.floor(x);
    if (est === x && isStrict(l.operator) && est > n0) est -= 1;
    est = Math.max(n0, Math.min(est, n1 - 1));
    if (est < best) {
      best = est;
      brokenBy = l;
    }
  }
  const interpolated = best > n0;
  return { steps, kind: 'within', lastPass: n0, firstFail: n1, estimate: best, interpolated, brokenBy };
}

/** A ladder result read straight off the measured steps, with nothing interpolated. */
function measured(
  steps: LadderStep[], kind: LadderResult['kind'], lastPass: number | null, firstFail: number | null,
  estimate: number | null, brokenBy: LadderLimit | null,
): LadderResult {
  return { steps, kind, lastPass, firstFail, estimate, interpolated: false, brokenBy };
}

/**
 * A metric's value at a (possibly interpolated) concurrency on a ladder of cells: exact at a step, linear between
 * steps.
 */
export function interpolateMetric(
  cells: readonly CellStats[], concurrency: number, get: (c: CellStats) => number | null,
): number | null {
  const pts = cells
    .map((c) => ({ n: c.concurrency, v: get(c) }))
    .filter((p): p is { n: number; v: number } => p.v !== null)
    .sort((a, b) => a.n - b.n);
  const exact = pts.find((p) => p.n === concurrency);
  if (exact) return exact.v;
  for (let i = 1; i < pts.length; i++) {
    const a = pts[i - 1]!;
    const b = pts[i]!;
    if (a.n < concurrency && concurrency < b.n) return valueAt(a.n, a.v, b.n, b.v, concurrency);
  }
  return null;
}

export interface UseCaseCapacity {
  readonly useCase: UseCase;
  /**
   * Which cells were used: the capacity part, else sweep cells of the same context and output length, else the
   * gate.
   */
  readonly source: 'capacity' | 'sweep' | 'gate' | null;
  readonly cellIds: readonly string[];
  readonly limits: readonly LadderLimit[];
  readonly result: LadderResult;
  /**
   * The capacity's 95% interval from a bootstrap over each step's requests (analysis/capacity-interval.ts); null
   * without a ladder.
   */
  readonly interval?: CapacityInterval | null;
  /**
   * Goodput at the capacity (analysis/cells.ts: the share of requests within every limit, judged per request): the
   * capacity step's, interpolated between steps like every figure at "~N"; null when no capacity or no goodput.
   */
  readonly goodputAtCapacity: number | null;
  /**
   * The verdicts of the steps on either side of a searched capacity (last pass, first fail): how sure the measured
   * requests are of each; absent when the capacity was not read off a capacity part.
   */
  readonly verdicts?: readonly StepVerdict[];
}

/** How sure a step's measured requests are of its verdict. */
export interface StepVerdict {
  readonly users: number;
  readonly ok: boolean;
  /** The share of bootstrap resamples of its requests in which every limit holds (analysis/capacity-interval.ts). */
  readonly passShare: number;
  /** How many times it was measured, its requests pooled. */
  readonly measurements: number;
}

/**
 * The capacity with its bootstrap interval, from the per-request values of its capacity steps; unchanged
 * (no interval) when the use case was read off sweep or gate cells, whose requests were not kept.
 */
export function withInterval(
  capacity: UseCaseCapacity, cells: readonly CellStats[], requestValues: ReadonlyMap<string, RequestValues>,
): UseCaseCapacity {
  if (capacity.source !== 'capacity') return { ...capacity, interval: null };
  const ran = cells.filter((c) => capacity.cellIds.includes(c.id) && c.requests > 0);
  const steps = ran.map((c) => ({
    users: c.concurrency,
    values: capacity.limits.map((l) =>
      (isShareLimit(l) ? shareCounts(c, l) : requestValues.get(c.id)?.[limitTrend(l)!] ?? null)),
    succeeded: c.succeeded,
    failed: c.failed,
    measurements: c.measurements,
  }));
  const shared = sharedNoise(steps, capacity.limits);
  const { lastPass, firstFail } = capacity.result;
  const verdicts = ran.flatMap((c, i): StepVerdict[] => {
    if (c.concurrency !== lastPass && c.concurrency !== firstFail) return [];
    const passShareOf = passShare(steps[i]!, capacity.limits, { shared });
    const ok = c.concurrency === lastPass;
    return [{ users: c.concurrency, ok, passShare: passShareOf, measurements: c.measurements }];
  }).sort((a, b) => a.users - b.users);
  const interval = withCapacity(capacityInterval(steps, capacity.limits, { shared }), capacity.result.estimate);
  return { ...capacity, interval, verdicts };
}

/** Picks the cells that measure a use case, in order of preference. */
export function cellsForUseCase(
  uc: UseCase, cells: readonly CellStats[],
): { source: UseCaseCapacity['source']; cells: CellStats[] } {
  const capacity = cells.filter((c) => c.script === 'capacity' && c.useCase === uc.id);
  if (capacity.length > 0) return { source: 'capacity', cells: capacity };
  const sweep = cells.filter((c) =>
    c.script === 'sweep' && c.contextTokens === uc.contextTokens && c.outputTokens === uc.outputTokens);
  if (sweep.length > 0) return { source: 'sweep', cells: sweep };
  const gate = cells.filter((c) => c.script === 'gate' && c.useCase === uc.id);
  if (gate.length > 0) return { source: 'gate', cells: gate };
  return { source: null, cells: [] };
}

export function useCaseCapacity(
  uc: UseCase, cells: readonly CellStats[], stat: LimitStat, minSuccessRate: number | null,
  minGoodput: number | null = null,
): UseCaseCapacity {
  const picked = cellsForUseCase(uc, cells);
  const limits = ladderLimits(uc.limits, stat, minSuccessRate, minGoodput);
  // Steps of an adaptive search are measured on both sides of the limit: nothing is interpolated.
  const searched = picked.cells.length > 0 && picked.cells.every((c) => c.measurement === 'search');
  const result = evaluateLadder(picked.cells, limits, !searched);
  const ran = picked.cells.filter((c) => c.requests > 0);
  return {
    useCase: uc, source: picked.source, cellIds: picked.cells.map((c) => c.id), limits, result,
    goodputAtCapacity: result.estimate === null ? null : interpolateMetric(ran, result.estimate, (c) => c.goodput),
  };
}

/** Value of a metric on a use case's ladder at its capacity estimate (interpolated between steps). */
export function valueAtCapacity(
  cells: readonly CellStats[], u: UseCaseCapacity, get: (c: CellStats) => number | null,
): number | null {
  if (u.result.estimate === null) return null;
  const ladder = cells.filter((c) => u.cellIds.includes(c.id) && c.requests > 0);
  return interpolateMetric(ladder, u.result.estimate, get);
}
