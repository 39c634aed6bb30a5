// The what-if benchmark's `published` part: each seed report's figures held out. A profile is fitted to the report's
// single-request points and one load point only, by the least squares `npm run fit` runs, and predicts the report's
// other load points; the errors are the honest figure of what a fit to so little predicts. Runs in Node.
//
// The published points are not sweep cells (a figure per point, not requests; throughput and queue depths besides
// TTFT and time per token), so each is predicted the way bench/sim-fit.ts holds the hand-fitted profiles to them:
// one virtual burst of the point's N requests. The architecture and scheduler limits are the report's profile's, as
// a user states them; where the points cannot tell a parameter (one prompt length), it starts, as in `npm run fit`,
// from the base profile's value, which was fitted by hand to every point: say so beside the figure.

import { percentile, sortValues } from '../analysis/stats';
import type { Profile } from '../sim/profiles';
import { fitLogLeastSquares, memoised } from '../whatif/fit';
import type { MeasuredCell } from '../whatif/fit-cells';
import { fitBaseHardware, fittedNames, withParameters } from '../whatif/fit-parameters';
import { startingValues } from '../whatif/fit-start';
import { maxSafeQueue, POINTS, predictFromBatch, virtualBurst, type Point, type Target } from './fidelity-points';
import { builtInProfile } from './what-if-run';
import { pct, relativeError } from './what-if-score';

/** The figures a fit or a prediction is held to: neither power (its own model) nor burst-bracketed TTFTs. */
function scored(t: Target): boolean {
  return t.bracketOnly !== true && t.kind !== 'power_w' && t.kind !== 'mean_power_w';
}

/** What the model predicts for one figure of a point. */
function predictTarget(profile: Profile, p: Point, t: Target): number {
  if (t.kind === 'max_queue') return maxSafeQueue(profile, p, p.ttftLimitS ?? 3);
  return predictFromBatch(t.kind, virtualBurst(profile, p));
}

/**
 * The points a fit sees: every single-request point and the report's first load point with a throughput or decode
 * figure (what one measured load step gives); the other load points are held out.
 */
export function splitPoints(points: readonly Point[]): { fit: Point[]; held: Point[] } {
  const speed = (t: Target) => scored(t) && ['decode_tps', 'system_tps', 'users_x_decode_tps'].includes(t.kind);
  const load = points.find((p) => p.cls === 'load' && p.targets.some(speed));
  const fit = points.filter((p) => p.cls === 'single' || p === load);
  return { fit, held: points.filter((p) => !fit.includes(p) && p.targets.some(scored)) };
}

/** The single points with a TTFT and a decode speed, as one-request cells: what the fit's starting values read. */
function startCells(points: readonly Point[]): MeasuredCell[] {
  return points.flatMap((p) => {
    const ttft = p.targets.find((t) => t.kind === 'ttft_s');
    const dec = p.targets.find((t) => t.kind === 'decode_tps');
    if (p.cls !== 'single' || !ttft || !dec) return [];
    return [{
      id: p.label, promptTokens: p.context, outputTokens: p.output, concurrency: 1, rounds: 1,
      ttftMs: Float64Array.of(ttft.published * 1000), tpotMs: Float64Array.of(1000 / dec.published),
    }];
  });
}

/** The profile fitted to the points' scored figures, from the base profile's architecture and scheduler. */
export function fitToPoints(truth: Profile, points: readonly Point[]): Profile {
  const base: Profile = { ...truth, hardware: fitBaseHardware(truth.hardware, truth.hardware.experts <= 1) };
  const names = fittedNames(base.hardware);
  const start = startingValues(startCells(points), base.hardware, names);
  const figures = points.flatMap((p) => p.targets.filter(scored).map((t) => ({ p, t })));
  const profileAt = (x: readonly number[]) => withParameters(base, names, x.map((v, i) => start[i]! * Math.exp(v)));
  const logPredictions = memoised((x: readonly number[]) => {
    const profile = profileAt(x);
    const bursts = new Map<Point, ReturnType<typeof virtualBurst>>();
    return figures.map(({ p, t }) => {
      if (!bursts.has(p)) bursts.set(p, virtualBurst(profile, p));
      return Math.log(Math.max(1e-6, predictFromBatch(t.kind, bursts.get(p)!)));
    });
  });
  const targets = figures.map(({ t }) => Math.log(t.published));
  const { values } = fitLogLeastSquares(names.length, logPredictions, targets, 40);
  return profileAt(values);
}

export interface HeldOutRow {
  readonly point: string;
  readonly kind: string;
  readonly published: number;
  readonly predicted: number;
  /** The hand-fitted profile's prediction (fitted to every point, these included): for scale. */
  readonly handFitted: number;
}

export interface PublishedResult {
  readonly letter: string;
  readonly fitFigures: number;
  readonly rows: readonly HeldOutRow[];
  readonly seconds: number;
}

export function publishedResult(letter: string): PublishedResult {
  const started = performance.now();
  const truth = builtInProfile(letter);
  const { fit, held } = splitPoints(POINTS[letter] ?? []);
  const fitted = fitToPoints(truth, fit);
  const rows = held.flatMap((p) => p.targets.filter(scored).map((t) => ({
    point: p.label, kind: t.kind, published: t.published,
    predicted: predictTarget(fitted, p, t), handFitted: predictTarget(truth, p, t),
  })));
  const fitFigures = fit.reduce((n, p) => n + p.targets.filter(scored).length, 0);
  return { letter, fitFigures, rows, seconds: (performance.now() - started) / 1000 };
}

function errorSummary(rows: readonly HeldOutRow[], key: 'predicted' | 'handFitted'): string {
  if (rows.length === 0) return 'none held out';
  const errs = rows.map((r) => relativeError(r[key], r.published));
  const abs = sortValues(errs.map(Math.abs));
  const worst = errs.reduce((w, e) => (Math.abs(e) > Math.abs(w) ? e : w), 0);
  const at = rows[errs.indexOf(worst)]!;
  return `${(percentile(abs, 0.5) * 100).toFixed(1)}% / ${pct(worst)} (${at.point} ${at.kind})`;
}

export function renderPublished(results: readonly PublishedResult[]): string {
  const lines = [
    '| report | figures fitted | held-out figures | fitted: median abs error / worst | ' +
      'hand-fitted profile (saw them): median / worst | s |',
    '|---|---:|---:|---|---|---:|',
  ];
  for (const r of results) {
    lines.push(`| ${r.letter} | ${r.fitFigures} | ${r.rows.length} | ${errorSummary(r.rows, 'predicted')} | ` +
      `${errorSummary(r.rows, 'handFitted')} | ${r.seconds.toFixed(0)} |`);
  }
  lines.push('', 'held out, per figure: published, predicted by the fit to singles + one load point, error', '');
  for (const r of results) for (const row of r.rows) {
    lines.push(`  ${row.point} ${row.kind}: ${fmt(row.published)} -> ${fmt(row.predicted)} ` +
      `(${pct(relativeError(row.predicted, row.published))})`);
  }
  return lines.join('\n');
}

function fmt(v: number): string {
  return Math.abs(v) < 10 ? v.toFixed(3) : v.toFixed(1);
}
