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
import { curvatureDraws, fitLogLeastSquares, jacobianAt, memoised } from '../whatif/fit';
import type { MeasuredCell } from '../whatif/fit-cells';
import { fitBaseHardware, fittedNames, withParameters } from '../whatif/fit-parameters';
import { startingValues } from '../whatif/fit-start';
import { maxSafeQueue, POINTS, predictFromBatch, virtualBurst, type Point, type Target } from './fidelity-points';
import { builtInProfile } from './what-if-run';
import { pct, relativeError, verdict } from './what-if-score';

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

/** Parameter sets drawn around each fit (whatif/fit.ts curvatureDraws): each held-out figure's interval. */
export const PUBLISHED_DRAWS = 40;

export interface PointsFit {
  readonly profile: Profile;
  /** Profiles drawn around the fit from its curvature: what the figures leave open. */
  readonly draws: readonly Profile[];
}

/** The profile fitted to the points' scored figures, from the base profile's architecture and scheduler. */
export function fitToPoints(truth: Profile, points: readonly Point[], draws = PUBLISHED_DRAWS): PointsFit {
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
  const residuals = logPredictions(values).map((v, i) => v - targets[i]!);
  const drawn = draws === 0 ? [] : curvatureDraws(values, jacobianAt(values, logPredictions), residuals, draws, 1);
  return { profile: profileAt(values), draws: drawn.map(profileAt) };
}

export interface HeldOutRow {
  readonly point: string;
  readonly kind: string;
  readonly published: number;
  readonly predicted: number;
  /** The hand-fitted profile's prediction (fitted to every point, these included): for scale. */
  readonly handFitted: number;
  /** 5th and 95th percentile of the predictions of the profiles drawn around the fit (NaN without draws). */
  readonly low: number;
  readonly high: number;
}

export interface PublishedResult {
  readonly letter: string;
  /** The prompt lengths of the points the fit saw: one cannot tell prefill's compute from its attention. */
  readonly fitLengths: number;
  readonly fitFigures: number;
  readonly rows: readonly HeldOutRow[];
  readonly seconds: number;
}

export function publishedResult(letter: string): PublishedResult {
  const started = performance.now();
  const truth = builtInProfile(letter);
  const { fit, held } = splitPoints(POINTS[letter] ?? []);
  const fitted = fitToPoints(truth, fit);
  const rows = held.flatMap((p) => p.targets.filter(scored).map((t) => {
    const spread = sortValues(fitted.draws.map((d) => predictTarget(d, p, t)));
    return {
      point: p.label, kind: t.kind, published: t.published,
      predicted: predictTarget(fitted.profile, p, t), handFitted: predictTarget(truth, p, t),
      low: spread.length > 0 ? percentile(spread, 0.05) : NaN, high: spread.length > 0 ? percentile(spread, 0.95) : NaN,
    };
  }));
  const fitFigures = fit.reduce((n, p) => n + p.targets.filter(scored).length, 0);
  const fitLengths = new Set(fit.map((p) => p.context)).size;
  return { letter, fitLengths, fitFigures, rows, seconds: (performance.now() - started) / 1000 };
}

function errorSummary(rows: readonly HeldOutRow[], key: 'predicted' | 'handFitted'): string {
  if (rows.length === 0) return 'none held out';
  const errs = rows.map((r) => relativeError(r[key], r.published));
  const abs = sortValues(errs.map(Math.abs));
  const worst = errs.reduce((w, e) => (Math.abs(e) > Math.abs(w) ? e : w), 0);
  const at = rows[errs.indexOf(worst)]!;
  return `${(percentile(abs, 0.5) * 100).toFixed(1)}% / ${pct(worst)} (${at.point} ${at.kind})`;
}

/** "k/n, widths x1.3-x4.0": held-out figures inside their 5-95% interval, and the intervals' high/low ratios. */
function intervalSummary(rows: readonly HeldOutRow[]): string {
  const stated = rows.filter((r) => !Number.isNaN(r.low));
  if (stated.length === 0) return 'none';
  const inside = stated.filter((r) => r.published >= r.low && r.published <= r.high).length;
  const widths = sortValues(stated.map((r) => r.high / Math.max(1e-9, r.low)));
  return `${inside}/${stated.length}; width x${percentile(widths, 0.5).toFixed(2)} median, ` +
    `x${widths[widths.length - 1]!.toFixed(2)} widest`;
}

/** The part's table: per report, the held-out errors (target for two prompt lengths or more) and intervals. */
export function renderPublished(results: readonly PublishedResult[]): string {
  const lines = [
    '| report | prompt lengths fitted | figures fitted | held-out figures | fitted: median abs error / worst | ' +
      'held out inside the 5-95% interval; its width (high/low) | ' +
      'hand-fitted profile (saw them): median / worst | s |',
    '|---|---:|---:|---:|---|---|---|---:|',
  ];
  for (const r of results) {
    lines.push(`| ${r.letter} | ${r.fitLengths} | ${r.fitFigures} | ${r.rows.length} | ` +
      `${errorSummary(r.rows, 'predicted')} | ${intervalSummary(r.rows)} | ` +
      `${errorSummary(r.rows, 'handFitted')} | ${r.seconds.toFixed(0)} |`);
  }
  lines.push('', `target: median error under ${PUBLISHED_TARGET * 100}% where the fit saw two prompt lengths or ` +
    'more; with one, the interval says how little it tells', '', publishedVerdict(results), '',
  'held out, per figure: published, predicted by the fit to singles + one load point, error, 5-95% interval', '');
  for (const r of results) for (const row of r.rows) {
    const interval = Number.isNaN(row.low) ? '' : ` [${fmt(row.low)}-${fmt(row.high)}]`;
    lines.push(`  ${row.point} ${row.kind}: ${fmt(row.published)} -> ${fmt(row.predicted)} ` +
      `(${pct(relativeError(row.predicted, row.published))})${interval}`);
  }
  return lines.join('\n');
}

/** Median held-out error under this where the fit saw two prompt lengths or more (issue 44). */
const PUBLISHED_TARGET = 0.15;

function publishedVerdict(results: readonly PublishedResult[]): string {
  return results.filter((r) => r.rows.length > 0).map((r) => {
    const abs = sortValues(r.rows.map((x) => Math.abs(relativeError(x.predicted, x.published))));
    const median = percentile(abs, 0.5);
    if (r.fitLengths >= 2) {
      return `${r.letter}: median error ${(median * 100).toFixed(1)}% ${verdict(median < PUBLISHED_TARGET)}`;
    }
    return `${r.letter}: one prompt length fitted; intervals ${intervalSummary(r.rows)}`;
  }).join('\n');
}

function fmt(v: number): string {
  return Math.abs(v) < 10 ? v.toFixed(3) : v.toFixed(1);
}
