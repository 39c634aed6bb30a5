// Pure step-time formulas of the performance model (docs/design/simulator-model.md, "Step time") and the power model.
// Runs in Node.

import type { HardwareModel } from './profiles';

/** One sequence in a step: c new tokens computed on top of p tokens already in the KV cache. */
export interface StepEntry {
  readonly newTokens: number;
  readonly cachedTokens: number;
}

export interface StepTime {
  /** t_step = t0 + tau*n + t_lin + t_kv + t_attn, ms. */
  readonly totalMs: number;
  /** Compute-bound part: lambda*T when it exceeds the weight reads, plus prefill attention, ms. */
  readonly computeMs: number;
  /** Memory-bound part: weight reads when they exceed lambda*T, plus KV/state reads, ms. */
  readonly memoryMs: number;
  readonly weightsMs: number;
  readonly linearMs: number;
  readonly kvMs: number;
  readonly attentionMs: number;
  readonly overheadMs: number;
  /** Tensor parallelism: the step's all-reduces over the GPU link, ms (0 on one GPU). */
  readonly allReduceMs: number;
}

/**
 * Weight-read time for a step of T tokens, ms:
 * Teff = 1 + (T-1)(1-rho); cov = 1 - (1-k/E)^Teff; m = Teff*k / max(k, E*cov);
 * eta_moe = eta_max * m/(m+m0); t_w = (W_dense/(BW*eta_mem) + W_experts*cov/(BW*eta_moe)) / N_tp.
 * Tensor parallelism gives each of the N_tp GPUs a 1/N_tp slice of every weight (experts included), read in parallel.
 */
export function weightReadMs(hw: HardwareModel, tokens: number): number {
  if (tokens <= 0) return 0;
  const tEff = 1 + (tokens - 1) * (1 - hw.rho);
  const cov = 1 - Math.pow(1 - hw.topK / hw.experts, tEff);
  const m = (tEff * hw.topK) / Math.max(hw.topK, hw.experts * cov);
  const etaMoe = (hw.etaMax * m) / (m + hw.m0);
  const dense = hw.denseWeightBytes / (hw.bandwidthBytesPerSecond * hw.etaMem);
  const experts = (hw.expertWeightBytes * cov) / (hw.bandwidthBytesPerSecond * etaMoe);
  return ((dense + experts) * 1000) / hw.tensorParallel;
}

/**
 * All-reduce time of one step of T tokens over the tensor-parallel link, ms (0 on one GPU). A ring
 * all-reduce over N GPUs sends 2(N-1)/N of the message through each link, so per all-reduce:
 * latency + 2(N-1)/N * T * bytesPerToken / linkBW; times allReducesPerStep (two per layer).
 */
export function allReduceMs(hw: HardwareModel, tokens: number): number {
  const n = hw.tensorParallel;
  if (n <= 1 || tokens <= 0) return 0;
  const transferMs = ((tokens * hw.allReduceBytesPerToken) / hw.linkBandwidthBytesPerSecond) * 1000;
  const perAllReduceMs = hw.linkLatencyUs / 1000 + ((2 * (n - 1)) / n) * transferMs;
  return hw.allReducesPerStep * perAllReduceMs;
}

/**
 * Step time of a batch (an empty batch costs nothing). Entries with c > 1 are prefill chunks and pay attention.
 * With tensor parallelism over N GPUs, weights, KV/state reads, linear compute and attention divide by N
 * (each GPU holds 1/N of the weights and of the KV heads) and the step adds its all-reduces.
 */
export function stepTime(hw: HardwareModel, entries: readonly StepEntry[]): StepTime {
  const n = entries.length;
  if (n === 0) {
    return {
      totalMs: 0, computeMs: 0, memoryMs: 0, weightsMs: 0, linearMs: 0, kvMs: 0, attentionMs: 0, overheadMs: 0,
      allReduceMs: 0,
    };
  }
  const gpus = hw.tensorParallel;
  let tokens = 0;
  let kvTokens = 0;
  let pairs = 0;
  for (const e of entries) {
    tokens += e.newTokens;
    kvTokens += e.cachedTokens + e.newTokens;
    // Attention of a prefill chunk: each of its c queries sees p cached keys plus on average c/2 new ones.
    if (e.newTokens > 1) pairs += e.newTokens * (e.cachedTokens + e.newTokens / 2);
  }
  const weightsMs = weightReadMs(hw, tokens);
  const computeLinMs = (hw.lambdaUsPerToken * tokens) / 1000 / gpus;
  const linearMs = Math.max(weightsMs, computeLinMs);
  const kvBytesPerGpu = (kvTokens * hw.kvBytesPerToken + n * hw.stateBytesPerSeq) / gpus;
  const kvMs = (kvBytesPerGpu / (hw.bandwidthBytesPerSecond * hw.etaMem)) * 1000;
  const attentionMs = (hw.alphaSecondsPerPair * pairs * 1000) / gpus;
  const overheadMs = hw.t0Ms + hw.tauMs * n;
  const arMs = allReduceMs(hw, tokens);
  const computeBound = computeLinMs > weightsMs;
  return {
    totalMs: overheadMs + linearMs + kvMs + attentionMs + arMs,
    computeMs: (computeBound ? computeLinMs : 0) + attentionMs,
    memoryMs: (computeBound ? 0 : weightsMs) + kvMs,
    weightsMs,
    linearMs,
    kvMs,
    attentionMs,
    overheadMs,
    allReduceMs: arMs,
  };
}

/**
 * Instantaneous power target of a step for one GPU, watts:
 * P = P_idle + (P_max - P_idle) * min(1, 0.05 + 0.85 f_compute + 0.45 f_mem), f_* = shares of the step time.
 * Tensor-parallel GPUs run the same step on equal slices, so each draws this; t0 and all-reduces count for neither.
 */
export function stepPowerWatts(step: StepTime, idleWatts: number, maxWatts: number): number {
  if (step.totalMs <= 0) return idleWatts;
  const fCompute = step.computeMs / step.totalMs;
  const fMem = step.memoryMs / step.totalMs;
  return idleWatts + (maxWatts - idleWatts) * Math.min(1, 0.05 + 0.85 * fCompute + 0.45 * fMem);
}

/** First-order lag: the value after dtMs moving from `current` towards `target` with time constant tauMs. */
export function smoothTowards(current: number, target: number, dtMs: number, tauMs = 500): number {
  if (dtMs <= 0) return current;
  return target + (current - target) * Math.exp(-dtMs / tauMs);
}
