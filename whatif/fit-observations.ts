// What a fit matches: each measured cell's median TTFT and median time per output token, on a log scale, and the
// same statistics of a profile's virtual-time prediction. Runs in Node, pure.

import { mulberry32 } from '../lib/random';
import type { Profile } from '../sim/profiles';
import type { MeasuredCell } from './fit-cells';
import { predictCell } from './virtual-cell';
import { median } from '../lib/percentile';

export type ObservedMetric = 'ttft_p50_ms' | 'tpot_p50_ms';

/** One statistic of one cell: what the fit makes the model's log prediction match. */
export interface Observation {
  readonly cell: number;
  readonly metric: ObservedMetric;
  readonly measured: number;
}

/** The medians of each cell's measured requests (TPOT only where the answers had more than one token). */
export function observe(cells: readonly MeasuredCell[]): Observation[] {
  const out: Observation[] = [];
  cells.forEach((c, i) => {
    out.push({ cell: i, metric: 'ttft_p50_ms', measured: median(c.ttftMs) });
    if (c.outputTokens > 1 && c.tpotMs.length > 0) {
      out.push({ cell: i, metric: 'tpot_p50_ms', measured: median(c.tpotMs) });
    }
  });
  return out;
}

/**
 * The same observations over requests drawn with replacement within each cell: what another run of the same plan
 * could have measured.
 */
export function resampleObservations(cells: readonly MeasuredCell[], seed: number): Observation[] {
  const random = mulberry32(seed);
  const draw = (xs: Float64Array): Float64Array => xs.map(() => xs[Math.floor(random() * xs.length)]!);
  return observe(cells.map((c) => ({ ...c, ttftMs: draw(c.ttftMs), tpotMs: draw(c.tpotMs) })));
}

/** The profile's prediction of each observation, in virtual time; each cell is predicted once for both statistics. */
export function predictObservations(
  profile: Profile, cells: readonly MeasuredCell[], observations: readonly Observation[],
): number[] {
  const byCell = new Map<number, { ttft: number; tpot: number }>();
  return observations.map((o) => {
    let p = byCell.get(o.cell);
    if (!p) {
      const requests = predictCell(profile, cells[o.cell]!);
      const tpots = requests.flatMap((r) => (r.tpotMs === null ? [] : [r.tpotMs]));
      p = { ttft: median(requests.map((r) => r.ttftMs)), tpot: tpots.length > 0 ? median(tpots) : Number.NaN };
      byCell.set(o.cell, p);
    }
    return o.metric === 'ttft_p50_ms' ? p.ttft : p.tpot;
  });
}
