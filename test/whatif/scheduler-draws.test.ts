import { describe, expect, it } from 'vitest';
import { findProfile } from '../../sim/profiles';
import { parseFittedProfile, type FittedProfileFile } from '../../whatif/fitted-profile';
import { SCHEDULER_FACTOR, schedulerDraws } from '../../whatif/scheduler-draws';

const A = findProfile('A')!;

describe('the scheduler limits a fit run neither reached nor was told', () => {
  it('are drawn per refit within the factor, the stated ones left alone', () => {
    const draws = schedulerDraws(A.scheduler, (k) => k === 'kvCapacityTokens', 200, 1);
    expect(draws).toHaveLength(200);
    for (const d of draws) {
      expect(d.kvCapacityTokens).toBeUndefined();
      for (const k of ['maxNumSeqs', 'chunkTokens'] as const) {
        expect(d[k]! / A.scheduler[k]).toBeGreaterThanOrEqual(1 / SCHEDULER_FACTOR - 1e-3);
        expect(d[k]! / A.scheduler[k]).toBeLessThanOrEqual(SCHEDULER_FACTOR + 1e-3);
      }
    }
    // Both sides of the guess, not one value.
    const chunks = draws.map((d) => d.chunkTokens!);
    expect(Math.min(...chunks)).toBeLessThan(0.6 * A.scheduler.chunkTokens);
    expect(Math.max(...chunks)).toBeGreaterThan(1.6 * A.scheduler.chunkTokens);
    expect(schedulerDraws(A.scheduler, () => true, 3, 1)).toEqual([{}, {}, {}]);
  });

  it("reach the resampled profiles a prediction's interval is made of", () => {
    const file: FittedProfileFile = {
      base: A.name, name: 'fitted-a',
      fit: {
        run: 'r', fittedAt: '2026-12-05T00:00:00.000Z', cells: 1, requests: 1, parameters: [], residuals: [],
        medianErrorPct: 0, maxErrorPct: 0, resamples: [{}, {}],
        schedulerResamples: [{ chunkTokens: 4096 }, { chunkTokens: 16_384, maxNumSeqs: 512 }],
      },
    };
    const fitted = parseFittedProfile(file, 'fitted.json');
    expect(fitted.profile.scheduler.chunkTokens).toBe(A.scheduler.chunkTokens);
    expect(fitted.resampled.map((p) => p.scheduler.chunkTokens)).toEqual([4096, 16_384]);
    expect(fitted.resampled[1]!.scheduler.maxNumSeqs).toBe(512);
    expect(fitted.resampled[0]!.scheduler.maxNumSeqs).toBe(A.scheduler.maxNumSeqs);
  });
});
