// Where each predicted capacity lies against what the fit measured: inside the fit run's prompt lengths, users and
// answer lengths, or extrapolated beyond them; and whether the fit itself missed the cells where the use case's limit
// lives. What a prediction says beside each capacity (report.json, capacity.csv, the report). Runs in Node, pure.

import type { LimitMetric } from '../thresholds/use-cases';
import type { FitInfo, FitRange, FitResidual } from './fitted-profile';

/** A fit residual above this, in a cell where a use case's limit lives, is said beside its capacity. */
export const FIT_CHECK_PCT = 10;

/** A use case as predicted: the prompt and answer it sends, its limits, and the users it held. */
export interface PredictedUseCase {
  readonly useCase: string;
  readonly promptTokens: number;
  readonly outputTokens: number;
  readonly metrics: readonly LimitMetric[];
  readonly capacity: number | null;
  /** The interval's high end, when there is one: users the prediction may have to reach. */
  readonly high: number | null;
}

/** What report.json's predicted.reach holds per use case. */
export interface UseCaseReach {
  readonly useCase: string;
  /** inside: every figure within what the fit measured; extrapolated: some beyond; unknown: no fit record of it. */
  readonly range: 'inside' | 'extrapolated' | 'unknown';
  /** What lies beyond the fit run, one phrase each ("prompt 32768 tokens > the fit's longest 16384"). */
  readonly beyond: readonly string[];
  /** The largest fit residual where the limit lives, when above FIT_CHECK_PCT; null otherwise. */
  readonly fitCheck: string | null;
}

function beyondRange(u: PredictedUseCase, r: FitRange): string[] {
  const out: string[] = [];
  const [pMin, pMax] = r.promptTokens;
  if (u.promptTokens > pMax * 1.05) out.push(`prompt ${u.promptTokens} tokens > the fit's longest ${pMax}`);
  if (u.promptTokens < pMin * 0.95) out.push(`prompt ${u.promptTokens} tokens < the fit's shortest ${pMin}`);
  const users = Math.ceil(Math.max(u.capacity ?? 0, u.high ?? 0));
  if (users > r.concurrency[1]) out.push(`${users} users > the fit's most ${r.concurrency[1]}`);
  if (u.outputTokens > r.outputTokens[1]) {
    out.push(`answers of ${u.outputTokens} tokens > the fit's ${r.outputTokens[1]}`);
  }
  return out;
}

/** Which fit statistics a limit rests on: TTFT for TTFT, the time per token for decode limits, both for e2e. */
function statsOf(metrics: readonly LimitMetric[]): Set<FitResidual['metric']> {
  const out = new Set<FitResidual['metric']>();
  for (const m of metrics) {
    if (m === 'ttft' || m === 'ttfc' || m === 'e2e') out.add('ttft_p50_ms');
    if (m !== 'ttft' && m !== 'ttfc') out.add('tpot_p50_ms');
  }
  return out;
}

/**
 * The worst residual of the fit's cells nearest the use case: its prompt length nearest the use case's (on a log
 * scale), and the users around its capacity (the nearest measured at or below, and at or above).
 */
function fitCheckOf(u: PredictedUseCase, residuals: readonly FitResidual[]): string | null {
  const shaped = residuals.filter((r) => r.promptTokens !== undefined && r.concurrency !== undefined);
  if (shaped.length === 0 || u.capacity === null) return null;
  const distance = (p: number) => Math.abs(Math.log(p / u.promptTokens));
  const nearest = Math.min(...shaped.map((r) => distance(r.promptTokens!)));
  const atLength = shaped.filter((r) => distance(r.promptTokens!) === nearest);
  const users = [...new Set(atLength.map((r) => r.concurrency!))].sort((a, b) => a - b);
  const cap = Math.max(1, u.capacity);
  const below = users.filter((n) => n <= cap).at(-1);
  const above = users.find((n) => n >= cap);
  const stats = statsOf(u.metrics);
  const near = atLength.filter((r) => (r.concurrency === below || r.concurrency === above) && stats.has(r.metric));
  const worst = near.sort((a, b) => Math.abs(b.errorPct) - Math.abs(a.errorPct))[0];
  if (!worst || Math.abs(worst.errorPct) <= FIT_CHECK_PCT) return null;
  const stat = worst.metric === 'ttft_p50_ms' ? 'median TTFT' : 'median time per output token';
  const sign = worst.errorPct > 0 ? '+' : '';
  return `the fit missed the ${stat} of ${worst.cell} by ${sign}${worst.errorPct.toFixed(1)}%, where this limit ` +
    'lives: trust this capacity less than its interval says';
}

/** Each predicted use case against the fit's measured range and its residuals; no fit: every range unknown. */
export function predictionReach(useCases: readonly PredictedUseCase[], fit: FitInfo | null): UseCaseReach[] {
  return useCases.map((u) => {
    if (!fit?.range) return { useCase: u.useCase, range: 'unknown', beyond: [], fitCheck: null };
    const beyond = beyondRange(u, fit.range);
    return {
      useCase: u.useCase, range: beyond.length > 0 ? 'extrapolated' : 'inside', beyond,
      fitCheck: fitCheckOf(u, fit.residuals),
    };
  });
}
