// Tests report/server-metrics.ts and report/power.ts: histogram deltas over a cell window, gauges, energy and cost.
// Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import {
  deltaOver,
  histogramMeanMs,
  prefixCacheHitRate,
  samplesNear,
  serverFigures,
  valueAtOrAfter,
  valueAtOrBefore,
} from '../../report/server-metrics';
import { powerFigures } from '../../report/power';
import { FloatList } from '../../report/stats';
import type { Series } from '../../report/read-samples';

function series(points: [number, number][]): Series {
  const times = new FloatList();
  const values = new FloatList();
  for (const [t, v] of points) {
    times.push(t);
    values.push(v);
  }
  return { times, values };
}

describe('cumulative series over a window', () => {
  // Queue-time histogram scraped every second: sum in seconds, count in requests.
  const sum = series([[0, 10], [1000, 10], [2000, 12], [3000, 15], [4000, 15], [5000, 20]]);
  const count = series([[0, 100], [1000, 100], [2000, 102], [3000, 104], [4000, 104], [5000, 110]]);

  it('takes the sample at or before the start and at or after the end', () => {
    expect(valueAtOrBefore(sum, 1500)).toBe(10);
    expect(valueAtOrAfter(sum, 3500)).toBe(15);
    expect(valueAtOrBefore(sum, -5)).toBe(10);
    expect(valueAtOrAfter(sum, 9999)).toBe(20);
  });

  it('gives the mean of the histogram over the window: delta sum / delta count', () => {
    // window 1500..3500: sum 10 -> 15 (5 s), count 100 -> 104: 5 / 4 = 1.25 s = 1250 ms
    expect(deltaOver(sum, { startMs: 1500, endMs: 3500 })).toBe(5);
    expect(histogramMeanMs(sum, count, { startMs: 1500, endMs: 3500 })).toBe(1250);
    // No request counted in the window -> not measured.
    expect(histogramMeanMs(sum, count, { startMs: 3100, endMs: 3900 })).toBeNull();
    expect(histogramMeanMs(undefined, count, { startMs: 0, endMs: 1 })).toBeNull();
  });

  it('treats a counter reset as not measured', () => {
    const reset = series([[0, 50], [1000, 2]]);
    expect(deltaOver(reset, { startMs: 0, endMs: 1000 })).toBeNull();
  });

  it('summarises server figures and returns null without monitor samples', () => {
    const f = serverFigures(
      {
        queueTimeSum: sum, queueTimeCount: count,
        waiting: series([
          [2000, 3], [3000, 7],
        ]),
      },
      { startMs: 1500, endMs: 3500 },
    )!;
    expect(f.queueWaitMs).toBe(1250);
    expect(f.maxWaiting).toBe(7);
    expect(f.prefillTimeMs).toBeNull();
    expect(serverFigures({}, { startMs: 0, endMs: 1 })).toBeNull();
  });

  it('takes the nearest gauge sample for a window shorter than the scrape interval', () => {
    const g = series([[0, 100], [1000, 300]]);
    expect(samplesNear(g, { startMs: 1100, endMs: 1400 }, 1000)).toEqual([300]);
    expect(samplesNear(g, { startMs: 5000, endMs: 5100 }, 1000)).toEqual([]);
  });
});

describe('prefix-cache hit rate', () => {
  const w = { startMs: 1500, endMs: 3500 };

  it('is cached / queried prompt tokens over the window from vLLM-style counters', () => {
    const queries = series([[1000, 1000], [2000, 5000], [4000, 9000]]);
    const hits = series([[1000, 0], [2000, 1000], [4000, 6000]]);
    // 1000 -> 9000 queried, 0 -> 6000 cached: 0.75
    expect(prefixCacheHitRate({ prefixCacheQueriesTotal: queries, prefixCacheHitsTotal: hits }, w, 1000)).toBe(0.75);
    expect(serverFigures({ prefixCacheQueriesTotal: queries, prefixCacheHitsTotal: hits }, w)!.prefixCacheHitRate).toBe(0.75);
  });

  it("falls back to the mean of the server's own rate gauge (SGLang), and is null when the server exposes neither", () => {
    expect(prefixCacheHitRate({ prefixCacheHitRate: series([[2000, 0.2], [3000, 0.4]]) }, w, 1000)).toBeCloseTo(0.3, 10);
    // Counters without a query in the window say nothing: the gauge (if any) decides.
    const flat = series([[1000, 100], [4000, 100]]);
    expect(prefixCacheHitRate({ prefixCacheQueriesTotal: flat, prefixCacheHitsTotal: flat }, w, 1000)).toBeNull();
    expect(prefixCacheHitRate({}, w, 1000)).toBeNull();
  });
});

describe('power figures', () => {
  it('computes mean and peak power, energy per token and cost', () => {
    const p = series([[0, 400], [1000, 600], [2000, 500], [9000, 9999]]);
    // window 0..2000 ms: mean 500 W, peak 600 W; energy 500 W x 2 s = 1000 J over 100 tokens = 10 J/token
    const f = powerFigures(p, { startMs: 0, endMs: 2000 }, 100, 50, { usdPerKwh: 0.1, usdPerGpuHour: 2, gpuCount: 2 })!;
    expect(f.meanWatts).toBe(500);
    expect(f.peakWatts).toBe(600);
    expect(f.joulesPerOutputToken).toBe(10);
    expect(f.electricityUsdPerHour).toBeCloseTo(0.05, 10);
    expect(f.totalUsdPerHour).toBeCloseTo(4.05, 10);
    // 50 tok/s = 180,000 tokens/hour: 4.05 / 0.18 = 22.5 USD per million tokens
    expect(f.usdPerMillionTokens).toBeCloseTo(22.5, 10);
    expect(powerFigures(undefined, { startMs: 0, endMs: 1 }, 1, 1, { usdPerKwh: 0.1, usdPerGpuHour: 0, gpuCount: 1 })).toBeNull();
  });
});
