// Fits the simulator's performance model to a measured grid: the parameters whose virtual-time prediction of each
// cell's median TTFT and time per output token is nearest the measurement, and how far each can move. Runs in Node.
//
// Least squares on log times (ml-levenberg-marquardt), over x = ln(value / start) so every parameter stays positive
// and moves in relative steps. A weak pull towards the starting values keeps a parameter the run cannot see at a
// sensible size instead of letting it drift. The spread comes from refits on resampled requests: each is one
// Gauss-Newton step from the fit (the fit's Jacobian, computed once), on medians of requests drawn with replacement
// plus the fit's own residuals with random signs, so both the measurement's noise and the model's misfit widen it.

import { levenbergMarquardt } from 'ml-levenberg-marquardt';
import { CholeskyDecomposition, inverse, Matrix, solve } from 'ml-matrix';
import { mulberry32, standardNormal } from '../lib/random';
import type { Profile } from '../sim/profiles';
import type { MeasuredCell } from './fit-cells';
import { predictObservations, resampleObservations, observe, type Observation } from './fit-observations';
import { fittedNames, withParameters, type FitParameterName } from './fit-parameters';
import { startingValues } from './fit-start';

/** Weight of the pull towards the start, per unit of ln(value / start): a factor e costs as much as 5% in one cell. */
const PRIOR_WEIGHT = 0.05;
/** How far from its start a parameter may go: a factor e^8 (about 3000) either way. */
const BOUND = 8;
const JACOBIAN_STEP = 0.05;
/** Below this, the run's predictions barely move with the parameter: any value fits (column norm of the Jacobian). */
export const MIN_SENSITIVITY = 0.02;
/**
 * How far either way a refit draws a parameter the run cannot see (log-uniform): the refits would otherwise leave it
 * at its start, and an interval would show no doubt about a figure nothing measured. A factor 3: the spread of such
 * terms between the built-in profiles of one serving stack.
 */
export const BLIND_FACTOR = 3;

export interface FitOptions {
  /** The base profile with the architecture to keep (fit-parameters.ts fitBaseHardware) and the scheduler's limits. */
  readonly base: Profile;
  readonly resamples: number;
  readonly seed: number;
  readonly maxIterations?: number;
}

export interface FitOutcome {
  readonly names: readonly FitParameterName[];
  readonly values: readonly number[];
  readonly profile: Profile;
  readonly observations: readonly Observation[];
  readonly predicted: readonly number[];
  /** Each refit's parameter values, natural units. */
  readonly resampled: readonly (readonly number[])[];
  /** Per parameter: how much the log predictions move per unit of ln(value) (a column norm of the Jacobian). */
  readonly sensitivity: readonly number[];
  readonly iterations: number;
}

export function fitProfile(cells: readonly MeasuredCell[], options: FitOptions): FitOutcome {
  const names = fittedNames(options.base.hardware);
  const start = startingValues(cells, options.base.hardware, names);
  const observations = observe(cells);
  const valuesAt = (x: readonly number[]) => x.map((v, i) => start[i]! * Math.exp(v));
  const profileAt = (x: readonly number[]) => withParameters(options.base, names, valuesAt(x));
  const logPredictions = memoised((x: readonly number[]) =>
    predictObservations(profileAt(x), cells, observations).map((p) => Math.log(Math.max(p, 1e-6))));
  const fitted = fitLogLeastSquares(names.length, logPredictions, observations.map((o) => Math.log(o.measured)),
    options.maxIterations ?? 40);
  const x = fitted.values;
  const residuals = logPredictions(x).map((p, i) => p - Math.log(observations[i]!.measured));
  const jacobian = jacobianAt(x, logPredictions);
  const sensitivity = names.map((_, j) => Math.hypot(...jacobian.map((row) => row[j]!)));
  const blind = sensitivity.map((s) => s < MIN_SENSITIVITY);
  const refits = withBlindDraws(refitDeltas(cells, observations, residuals, jacobian, x, options), blind, options.seed);
  return {
    names, values: valuesAt(x), profile: profileAt(x), observations,
    predicted: logPredictions(x).map(Math.exp),
    resampled: refits.map(valuesAt),
    sensitivity,
    iterations: fitted.iterations,
  };
}

/**
 * The least squares every fit here runs: k parameters as ln offsets from their starts, log predictions against log
 * targets, each offset pulled weakly towards 0. Shared so a fit to other figures than a sweep's cells (the published
 * reports' points, bench/what-if-published.ts) moves its parameters the same way.
 */
export function fitLogLeastSquares(
  k: number, logPredictions: (x: readonly number[]) => number[], logTargets: readonly number[], maxIterations: number,
): { values: number[]; iterations: number } {
  const m = logTargets.length;
  const model = (x: number[]) => (i: number) => (i < m ? logPredictions(x)[i]! : PRIOR_WEIGHT * x[i - m]!);
  const result = levenbergMarquardt(
    { x: [...Array(m + k).keys()], y: [...logTargets, ...Array<number>(k).fill(0)] },
    model,
    {
      initialValues: Array<number>(k).fill(0), damping: 1e-2,
      gradientDifference: JACOBIAN_STEP, centralDifference: true,
      minValues: Array<number>(k).fill(-BOUND), maxValues: Array<number>(k).fill(BOUND),
      maxIterations, errorTolerance: 1e-6,
    },
  );
  return { values: result.parameterValues, iterations: result.iterations };
}

/** Central-difference Jacobian of the log predictions at x: rows observations, columns parameters. */
export function jacobianAt(x: readonly number[], f: (x: readonly number[]) => number[]): number[][] {
  const columns = x.map((_, j) => {
    const up = f(x.map((v, i) => (i === j ? v + JACOBIAN_STEP : v)));
    const down = f(x.map((v, i) => (i === j ? v - JACOBIAN_STEP : v)));
    return up.map((u, r) => (u - down[r]!) / (2 * JACOBIAN_STEP));
  });
  return columns[0]!.map((_, r) => columns.map((c) => c[r]!));
}

/**
 * The refits' parameters (ln offsets from the start): for each resample, the Gauss-Newton step that moves the fit to
 * the resampled medians, its residuals given random signs added, with the same pull towards the start.
 */
function refitDeltas(
  cells: readonly MeasuredCell[], observations: readonly Observation[], residuals: readonly number[],
  jacobian: readonly number[][], x: readonly number[], options: FitOptions,
): number[][] {
  const j = new Matrix(jacobian.map((r) => [...r]));
  const jt = j.transpose();
  const normal = jt.mmul(j).add(Matrix.eye(x.length).mul(PRIOR_WEIGHT ** 2));
  const random = mulberry32(options.seed ^ 0x5eed);
  const measuredLog = observations.map((o) => Math.log(o.measured));
  const out: number[][] = [];
  for (let b = 0; b < options.resamples; b++) {
    const resampled = resampleObservations(cells, options.seed + b + 1);
    // Residual of the fit against this resample's targets: the fit's own, minus how far the target moved.
    const r = residuals.map((res, i) => {
      const shift = Math.log(resampled[i]!.measured) - measuredLog[i]!;
      const misfit = (random() < 0.5 ? -1 : 1) * res;
      return res - shift - misfit;
    });
    const gradient = jt.mmul(Matrix.columnVector(r)).add(Matrix.columnVector(x.map((v) => v * PRIOR_WEIGHT ** 2)));
    const step = solve(normal, gradient).to1DArray();
    out.push(x.map((v, i) => Math.min(BOUND, Math.max(-BOUND, v - step[i]!))));
  }
  return out;
}

/**
 * Parameter sets (ln offsets) drawn around a fit that has no requests to resample, only figures (a published report's
 * points): from the fit's curvature, a normal with covariance s^2 (J'J + w^2 I)^-1, s the fit's root-mean-square log
 * residual (at least `floor`), w the pull towards the start. A parameter the figures cannot tell from another (one
 * prompt length: prefill's compute and attention) spreads as far as the pull allows: what so few figures leave open.
 */
export function curvatureDraws(
  x: readonly number[], jacobian: readonly number[][], residuals: readonly number[], n: number, seed: number,
  floor = 0.05,
): number[][] {
  const j = new Matrix(jacobian.map((r) => [...r]));
  const s = Math.max(floor, Math.sqrt(residuals.reduce((t, r) => t + r * r, 0) / Math.max(1, residuals.length)));
  const precision = j.transpose().mmul(j).add(Matrix.eye(x.length).mul(PRIOR_WEIGHT ** 2));
  const covariance = inverse(precision).mul(s * s);
  // Symmetric in exact arithmetic; the inverse leaves rounding that Cholesky refuses.
  const chol = new CholeskyDecomposition(covariance.add(covariance.transpose()).mul(0.5));
  const lower = chol.lowerTriangularMatrix;
  const random = mulberry32(seed ^ 0xc0de);
  return Array.from({ length: n }, () => {
    const z = Matrix.columnVector(x.map(() => standardNormal(random)));
    const step = lower.mmul(z).to1DArray();
    return x.map((v, i) => Math.min(BOUND, Math.max(-BOUND, v + step[i]!)));
  });
}

/** Each refit with every blind parameter drawn log-uniformly within BLIND_FACTOR of its fitted value. */
function withBlindDraws(refits: number[][], blind: readonly boolean[], seed: number): number[][] {
  if (!blind.some(Boolean)) return refits;
  const random = mulberry32(seed ^ 0xb11d);
  const width = Math.log(BLIND_FACTOR);
  return refits.map((x) => x.map((v, i) => (blind[i] ? v + (2 * random() - 1) * width : v)));
}

/** f remembered for the last arguments it was called with by value: the optimiser asks the same point many times. */
export function memoised(f: (x: readonly number[]) => number[]): (x: readonly number[]) => number[] {
  const cache = new Map<string, number[]>();
  return (x) => {
    const key = x.join(',');
    let v = cache.get(key);
    if (!v) {
      if (cache.size > 256) cache.clear();
      v = f(x);
      cache.set(key, v);
    }
    return v;
  };
}
