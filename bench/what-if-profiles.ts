// The what-if benchmark's `profiles` part: each simulator profile measured with the fit plan over HTTP, fitted as a
// user would fit their server, and the fitted profile's predictions held against the profile's own virtual-time
// figures (its true capacities, its grid cells). Runs in Node.

import { join } from 'node:path';
import { existsSync, readFileSync } from 'node:fs';
import { resolvePlan, type LimitStat, type PlanInput } from '../lib/plan';
import { median } from '../lib/percentile';
import { promptLengthsForWindow } from '../orchestrator/context-window';
import { DEFAULT_PLANS, FULL_PLAN, QUICK_PLAN } from '../orchestrator/default-plans';
import type { Profile } from '../sim/profiles';
import type { UseCase } from '../thresholds/use-cases';
import { readFittedProfile, type FittedProfile } from '../whatif/fitted-profile';
import { predictCell, type CellShape } from '../whatif/virtual-cell';
import { virtualCapacity } from './virtual-capacity';
import { builtInProfile, fitFlags, fitRun, measureSweep } from './what-if-run';
import {
  capacityWithin, intervalHolds, pct, percentileInterval, relativeError, verdict, WHAT_IF_TARGETS, withinShare,
} from './what-if-score';

export interface ProfilesOptions {
  readonly letters: readonly string[];
  /** The plan the fit run measures: `fit`, or a JSON file of a smaller one. */
  readonly fitPlan: string;
  /** --fit-for and --fit-budget for the fit run, or none: the fixed plan. */
  readonly sizing: readonly string[];
  readonly dir: string;
  /** Keep a fit run an earlier --keep left in `dir` instead of measuring it again. */
  readonly reuse: boolean;
  /** Refits of the fitted profile whose capacities make the interval (each is a capacity search in virtual time). */
  readonly intervalResamples: number;
  /** Contexts of the full plan's grid above this are left out (null: all). */
  readonly maxGridContext: number | null;
  readonly log: (line: string) => void;
}

export interface CapacityRow {
  readonly useCase: string;
  readonly truth: number;
  readonly predicted: number;
  readonly low: number;
  readonly high: number;
}

export interface GridRow {
  readonly cell: string;
  readonly promptTokens: number;
  readonly ttftError: number;
  readonly decodeError: number;
}

export interface ProfileResult {
  readonly letter: string;
  /** Which of the profile's independent fit runs (1 ..), each measured, fitted and predicted on its own. */
  readonly run: number;
  readonly measureSeconds: number | null;
  readonly fitSeconds: number;
  readonly fitMedianErrorPct: number;
  readonly predictSeconds: number;
  readonly capacities: readonly CapacityRow[];
  readonly grid: readonly GridRow[];
  readonly gridContexts: readonly number[];
  /** The fit plan's longest context: grid cells beyond it are extrapolated. */
  readonly fitMaxContext: number;
}

interface CapacityCase {
  readonly useCase: UseCase;
  readonly outputTokens: number;
  readonly maxUsers: number;
}

/** The quick plan's capacity use cases as its search runs them: output tokens, user cap and statistic. */
export function quickCapacityCases(input: PlanInput = QUICK_PLAN): { cases: CapacityCase[]; stat: LimitStat } {
  const plan = resolvePlan(input, 'capacity');
  const ids = [...new Set(plan.cells.map((c) => c.useCase!))];
  const cases = ids.map((id) => ({
    useCase: plan.useCases.find((u) => u.id === id)!,
    outputTokens: plan.cells.find((c) => c.useCase === id)!.outputTokens,
    maxUsers: plan.search?.maxUsers[id] ?? 128,
  }));
  return { cases, stat: plan.limitStat };
}

/**
 * The full plan's sweep grid as cell shapes, prompts fitted to the profile's window as the bench fits them, each
 * user's next request sent `requestGapMs` after its last ended: the client that measured the fit run, for the truth
 * and the prediction alike (what a measured run of either would see).
 */
export function fullGrid(
  profile: Profile, maxContext: number | null, requestGapMs = 0,
): (CellShape & { id: string })[] {
  const plan = resolvePlan(FULL_PLAN, 'sweep');
  const cells = plan.cells.filter((c) => maxContext === null || c.contextTokens <= maxContext);
  const window = promptLengthsForWindow(cells, profile.maxModelLen);
  const fitted = new Map(window.map((f) => [f.contextTokens, f.promptTokens]));
  return cells.map((c) => ({
    id: c.id, promptTokens: fitted.get(c.contextTokens) ?? c.contextTokens, outputTokens: c.outputTokens,
    concurrency: c.concurrency, rounds: c.rounds + (c.warmupRounds ?? 0), requestGapMs,
  }));
}

/** The longest context a sweep plan (a built-in name or a JSON file) measures. */
export function planMaxContext(plan: string): number {
  const input = DEFAULT_PLANS[plan] ?? (JSON.parse(readFileSync(plan, 'utf8')) as PlanInput);
  return Math.max(...resolvePlan(input, 'sweep').cells.map((c) => c.contextTokens));
}

/** The longest context the fit run's sweep measured (its plan.json), or null for a run without one. */
export function measuredMaxContext(runDir: string): number | null {
  const file = join(runDir, 'sweep', 'plan.json');
  if (!existsSync(file)) return null;
  const plan = JSON.parse(readFileSync(file, 'utf8')) as { cells: { contextTokens: number }[] };
  return Math.max(...plan.cells.map((c) => c.contextTokens));
}

/**
 * Runs of a grid cell pooled for its figures, each with other draws of the client's gaps (whatif/virtual-cell.ts): a
 * cell of two users turns on a millisecond, and what a client measures over many runs is the pool's median.
 */
export const GRID_DRAWS = 8;

/** A cell's median TTFT and median decode speed (tokens/s after the first), in virtual time. */
export function cellFigures(profile: Profile, cell: CellShape): { ttft: number; decode: number } {
  const requests = predictCell(profile, cell, cell.requestGapMs ? GRID_DRAWS : 1);
  const speeds = requests.flatMap((r) => (r.tpotMs === null || r.tpotMs <= 0 ? [] : [1000 / r.tpotMs]));
  return { ttft: median(requests.map((r) => r.ttftMs)), decode: median(speeds) };
}

function capacityRows(truth: Profile, fitted: FittedProfile, o: ProfilesOptions): CapacityRow[] {
  const { cases, stat } = quickCapacityCases();
  const resampled = fitted.resampled.slice(0, o.intervalResamples);
  return cases.map(({ useCase, outputTokens, maxUsers }) => {
    const capacity = (p: Profile) => virtualCapacity(p, useCase, outputTokens, maxUsers, stat);
    const interval = resampled.length > 0 ? percentileInterval(resampled.map(capacity)) : { low: NaN, high: NaN };
    return { useCase: useCase.id, truth: capacity(truth), predicted: capacity(fitted.profile), ...interval };
  });
}

function gridRows(truth: Profile, fitted: FittedProfile, maxContext: number | null): GridRow[] {
  return fullGrid(truth, maxContext, fitted.fit.clientGapMs ?? 0).map((cell) => {
    const t = cellFigures(truth, cell);
    const p = cellFigures(fitted.profile, cell);
    return {
      cell: cell.id, promptTokens: cell.promptTokens,
      ttftError: relativeError(p.ttft, t.ttft), decodeError: relativeError(p.decode, t.decode),
    };
  });
}

/** One profile: measured, fitted, predicted, scored. */
export async function profileResult(letter: string, o: ProfilesOptions, run = 1): Promise<ProfileResult> {
  const truth = builtInProfile(letter);
  // The first run keeps the name earlier --keep folders hold, so --from still finds it.
  const runId = run === 1 ? `fit-${truth.letter}` : `fit-${truth.letter}-${run}`;
  o.log(`profiles ${truth.letter}: measuring the ${o.fitPlan} plan over HTTP`);
  const measureSeconds = await measureSweep(o.fitPlan, ['--profile', truth.letter, ...o.sizing], o.dir, runId,
    o.reuse);
  const out = join(o.dir, `${runId}.fitted.json`);
  o.log(`profiles ${truth.letter}: fitting (--base ${truth.letter}, the scheduler limits its start-up log states)`);
  const fitSeconds = await fitRun(o.dir, runId, fitFlags(truth, null), out);
  const fitted = readFittedProfile(out);
  const started = performance.now();
  o.log(`profiles ${truth.letter}: capacities with the fit and ${Math.min(o.intervalResamples,
    fitted.resampled.length)} of its refits, and the full grid, in virtual time`);
  const capacities = capacityRows(truth, fitted, o);
  const grid = gridRows(truth, fitted, o.maxGridContext);
  const gridContexts = [...new Set(fullGrid(truth, o.maxGridContext).map((c) => c.promptTokens))];
  return {
    letter: truth.letter, run, measureSeconds, fitSeconds, fitMedianErrorPct: fitted.fit.medianErrorPct,
    predictSeconds: (performance.now() - started) / 1000, capacities, grid, gridContexts,
    fitMaxContext: measuredMaxContext(join(o.dir, runId)) ?? planMaxContext(o.fitPlan),
  };
}

/** The part's tables: capacities per use case, the grid per profile, and the verdicts against the targets. */
export function renderProfiles(results: readonly ProfileResult[]): string {
  const lines = [
    '| profile | use case | truth | predicted | 5%-95% interval | within 1 user or 10% | interval holds truth |',
    '|---|---|---:|---:|---|---|---|',
  ];
  const name = (r: ProfileResult) => (r.run === 1 ? r.letter : `${r.letter}#${r.run}`);
  for (const r of results) for (const c of r.capacities) {
    const interval = Number.isNaN(c.low) ? 'none' : `${c.low.toFixed(1)}-${c.high.toFixed(1)}`;
    const holds = Number.isNaN(c.low) ? 'n/a' : intervalHolds(c.low, c.high, c.truth) ? 'yes' : 'NO';
    lines.push(`| ${name(r)} | ${c.useCase} | ${c.truth} | ${c.predicted} | ${interval} | ` +
      `${verdict(capacityWithin(c.predicted, c.truth))} | ${holds} |`);
  }
  lines.push('', '| profile | grid cells | TTFT within 10% | worst TTFT | decode within 10% | worst decode | ' +
    'both within 10%, cells inside the fit run\'s contexts | fit run s | fit s | fit median error | predict s |',
  '|---|---:|---:|---|---:|---|---|---:|---:|---:|---:|');
  const tol = WHAT_IF_TARGETS.cellShare;
  for (const r of results) {
    const t = withinShare(r.grid.map((g) => g.ttftError), tol);
    const d = withinShare(r.grid.map((g) => g.decodeError), tol);
    const worstCell = (key: 'ttftError' | 'decodeError', w: number) => r.grid.find((g) => g[key] === w)?.cell ?? '';
    lines.push(`| ${name(r)} | ${r.grid.length} | ${(t.share * 100).toFixed(0)}% | ${pct(t.worst)} ` +
      `${worstCell('ttftError', t.worst)} | ${(d.share * 100).toFixed(0)}% | ${pct(d.worst)} ` +
      `${worstCell('decodeError', d.worst)} | ${insideFitRange(r)} | ` +
      `${r.measureSeconds === null ? 'kept' : r.measureSeconds.toFixed(0)} | ` +
      `${r.fitSeconds.toFixed(0)} | ${r.fitMedianErrorPct}% | ${r.predictSeconds.toFixed(0)} |`);
  }
  return [...lines, '', ...spreadLines(results), profilesVerdict(results)].join('\n');
}

/**
 * With several independent fit runs of a profile: each use case's predicted capacity over the runs (least to most),
 * and in how many runs it was within the target and its interval held the truth. What one fit run cannot say.
 */
function spreadLines(results: readonly ProfileResult[]): string[] {
  const letters = [...new Set(results.map((r) => r.letter))];
  if (!letters.some((l) => results.filter((r) => r.letter === l).length > 1)) return [];
  const lines = [
    '| profile | use case | truth | predicted over the fit runs | runs within 1 user or 10% | ' +
      'runs whose interval holds |',
    '|---|---|---:|---|---:|---:|',
  ];
  for (const letter of letters) {
    const runs = results.filter((r) => r.letter === letter);
    for (const c of runs[0]!.capacities) {
      const rows = runs.map((r) => r.capacities.find((x) => x.useCase === c.useCase)!);
      const values = rows.map((x) => x.predicted);
      const within = rows.filter((x) => capacityWithin(x.predicted, x.truth)).length;
      const held = rows.filter((x) => !Number.isNaN(x.low) && intervalHolds(x.low, x.high, x.truth)).length;
      lines.push(`| ${letter} | ${c.useCase} | ${c.truth} | ${Math.min(...values)}-${Math.max(...values)} ` +
        `(${values.join(', ')}) | ${within}/${rows.length} | ${held}/${rows.length} |`);
    }
  }
  return [...lines, ''];
}

/** "k/n (<= 16384)": the grid cells within the fit run's contexts whose TTFT and decode speed are both within 10%. */
function insideFitRange(r: ProfileResult): string {
  const inside = r.grid.filter((g) => g.promptTokens <= r.fitMaxContext);
  const tol = WHAT_IF_TARGETS.cellShare;
  const ok = inside.filter((g) => Math.abs(g.ttftError) <= tol && Math.abs(g.decodeError) <= tol).length;
  return `${ok}/${inside.length} (<= ${r.fitMaxContext})`;
}

function profilesVerdict(results: readonly ProfileResult[]): string {
  const caps = results.flatMap((r) => r.capacities);
  const within = caps.filter((c) => capacityWithin(c.predicted, c.truth)).length;
  const stated = caps.filter((c) => !Number.isNaN(c.low));
  const held = stated.filter((c) => intervalHolds(c.low, c.high, c.truth)).length;
  const coverage = stated.length === 0 ? NaN : held / stated.length;
  const grid = results.flatMap((r) => r.grid);
  const tol = WHAT_IF_TARGETS.cellShare;
  const cellsOk = grid.filter((g) => Math.abs(g.ttftError) <= tol && Math.abs(g.decodeError) <= tol).length;
  const contexts = [...new Set(results.flatMap((r) => r.gridContexts))].sort((a, b) => a - b);
  return [
    `capacities within 1 user or 10% of the truth: ${within}/${caps.length} (target all) ` +
      `${verdict(within === caps.length)}`,
    `capacity intervals holding the truth: ${held}/${stated.length} = ${(coverage * 100).toFixed(0)}% ` +
      `(target >= ${WHAT_IF_TARGETS.coverage * 100}%) ${verdict(coverage >= WHAT_IF_TARGETS.coverage)}`,
    `grid cells with both median TTFT and decode speed within 10%: ${cellsOk}/${grid.length} (target all) ` +
      `${verdict(cellsOk === grid.length)}; prompts ${contexts.join(', ')} tokens x 1, 2, 4, 6 users, 1024 out`,
  ].join('\n');
}
