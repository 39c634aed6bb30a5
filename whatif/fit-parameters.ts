// Which of the performance model's parameters a fit adjusts, and the profile they make. Runs in Node, pure.
//
// The model's step time (docs/design/simulator-model.md) has more parameters than timings can tell apart: bandwidth and
// weight bytes only appear as their ratio, and a hybrid model's per-sequence state read is a per-sequence cost
// exactly like tau. So the fit keeps the architecture (experts, top-k, routing overlap, tensor parallelism, the
// bandwidth figure) from a base and adjusts one parameter per distinct effect.

import type { HardwareModel, Profile } from '../sim/profiles';

export const FIT_PARAMETER_NAMES = [
  'requestOverheadMs', 't0Ms', 'denseWeightBytes', 'expertWeightBytes', 'lambdaUsPerToken', 'alphaSecondsPerPair',
  'kvBytesPerToken', 'tauMs',
] as const;
export type FitParameterName = (typeof FIT_PARAMETER_NAMES)[number];

/** What each parameter stands for, for the fit's table. */
export const FIT_PARAMETER_MEANING: Readonly<Record<FitParameterName, string>> = {
  requestOverheadMs: 'per-request overhead before scheduling (HTTP, tokenizer), ms',
  t0Ms: 'fixed cost of every step, ms',
  denseWeightBytes: 'weights read every step (effective bytes at the base bandwidth)',
  expertWeightBytes: 'expert weights, read as the batch covers experts (effective bytes)',
  lambdaUsPerToken: 'linear-layer compute per token of a step, us',
  alphaSecondsPerPair: 'prefill attention per query-key pair, s',
  kvBytesPerToken: 'KV read per token of context per step (effective bytes)',
  tauMs: 'cost of each sequence in a step (sampling, recurrent state), ms',
};

/** The parameters a base architecture lets the fit adjust: expert weights only for a mixture of experts. */
export function fittedNames(base: HardwareModel): FitParameterName[] {
  return FIT_PARAMETER_NAMES.filter((n) => n !== 'expertWeightBytes' || base.experts > 1);
}

/**
 * The base architecture a fit starts from: the base profile with its per-sequence state folded into tau (the two are
 * the same per-sequence term of the step time) and, for a dense base, no experts at all.
 */
export function fitBaseHardware(base: HardwareModel, dense: boolean): HardwareModel {
  const moe = dense ? { experts: 1, topK: 1, rho: 0, expertWeightBytes: 0 } : {};
  return { ...base, ...moe, stateBytesPerSeq: 0 };
}

/** The profile with these parameter values (natural units) in its hardware. */
export function withParameters(
  profile: Profile, names: readonly FitParameterName[], values: readonly number[],
): Profile {
  const hardware: Record<string, number> = { ...profile.hardware };
  names.forEach((n, i) => {
    hardware[n] = values[i]!;
  });
  return { ...profile, hardware: hardware as unknown as HardwareModel };
}

/** The hardware fields a fit changed, as the `hardware` section of a profile JSON. */
export function hardwareOverrides(
  names: readonly FitParameterName[], values: readonly number[],
): Partial<Record<FitParameterName, number>> {
  return Object.fromEntries(names.map((n, i) => [n, roundSignificant(values[i]!, 4)]));
}

function roundSignificant(x: number, digits: number): number {
  return x === 0 ? 0 : Number(x.toPrecision(digits));
}
