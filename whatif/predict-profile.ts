// The profile a prediction runs: a built-in one (name or letter), a profile JSON, or a fitted profile with the
// refits its prediction interval comes from. Runs in Node.

import { existsSync, readFileSync } from 'node:fs';
import { EXIT, UserError } from '../lib/exit-codes';
import { findProfile, parseProfile, PROFILES, type Profile } from '../sim/profiles';
import { parseFittedProfile, type FitInfo } from './fitted-profile';

export interface PredictProfile {
  readonly profile: Profile;
  /** Where it came from: a built-in profile, a plain profile file, or a fitted one (`npm run fit`). */
  readonly source: 'built-in' | 'file' | 'fitted';
  /** The fitted profile's record; null for the others, which have no interval. */
  readonly fit: FitInfo | null;
  /** The fitted profile with each refit's hardware: the prediction made with each gives the interval. */
  readonly resampled: readonly Profile[];
}

/** Reads `--predict <profile>`: a built-in name or letter first, else a JSON file (fitted with a `fit` record). */
export function loadPredictProfile(spec: string): PredictProfile {
  const builtIn = findProfile(spec);
  if (builtIn) return { profile: builtIn, source: 'built-in', fit: null, resampled: [] };
  if (!existsSync(spec)) {
    const names = PROFILES.map((p) => `${p.letter} ${p.name}`).join(', ');
    throw new UserError(`--predict ${spec}: neither a built-in profile (${names}) nor a profile file`, EXIT.usage);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(spec, 'utf8'));
  } catch (e) {
    throw new UserError(`--predict ${spec}: not a profile JSON (${(e as Error).name}: it does not parse as JSON)`);
  }
  if (typeof raw === 'object' && raw !== null && 'fit' in raw) {
    const fitted = parseFittedProfile(raw, spec);
    return { profile: fitted.profile, source: 'fitted', fit: fitted.fit, resampled: fitted.resampled };
  }
  try {
    return { profile: parseProfile(raw, spec), source: 'file', fit: null, resampled: [] };
  } catch (e) {
    throw new UserError((e as Error).message);
  }
}
