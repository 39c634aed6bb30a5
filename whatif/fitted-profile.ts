// A simulator profile fitted to a measured run (`npm run fit`), and what the fit knows of its own accuracy.
// Runs in Node.
//
// The file is the simulator's own custom-profile JSON (sim/profiles.ts, parseProfile) with one more field, `fit`,
// which the simulator ignores: `npm run sim -- --profile fitted.json` serves the fitted model, and
// `npm run bench -- --predict fitted.json` reads the `fit` field for its prediction intervals.

import { readFileSync } from 'node:fs';
import {
  parseProfile, type HardwareModel, type Profile, type ProfileOverrides, type SchedulerConfig,
} from '../sim/profiles';
import { UserError } from '../lib/exit-codes';
import type { ArchitectureChoice } from './fit-architecture';

/** How far one measured statistic of one cell is from what the fitted profile predicts for that cell. */
export interface FitResidual {
  /** The measured cell's id (e.g. sweep_c1024_n4). */
  readonly cell: string;
  /** The statistic compared: the median TTFT or the median time per output token, ms. */
  readonly metric: 'ttft_p50_ms' | 'tpot_p50_ms';
  readonly measured: number;
  readonly predicted: number;
  /** (predicted - measured) / measured x 100. */
  readonly errorPct: number;
  /** The cell's prompt length as the server counted it, and its users (missing in older files). */
  readonly promptTokens?: number;
  readonly concurrency?: number;
}

/** What the fit run measured, [least, most]: a prediction beyond it is extrapolated. */
export interface FitRange {
  readonly promptTokens: readonly [number, number];
  readonly concurrency: readonly [number, number];
  readonly outputTokens: readonly [number, number];
}

/** A fitted parameter: its value and the spread of its refits on resampled requests. */
export interface FittedParameter {
  /** Field of the profile's hardware (or scheduler) section. */
  readonly name: string;
  readonly value: number;
  /** 5th and 95th percentile of the parameter over the refits. */
  readonly low: number;
  readonly high: number;
  /** False when the run could not pin it down: its refits spread over more than a factor of 2, or it barely matters. */
  readonly pinned: boolean;
  /** Why not pinned, or where a fixed value came from (a server's stated config, a flag). */
  readonly note: string;
}

/** The `fit` field of a fitted profile. */
export interface FitInfo {
  /** The run folder the profile was fitted to. */
  readonly run: string;
  /** ISO time of the fit. */
  readonly fittedAt: string;
  /** Measured cells and requests the fit used. */
  readonly cells: number;
  readonly requests: number;
  readonly parameters: readonly FittedParameter[];
  /** The architecture kept: stated by the user, or chosen by the fit among candidates (missing in older files). */
  readonly architecture?: ArchitectureChoice;
  /** The prompt lengths, users and answer lengths the fit run measured (missing in older files). */
  readonly range?: FitRange;
  /**
   * The client's median time from a request's end to its user's next request, ms, over the fit run's cells (missing
   * in older files): a prediction of a cell measured by the same client sends each user's next request this late.
   */
  readonly clientGapMs?: number;
  readonly residuals: readonly FitResidual[];
  /** Median and largest |errorPct| over the residuals. */
  readonly medianErrorPct: number;
  readonly maxErrorPct: number;
  /**
   * The hardware of each refit on requests resampled with replacement within each cell: a prediction made with each
   * gives the spread that the fit's uncertainty allows (the prediction interval).
   */
  readonly resamples: readonly Partial<HardwareModel>[];
  /**
   * Beside each resample, its draw of the scheduler limits neither stated nor reached by the run
   * (whatif/scheduler-draws.ts); missing in older files: those limits then carry no spread.
   */
  readonly schedulerResamples?: readonly Partial<SchedulerConfig>[];
}

/** A fitted profile file: the profile overrides the simulator reads, and the fit's record. */
export interface FittedProfileFile extends ProfileOverrides {
  readonly fit: FitInfo;
}

export interface FittedProfile {
  readonly profile: Profile;
  readonly fit: FitInfo;
  /** The profile with each resample's hardware in place of the fitted one. */
  readonly resampled: readonly Profile[];
}

/** Reads a profile written by `npm run fit`; a profile without a `fit` field is an error naming the command. */
export function readFittedProfile(path: string): FittedProfile {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new UserError(`cannot read fitted profile ${path}: ${(e as Error).message}`);
  }
  return parseFittedProfile(raw, path);
}

export function parseFittedProfile(raw: unknown, where: string): FittedProfile {
  let profile: Profile;
  try {
    profile = parseProfile(raw, where);
  } catch (e) {
    throw new UserError((e as Error).message);
  }
  const fit = (raw as { fit?: unknown }).fit;
  if (typeof fit !== 'object' || fit === null || !Array.isArray((fit as FitInfo).resamples)) {
    throw new UserError(`${where}: no "fit" record; write one with npm run fit -- results/<run> --out ${where}`);
  }
  const info = fit as FitInfo;
  const resampled = info.resamples.map((hw, i) => {
    try {
      const hardware = { ...profile.hardware, ...hw };
      const scheduler = { ...profile.scheduler, ...info.schedulerResamples?.[i] };
      return parseProfile({ ...(raw as object), hardware, scheduler }, `${where}.fit.resamples[${i}]`);
    } catch (e) {
      throw new UserError((e as Error).message);
    }
  });
  return { profile, fit: info, resampled };
}
