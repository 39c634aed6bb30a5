// A predicted request's goodput verdict, as the measuring agent judges a measured one (agent/slo.go).
// Pure. Runs in Node.

import { compare } from '../lib/threshold-grammar';
import type { UseCaseLimit } from '../thresholds/use-cases';

/** A completed request's own figures; null where the request has none (fewer than 2 output tokens). */
export interface RequestFigures {
  readonly ttftMs: number;
  /** Time to the first content token; null when none came. */
  readonly ttfcMs: number | null;
  readonly e2eMs: number;
  readonly tpotMs: number | null;
  readonly decodeTokensPerSecond: number | null;
  readonly itlMs: readonly number[];
}

/** The figures a limit is judged on, one number per metric (null where the request has none). */
export interface LimitFigures {
  readonly ttftMs: number;
  readonly ttfcMs: number | null;
  readonly e2eMs: number;
  readonly tpotMs: number | null;
  readonly decodeTokensPerSecond: number | null;
  /** The mean of the request's inter-token latencies. */
  readonly itlMeanMs: number | null;
}

/**
 * Whether the request met every limit on its own figures. ITL is judged on the request's mean ITL; a figure the
 * request does not have is not judged, as it gives the cell's figure no sample either.
 */
export function judgeGoodput(
  r: RequestFigures, limits: readonly Pick<UseCaseLimit, 'metric' | 'operator' | 'value'>[],
): boolean {
  const itlMeanMs = r.itlMs.length === 0 ? null : r.itlMs.reduce((s, x) => s + x, 0) / r.itlMs.length;
  const figures = { ...r, itlMeanMs };
  return limits.every((l) => {
    const v = limitValue(figures, l.metric);
    return v === null || compare(v, l.operator, l.value);
  });
}

/** The per-request value of a limit's metric, as the suite measures it (lib/record.ts, agent/slo.go). */
export function limitValue(r: LimitFigures, metric: UseCaseLimit['metric']): number | null {
  switch (metric) {
    case 'ttft':
      return r.ttftMs;
    case 'ttfc':
      return r.ttfcMs;
    case 'e2e':
      return r.e2eMs;
    case 'tpot':
      return r.tpotMs;
    case 'decodeSpeed':
      return r.decodeTokensPerSecond;
    case 'itl':
      return r.itlMeanMs;
  }
}
