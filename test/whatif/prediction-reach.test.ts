import { describe, expect, it } from 'vitest';
import type { FitInfo } from '../../whatif/fitted-profile';
import { predictionReach, type PredictedUseCase } from '../../whatif/prediction-reach';

type Stat = 'ttft_p50_ms' | 'tpot_p50_ms';
const residual = (cell: string, promptTokens: number, concurrency: number, metric: Stat, errorPct: number) =>
  ({ cell, promptTokens, concurrency, metric, measured: 100, predicted: 100 + errorPct, errorPct });

const fit = {
  range: { promptTokens: [256, 16_384], concurrency: [1, 64], outputTokens: [128, 128] },
  residuals: [
    residual('c1k_n16', 1024, 16, 'tpot_p50_ms', -22), residual('c1k_n32', 1024, 32, 'tpot_p50_ms', 3),
    residual('c1k_n16', 1024, 16, 'ttft_p50_ms', 2), residual('c16k_n4', 16_384, 4, 'ttft_p50_ms', 30),
  ],
} as unknown as FitInfo;

const useCase = (o: Partial<PredictedUseCase>): PredictedUseCase => ({
  useCase: 'u', promptTokens: 1024, outputTokens: 128, metrics: ['e2e'], capacity: 17, high: 18, ...o,
});

describe('predictionReach', () => {
  it('calls a use case inside the fit run inside, and names each figure that lies beyond it', () => {
    const [inside, beyond] = predictionReach([
      useCase({ metrics: ['ttft'] }),
      useCase({ promptTokens: 65_536, outputTokens: 1024, capacity: 60, high: 70.2 }),
    ], fit);
    expect(inside).toMatchObject({ range: 'inside', beyond: [] });
    expect(beyond!.range).toBe('extrapolated');
    expect(beyond!.beyond).toEqual([
      "prompt 65536 tokens > the fit's longest 16384", "71 users > the fit's most 64",
      "answers of 1024 tokens > the fit's 128",
    ]);
  });

  it("says where the fit missed the statistic a limit rests on, at the users around its capacity", () => {
    const [e2e, ttft, speed] = predictionReach([
      useCase({ metrics: ['e2e'] }), useCase({ metrics: ['ttft'] }),
      useCase({ metrics: ['decodeSpeed'], capacity: 40 }),
    ], fit);
    expect(e2e!.fitCheck).toContain('time per output token of c1k_n16 by -22.0%');
    expect(ttft!.fitCheck).toBeNull();
    // 40 users lie between 32 and 64: the 16-user cell's miss is not where this limit lives.
    expect(speed!.fitCheck).toBeNull();
  });

  it('knows no range without a fit record', () => {
    expect(predictionReach([useCase({})], null)[0]!.range).toBe('unknown');
  });
});
