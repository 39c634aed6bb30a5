// Step-time noise of the simulator (opt-in): per-step jitter and occasional stalls, drawn from a seeded PRNG.
// Runs in Node.
//
// The performance model gives every step one exact duration, so two runs of the same load are identical,
// where two runs on a GPU are not. With noise on, each step's modelled duration is multiplied by a jitter
// factor, and now and then a stall (a host hiccup: a garbage collection, a late scheduler) adds the time of
// several decode steps. One seed gives one sequence of draws, so a noisy run is reproducible by its seed.
// Where the default figures come from: sim/README.md, "Noise".

import { mulberry32, standardNormal } from '../lib/random';

/** How much a step's duration varies (docs in sim/README.md, "Noise"). */
export interface NoiseModel {
  /** Standard deviation of the per-step jitter factor, percent of the step's modelled time (mean 0, cut at +-3 SD). */
  readonly stepJitterPercent: number;
  /** Chance that a step is followed by a stall, per step (0..1). */
  readonly stallProbability: number;
  /** Length of a stall, in decode steps of the batch that was running (a decode-only step of the same sequences). */
  readonly stallSteps: number;
}

/**
 * Defaults that look like a GPU served by vLLM or SGLang: 3% step-time jitter, a stall of 3 decode steps after
 * 0.5% of steps. Mean step time = modelled time x (1 + 0.005 x 3) in decode: 1.5% slower than without noise.
 */
export const DEFAULT_NOISE: NoiseModel = { stepJitterPercent: 3, stallProbability: 0.005, stallSteps: 3 };

/** The noise a simulator runs with: its model and the seed of its draws. */
export interface NoiseSettings {
  readonly model: NoiseModel;
  /** 32-bit unsigned seed of the PRNG. */
  readonly seed: number;
}

/** Largest jitter SD accepted, percent: the factor 1 + z*SD, z within +-3 SD of a truncated normal, stays above 0. */
export const MAX_JITTER_PERCENT = 30;
/** Jitter draws are cut at this many standard deviations (redrawn beyond), which keeps the factor's mean exactly 1. */
const CUT_SD = 3;
/**
 * SD of a standard normal cut at +-3 (sqrt(1 - 6 phi(3) / (2 Phi(3) - 1))): z is divided by it so the SD is as stated.
 */
const CUT_NORMAL_SD = 0.986_578;

/** A fresh random seed, for a run whose seed was not given (print it, so the run can be repeated). */
export function randomNoiseSeed(): number {
  return Math.floor(Math.random() * 2 ** 32);
}

/** One step's noisy duration: the modelled time times the jitter factor, plus the stall (0 when none), ms. */
export interface NoisyStep {
  readonly totalMs: number;
  readonly stallMs: number;
}

/** The stream of draws of one batcher: call `step` once per step, in order. */
export class StepNoise {
  private readonly next: () => number;
  private readonly sd: number;

  constructor(readonly settings: NoiseSettings) {
    checkNoiseModel(settings.model, 'noise');
    this.next = mulberry32(settings.seed >>> 0);
    this.sd = settings.model.stepJitterPercent / 100;
  }

  /**
   * A step modelled at `nominalMs`: duration = nominalMs x (1 + SD x z) with z a standard normal cut at +-3 (so mean
   * nominalMs and SD as stated), plus, with probability stallProbability, stallSteps x `decodeStepMs()` (the
   * batch's decode-only step time, computed only when a stall is drawn).
   */
  step(nominalMs: number, decodeStepMs: () => number): NoisyStep {
    const { stallProbability, stallSteps } = this.settings.model;
    const factor = this.sd > 0 ? 1 + this.sd * (this.cutNormal() / CUT_NORMAL_SD) : 1;
    const stallMs = stallProbability > 0 && this.next() < stallProbability ? stallSteps * decodeStepMs() : 0;
    return { totalMs: nominalMs * factor + stallMs, stallMs };
  }

  /** A standard normal (Box-Muller) redrawn until within +-3: symmetric, so its mean stays 0. */
  private cutNormal(): number {
    for (;;) {
      const z = standardNormal(this.next);
      if (Math.abs(z) <= CUT_SD) return z;
    }
  }
}

/** Throws, naming the field, when a noise model cannot be run. */
export function checkNoiseModel(m: NoiseModel, where: string): void {
  const bad = (field: string, what: string): never => {
    throw new Error(`${where}.${field}: must be ${what}`);
  };
  const { stepJitterPercent: j, stallProbability: p, stallSteps: s } = m;
  if (!Number.isFinite(j) || j < 0 || j > MAX_JITTER_PERCENT) {
    bad('stepJitterPercent', `a number within 0..${MAX_JITTER_PERCENT}`);
  }
  if (!Number.isFinite(p) || p < 0 || p > 1) bad('stallProbability', 'a number within 0..1');
  if (!Number.isFinite(s) || s < 0) bad('stallSteps', 'a number >= 0');
}

/** One line for logs: `jitter 3%, stall of 3 steps after 0.5% of steps, seed 12345`. */
export function describeNoise(n: NoiseSettings): string {
  const m = n.model;
  return `jitter ${m.stepJitterPercent}%, stall of ${m.stallSteps} steps ` +
    `after ${m.stallProbability * 100}% of steps, seed ${n.seed}`;
}

/** How a caller asks for noise: on with the profile's model (or the defaults), on with fields overridden, or off. */
export type NoiseRequest = boolean | Partial<NoiseModel>;

/**
 * The noise a run gets: on when `request` is true or an object, when a seed is given, or when the profile has a
 * noise model (and `request` is not false); its model is the profile's, else DEFAULT_NOISE, with `request`'s
 * fields over it; its seed `seed`, else a random one. Null = off.
 */
export function resolveNoise(
  profileNoise: NoiseModel | null, request: NoiseRequest | undefined, seed: number | undefined,
): NoiseSettings | null {
  if (request === false) return null;
  if (request === undefined && seed === undefined && profileNoise === null) return null;
  const model: NoiseModel = { ...(profileNoise ?? DEFAULT_NOISE), ...(typeof request === 'object' ? request : {}) };
  checkNoiseModel(model, 'noise');
  if (seed !== undefined && !(Number.isInteger(seed) && seed >= 0 && seed < 2 ** 32))
    throw new Error(`noise seed: must be an integer within 0..${2 ** 32 - 1}, got ${seed}`);
  return { model, seed: seed ?? randomNoiseSeed() };
}
