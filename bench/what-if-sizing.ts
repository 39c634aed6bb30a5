// The what-if benchmark's `sizing` part: how much the fit plan sized to the full plan (--fit-for full) buys over the
// fixed one, in virtual time. Each profile's fit-plan cells "measured" on the profile itself (users 5 ms apart, each
// user's next request 10 ms after its last, each request off by a seeded 5% lognormal factor), fitted with its
// architecture stated, and the full plan's grid (the same client) predicted against the profile's own figures. No
// HTTP: what the plan alone changes. Runs in Node.

import { resolvePlan, type PlanInput } from '../lib/plan';
import { mulberry32, standardNormal } from '../lib/random';
import { promptLengthsForWindow } from '../orchestrator/context-window';
import { FIT_PLAN, FULL_PLAN } from '../orchestrator/default-plans';
import type { Profile } from '../sim/profiles';
import { fitProfile } from '../whatif/fit';
import type { MeasuredCell } from '../whatif/fit-cells';
import { fitBaseHardware } from '../whatif/fit-parameters';
import { fitPlanFor } from '../whatif/fit-plan-for';
import { predictCell } from '../whatif/virtual-cell';
import { builtInProfile } from './what-if-run';
import { cellFigures, fullGrid } from './what-if-profiles';
import { relativeError, WHAT_IF_TARGETS } from './what-if-score';

/**
 * The client's time from a request's end to its user's next request, ms, in the cells the fit sees and in the grid:
 * the fit runs of A-E over HTTP measured 9.7 to 102 ms at their medians (2026-12-06), none of them 0.
 */
const CLIENT_GAP_MS = 10;

export interface SizingRow {
  readonly letter: string;
  readonly plan: 'fixed' | 'sized';
  readonly seed: number;
  readonly cells: number;
  readonly within: number;
  readonly misses: readonly string[];
}

/** A plan's sweep cells in virtual time on the profile, prompts fitted to its window, each request made noisy. */
function noisyCells(profile: Profile, plan: PlanInput, seed: number): MeasuredCell[] {
  const random = mulberry32(seed);
  const noisy = (x: number) => x * Math.exp(0.05 * standardNormal(random));
  const cells = resolvePlan(plan, 'sweep').cells;
  const fitted = new Map(promptLengthsForWindow(cells, profile.maxModelLen).map((f) => [f.contextTokens,
    f.promptTokens]));
  return cells.map((c) => {
    const shape = {
      promptTokens: fitted.get(c.contextTokens) ?? c.contextTokens, outputTokens: c.outputTokens,
      concurrency: c.concurrency, rounds: c.rounds, userStartMs: Array.from({ length: c.concurrency }, (_, u) => 5 * u),
      requestGapMs: CLIENT_GAP_MS,
    };
    const requests = predictCell(profile, shape);
    return {
      id: c.id, ...shape, ttftMs: Float64Array.from(requests.map((r) => noisy(r.ttftMs))),
      tpotMs: Float64Array.from(requests.map((r) => noisy(r.tpotMs!))),
    };
  });
}

/** One profile, the fixed and the sized plan, each with these seeds of noise. */
export function sizingRows(letter: string, budgetMinutes: number, seeds: readonly number[]): SizingRow[] {
  const truth = builtInProfile(letter);
  const base = { ...truth, hardware: fitBaseHardware(truth.hardware, truth.hardware.experts <= 1) };
  const sized = fitPlanFor(FULL_PLAN, ['sweep', 'capacity'], budgetMinutes, truth).plan;
  const grid = fullGrid(truth, null, CLIENT_GAP_MS);
  const tol = WHAT_IF_TARGETS.cellShare;
  return (['fixed', 'sized'] as const).flatMap((name) => seeds.map((seed) => {
    const plan = name === 'fixed' ? FIT_PLAN : sized;
    const fit = fitProfile(noisyCells(truth, plan, seed), { base, resamples: 0, seed: 1, maxIterations: 25 });
    const misses = grid.flatMap((cell) => {
      const t = cellFigures(truth, cell);
      const p = cellFigures(fit.profile, cell);
      const e = [relativeError(p.ttft, t.ttft), relativeError(p.decode, t.decode)];
      return Math.abs(e[0]!) <= tol && Math.abs(e[1]!) <= tol ? []
        : [`${cell.id} TTFT ${(e[0]! * 100).toFixed(0)}% decode ${(e[1]! * 100).toFixed(0)}%`];
    });
    return { letter, plan: name, seed, cells: grid.length, within: grid.length - misses.length, misses };
  }));
}

export function renderSizing(rows: readonly SizingRow[]): string {
  const lines = ['| profile | fit plan | noise seed | full-grid cells within 10% (TTFT and decode) | misses |',
    '|---|---|---:|---:|---|'];
  for (const r of rows) lines.push(`| ${r.letter} | ${r.plan} | ${r.seed} | ${r.within}/${r.cells} | ` +
    `${r.misses.join('; ') || 'none'} |`);
  for (const plan of ['fixed', 'sized'] as const) {
    const mine = rows.filter((r) => r.plan === plan);
    lines.push(`${plan}: ${mine.reduce((s, r) => s + r.within, 0)}/${mine.reduce((s, r) => s + r.cells, 0)} cells ` +
      'within 10% over the rows above');
  }
  return lines.join('\n');
}
