// Which architecture a fit keeps when the user did not state one: each candidate shape fitted, the one that misses
// the measured cells least kept. Runs in Node, pure.
//
// Why: the shape of a step's growth with its batch is the architecture's, not a parameter the fit moves. A dense
// model's weights cost every step the same and each sequence adds a constant (tau); a mixture of experts reads more
// experts as the batch covers them, steeply up to a few tens of tokens and then flat. Fitted as dense, a mixture of
// experts' grid is missed both ways (time per token 20% short at 16 users, 30% over at 64 on profile A), and a use
// case whose capacity lies in between (code completion, about 17 users) was predicted at 27. The grid shows the
// shape, so the fit tries each and says which it kept.

import { PROFILES, type HardwareModel, type Profile } from '../sim/profiles';
import type { MeasuredCell } from './fit-cells';
import { fitProfile, type FitOptions, type FitOutcome } from './fit';
import { fitBaseHardware } from './fit-parameters';

/** One architecture a fit may keep: a dense model, or a built-in profile's mixture-of-experts shape. */
export interface ArchitectureCandidate {
  /** "dense", or "moe-128x8" (experts x top-k, with the routing overlap and GPUs when not 0 and 1). */
  readonly label: string;
  readonly hardware: HardwareModel;
}

/** What the fit record says of the architecture: stated by the user, or chosen by the fit among candidates. */
export interface ArchitectureChoice {
  readonly label: string;
  readonly how: 'stated' | 'chosen';
  /** Each candidate's root-mean-square log residual over the cells (chosen only), best first. */
  readonly candidates: readonly { readonly label: string; readonly rmsLogError: number }[];
}

function labelOf(hw: HardwareModel): string {
  if (hw.experts <= 1) return 'dense';
  const rho = hw.rho > 0 ? `, overlap ${hw.rho}` : '';
  const tp = hw.tensorParallel > 1 ? `, ${hw.tensorParallel} GPUs` : '';
  return `moe-${hw.experts}x${hw.topK}${rho}${tp}`;
}

/**
 * Dense (on the base's hardware), and each distinct mixture-of-experts shape of the built-in profiles, on that
 * profile's hardware (its bandwidth figure, and its GPUs' link when it has two).
 */
export function architectureCandidates(base: Profile): ArchitectureCandidate[] {
  const dense = fitBaseHardware(base.hardware, true);
  const out: ArchitectureCandidate[] = [{ label: 'dense', hardware: dense }];
  for (const p of PROFILES) {
    if (p.hardware.experts <= 1) continue;
    const hardware = fitBaseHardware(p.hardware, false);
    const label = labelOf(hardware);
    if (!out.some((c) => c.label === label)) out.push({ label, hardware });
  }
  return out;
}

/** Root mean square of the fit's log residuals: the candidates' common yardstick. */
export function rmsLogError(outcome: FitOutcome): number {
  const r = outcome.observations.map((o, i) => Math.log(outcome.predicted[i]!) - Math.log(o.measured));
  return Math.sqrt(r.reduce((s, x) => s + x * x, 0) / Math.max(1, r.length));
}

/**
 * Each candidate fitted with the base's scheduler; the outcome of the one with the smallest rms log error, and the
 * record of the choice. `log` hears each candidate's error as it is fitted.
 */
export function fitChoosingArchitecture(
  cells: readonly MeasuredCell[], options: FitOptions, candidates: readonly ArchitectureCandidate[],
  log: (line: string) => void = () => {},
): { outcome: FitOutcome; choice: ArchitectureChoice } {
  const fitted = candidates.map((c) => {
    const outcome = fitProfile(cells, { ...options, base: { ...options.base, hardware: c.hardware } });
    const rms = rmsLogError(outcome);
    log(`fit: ${c.label}: rms error ${(rms * 100).toFixed(1)}% (log)`);
    return { label: c.label, outcome, rms };
  });
  const ranked = [...fitted].sort((a, b) => a.rms - b.rms);
  const best = ranked[0]!;
  return {
    outcome: best.outcome,
    choice: {
      label: best.label, how: 'chosen',
      candidates: ranked.map((f) => ({ label: f.label, rmsLogError: Number(f.rms.toFixed(4)) })),
    },
  };
}

/** The record of an architecture the user stated (--base, --experts/--top-k, --dense). */
export function statedArchitecture(hw: HardwareModel): ArchitectureChoice {
  return { label: labelOf(hw), how: 'stated', candidates: [] };
}
