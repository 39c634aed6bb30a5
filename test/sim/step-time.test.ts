// Unit tests of the step-time and power formulas against hand-worked numbers. Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { findProfile } from '../../sim/profiles';
import { allReduceMs, smoothTowards, stepPowerWatts, stepTime, weightReadMs } from '../../sim/step-time';

// The formulas are checked on fixed parameters (profile A's first fit), so the hand-worked numbers
// below stay true when a profile is re-fitted; the fit itself is checked in batcher.test.ts.
const A = {
  ...findProfile('A')!.hardware, etaMem: 0.83, t0Ms: 4.75, lambdaUsPerToken: 9.7, alphaSecondsPerPair: 1.38e-9,
};

describe('weightReadMs', () => {
  it('one decode token on the MoE of profile A: dense 0.376506 ms + experts 0.888480 ms', () => {
    // cov = 1 - (1 - 8/128)^1 = 0.0625; m = 8 / max(8, 8) = 1; eta_moe = 0.85 * 1/2 = 0.425
    // dense = 1.5e9 / (4.8e12 * 0.83) = 0.376506 ms; experts = 29e9 * 0.0625 / (4.8e12 * 0.425) = 0.888480 ms
    expect(weightReadMs(A, 1)).toBeCloseTo(1.264986, 5);
  });

  it('a 1024-token step touches every expert: m = 64, eta_moe = 0.85*64/65', () => {
    // experts = 29e9 / (4.8e12 * 0.836923) = 7.218900 ms
    expect(weightReadMs(A, 1024)).toBeCloseTo(7.595406, 4);
  });

  it('an empty step reads nothing', () => {
    expect(weightReadMs(A, 0)).toBe(0);
  });
});

describe('stepTime', () => {
  it('single decode at 1K context: t0 4.75 + t_w 1.264986 + t_kv 0.025267 = 6.040253 ms (165.6 tok/s)', () => {
    const t = stepTime(A, [{ newTokens: 1, cachedTokens: 1023 }]);
    // t_kv = 1024 * 98304 B / (4.8e12 * 0.83) B/s = 0.0252669 ms
    expect(t.kvMs).toBeCloseTo(0.0252669, 6);
    expect(t.totalMs).toBeCloseTo(6.040253, 5);
    expect(t.attentionMs).toBe(0);
    expect(t.computeMs).toBe(0);
  });

  it('a fresh 1024-token prefill chunk is compute-bound: lambda*T 9.9328 + attention 0.723517 ms', () => {
    const t = stepTime(A, [{ newTokens: 1024, cachedTokens: 0 }]);
    // pairs = 1024 * (0 + 512) = 524288; 524288 * 1.38e-9 s = 0.723517 ms
    expect(t.attentionMs).toBeCloseTo(0.723517, 5);
    expect(t.linearMs).toBeCloseTo(9.9328, 6);
    expect(t.totalMs).toBeCloseTo(4.75 + 9.9328 + 0.0252669 + 0.723517, 4);
    expect(t.computeMs).toBeCloseTo(9.9328 + 0.723517, 4);
    expect(t.memoryMs).toBeCloseTo(0.0252669, 6);
  });

  it('chunked prefill attention sums to alpha*L^2/2 over the chunks', () => {
    const L = 32768;
    let attn = 0;
    for (let p = 0; p < L; p += 8192) attn += stepTime(A, [{ newTokens: 8192, cachedTokens: p }]).attentionMs;
    expect(attn).toBeCloseTo((1.38e-9 * L * L * 1000) / 2, 6);
  });

  it('hybrid models read recurrent state per sequence (profile D: 151 MB per step)', () => {
    const D = findProfile('D')!.hardware;
    const one = stepTime(D, [{ newTokens: 1, cachedTokens: 0 }]);
    // 151e6 + 1*24576 bytes / (4.8e12 * 0.74) = 0.0425 ms
    expect(one.kvMs).toBeCloseTo(((151e6 + 24576) / (4.8e12 * 0.74)) * 1000, 6);
  });

  it('an empty batch costs nothing', () => {
    expect(stepTime(A, []).totalMs).toBe(0);
  });
});

describe('power', () => {
  it('decode step of profile A: 90 + 610 * (0.05 + 0.45 * 0.213609) = 179.14 W', () => {
    const t = stepTime(A, [{ newTokens: 1, cachedTokens: 1023 }]);
    expect(stepPowerWatts(t, 90, 700)).toBeCloseTo(179.136, 2);
  });

  it('a long prefill approaches the cap but never exceeds max', () => {
    const t = stepTime(A, [{ newTokens: 8192, cachedTokens: 200_000 }]);
    const p = stepPowerWatts(t, 90, 700);
    expect(p).toBeGreaterThan(600);
    expect(p).toBeLessThanOrEqual(700);
  });

  it('first-order lag with a 0.5 s time constant', () => {
    expect(smoothTowards(100, 200, 500)).toBeCloseTo(200 - 100 * Math.exp(-1), 9);
    expect(smoothTowards(100, 200, 0)).toBe(100);
  });
});

describe('tensor parallelism', () => {
  // A's formula parameters on two GPUs joined by a 40 GB/s link with 16 us per all-reduce, 96 all-reduces
  // of 4096 bytes per token: each GPU does half of every read and every FLOP, and the step adds the all-reduces.
  const TP2 = {
    ...A, tensorParallel: 2, allReduceBytesPerToken: 4096, allReducesPerStep: 96, linkBandwidthBytesPerSecond: 40e9,
    linkLatencyUs: 16,
  };

  it('all-reduce: 96 x (16 us + 2(2-1)/2 x T x 4096 B / 40 GB/s); nothing on one GPU', () => {
    // T = 1: 96 x (0.016 + 4096 / 40e9 s = 0.0001024 ms) = 1.5458304 ms
    expect(allReduceMs(TP2, 1)).toBeCloseTo(1.5458304, 6);
    // T = 8192: 96 x (0.016 + 0.8388608 ms) = 82.0666368 ms: bandwidth-bound for a prefill chunk
    expect(allReduceMs(TP2, 8192)).toBeCloseTo(82.0666368, 4);
    expect(allReduceMs(A, 8192)).toBe(0);
    expect(allReduceMs(TP2, 0)).toBe(0);
  });

  it('single decode at 1K on two GPUs: half of every read, plus the all-reduces', () => {
    // t0 4.75 + t_w 1.264986/2 + t_kv 0.0252669/2 + all-reduce 1.5458304 = 6.9409569 ms
    const t = stepTime(TP2, [{ newTokens: 1, cachedTokens: 1023 }]);
    expect(t.weightsMs).toBeCloseTo(0.632493, 5);
    expect(t.kvMs).toBeCloseTo(0.01263345, 6);
    expect(t.allReduceMs).toBeCloseTo(1.5458304, 6);
    expect(t.totalMs).toBeCloseTo(6.9409569, 5);
  });

  it('a 1024-token prefill chunk on two GPUs: half the compute and attention, plus all-reduces', () => {
    // lambda*T/2 = 4.9664; attention 0.723517/2 = 0.3617585; all-reduce 96 x (0.016 + 1024*4096/40e9 s) = 11.6023296 ms
    const t = stepTime(TP2, [{ newTokens: 1024, cachedTokens: 0 }]);
    expect(t.linearMs).toBeCloseTo(4.9664, 4);
    expect(t.attentionMs).toBeCloseTo(0.3617585, 6);
    expect(t.allReduceMs).toBeCloseTo(11.6023296, 6);
    // t0 4.75 + 4.9664 + t_kv (1024 x 98304 / 2 / (4.8e12 x 0.83) = 0.01263345) + 0.3617585 + 11.6023296
    expect(t.totalMs).toBeCloseTo(21.6931216, 5);
  });

  it('the all-reduce counts as neither compute nor memory in the power formula', () => {
    const t = stepTime(TP2, [{ newTokens: 1, cachedTokens: 1023 }]);
    expect(t.computeMs + t.memoryMs + t.overheadMs + t.allReduceMs).toBeCloseTo(t.totalMs, 9);
  });
});
