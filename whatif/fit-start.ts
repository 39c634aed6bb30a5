// Where a fit starts: parameters read off the single-request cells by least squares on the model's own shape, so the
// search begins near the answer and an effect the run cannot see stays at a value of the right size.
// Runs in Node, pure.
//
// One user's time per output token at prompt length P is a step's fixed cost plus its KV read:
// tpot = (t0 + weights) + kv * (P + out/2). Its TTFT is the overhead plus one prefill step (or several of
// chunkTokens): ttft = (o_req + t0) + lambda * P + alpha * P^2 / 2 once compute-bound.

import { Matrix, solve } from 'ml-matrix';
import { weightReadMs } from '../sim/step-time';
import type { HardwareModel } from '../sim/profiles';
import type { MeasuredCell } from './fit-cells';
import type { FitParameterName } from './fit-parameters';
import { observe } from './fit-observations';

/** Least-squares coefficients of y on the columns of x; null when the columns are not independent. */
function leastSquares(rows: readonly number[][], y: readonly number[]): number[] | null {
  if (rows.length < rows[0]!.length) return null;
  const x = new Matrix(rows.map((r) => [...r]));
  const xt = x.transpose();
  try {
    return solve(xt.mmul(x), xt.mmul(Matrix.columnVector([...y]))).to1DArray();
  } catch {
    return null;
  }
}

/** Starting values (natural units) of the fitted parameters, from the single-request cells. */
export function startingValues(
  cells: readonly MeasuredCell[], base: HardwareModel, names: readonly FitParameterName[],
): number[] {
  const obs = observe(cells);
  const single = obs.filter((o) => cells[o.cell]!.concurrency === 1);
  const decode = single.filter((o) => o.metric === 'tpot_p50_ms');
  const prefill = single.filter((o) => o.metric === 'ttft_p50_ms');
  const context = (i: number) => cells[i]!.promptTokens + cells[i]!.outputTokens / 2;
  const dec = leastSquares(decode.map((o) => [1, context(o.cell)]), decode.map((o) => o.measured));
  const stepMs = Math.max(0.5, dec?.[0] ?? Math.min(...decode.map((o) => o.measured), 20));
  const kvMsPerToken = Math.max(1e-7, dec?.[1] ?? 0);
  const pre = prefillCoefficients(cells, prefill);
  const ttftFloor = Math.min(...prefill.map((o) => o.measured));
  const bytesPerMs = (base.bandwidthBytesPerSecond * base.etaMem) / 1000;
  // The base's weights scaled so that a one-token step reads them in 70% of the measured step time.
  const weightScale = (0.7 * stepMs) / Math.max(1e-6, weightReadMs(base, 1));
  const value: Record<FitParameterName, number> = {
    requestOverheadMs: Math.max(0.5, (pre[0] > 0 ? pre[0] : ttftFloor) - stepMs),
    t0Ms: 0.3 * stepMs,
    denseWeightBytes: Math.max(1, base.denseWeightBytes * weightScale),
    expertWeightBytes: Math.max(1, base.expertWeightBytes * weightScale),
    // A coefficient the lengths cannot give (too few, or noise made it negative) starts at the base's value.
    lambdaUsPerToken: pre[1] > 0 ? pre[1] * 1000 : base.lambdaUsPerToken,
    // attention ms = alpha x 1000 x P^2 / 2, so the P^2 coefficient is 500 alpha.
    alphaSecondsPerPair: pre[2] > 0 ? pre[2] / 500 : base.alphaSecondsPerPair,
    kvBytesPerToken: Math.max(1, kvMsPerToken * bytesPerMs * base.tensorParallel),
    tauMs: Math.max(1e-3, perSequenceMs(cells, obs)),
  };
  return names.map((n) => value[n]);
}

/**
 * TTFT against prompt length at one user: [constant, per token, per token squared]; the squared term only with three
 * lengths or more, and a term that comes out negative is dropped and the rest fitted again (0 = not known).
 */
function prefillCoefficients(
  cells: readonly MeasuredCell[], prefill: readonly { cell: number; measured: number }[],
): [number, number, number] {
  const lengths = prefill.map((o) => cells[o.cell]!.promptTokens);
  const y = prefill.map((o) => o.measured);
  const full = new Set(lengths).size >= 3 ? leastSquares(lengths.map((p) => [1, p, p * p]), y) : null;
  if (full && full[1]! > 0 && full[2]! > 0) return [full[0]!, full[1]!, full[2]!];
  const linear = new Set(lengths).size >= 2 ? leastSquares(lengths.map((p) => [1, p]), y) : null;
  if (linear && linear[1]! > 0) return [linear[0]!, linear[1]!, 0];
  return [0, 0, 0];
}

/** Half the growth of the time per token with each added user at the shortest prompt: a start for tau. */
function perSequenceMs(cells: readonly MeasuredCell[], obs: ReturnType<typeof observe>): number {
  const shortest = Math.min(...cells.map((c) => c.promptTokens));
  const rows = obs.filter((o) => o.metric === 'tpot_p50_ms' && cells[o.cell]!.promptTokens === shortest);
  const fit = leastSquares(rows.map((o) => [1, cells[o.cell]!.concurrency]), rows.map((o) => o.measured));
  return (fit?.[1] ?? 0) / 2;
}
