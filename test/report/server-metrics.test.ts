// Tests report/server-metrics.ts and report/power.ts: histogram deltas over a cell window, gauges, energy and cost.
// Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import {
  deltaOver,
  exactScrapes,
  histogramMeanMs,
  innerDeltaOver,
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

// Queue-time histogram scraped every second: sum in seconds, count in requests.
const QUEUE_SUM = series([[0, 10], [1000, 10], [2000, 12], [3000, 15], [4000, 15], [5000, 20]]);
const QUEUE_COUNT = series([[0, 100], [1000, 100], [2000, 102], [3000, 104], [4000, 104], [5000, 110]]);

describe('cumulative series over a window', () => {
  const sum = QUEUE_SUM;
  const count = QUEUE_COUNT;

  it('takes the sample at or before the start and at or after the end', () => {
    expect(valueAtOrBefore(sum, 1500)).toBe(10);
    expect(valueAtOrAfter(sum, 3500)).toBe(15);
    expect(valueAtOrBefore(sum, -5)).toBe(10);
    expect(valueAtOrAfter(sum, 9999)).toBe(20);
  });

  it('gives the mean of the histogram over the window: delta sum / delta count', () => {
    // window 1500..3500, the cell's own 4 requests: outer scrapes 1000 and 4000, sum 10 -> 15 (5 s), count 100 -> 104:
    // exactly the cell's count, so 5 / 4 = 1.25 s = 1250 ms.
    expect(deltaOver(sum, { startMs: 1500, endMs: 3500 })).toBe(5);
    expect(histogramMeanMs(sum, count, { startMs: 1500, endMs: 3500 }, 4)).toBe(1250);
    // Count unknown: only what the scrapes inside the window saw (2000 -> 3000: 3 s over 2 requests).
    expect(innerDeltaOver(count, { startMs: 1500, endMs: 3500 })).toBe(2);
    expect(histogramMeanMs(sum, count, { startMs: 1500, endMs: 3500 })).toBe(1500);
    // No request counted in the window -> not measured.
    expect(histogramMeanMs(sum, count, { startMs: 3100, endMs: 3900 })).toBeNull();
    expect(histogramMeanMs(undefined, count, { startMs: 0, endMs: 1 })).toBeNull();
  });

  it('waits for a server that observes a request after the client has its last byte (SGLang, up to 0.5 s)', () => {
    // Window 1000 .. 4000, three requests of 2 s; the server counts the last one between the scrapes at 4000 and 4500.
    const t = [500, 1000, 1500, 2000, 2500, 3000, 3500, 4000, 4500, 5000];
    const count = series(t.map((x) => [x, 10 + (x >= 2000 ? 1 : 0) + (x >= 3000 ? 1 : 0) + (x >= 4500 ? 1 : 0)]));
    const sum = series(t.map((x) => [x, 20 + (x >= 2000 ? 2 : 0) + (x >= 3000 ? 2 : 0) + (x >= 4500 ? 2.3 : 0)]));
    const w = { startMs: 1000, endMs: 4000 };
    expect(exactScrapes(count, w, 3)).toEqual({ t0: 1000, t1: 4500 });
    expect(histogramMeanMs(sum, count, w, 3)).toBeCloseTo(2100, 6);
    // No pair of scrapes counts 5: the scrapes inside the window serve instead.
    expect(exactScrapes(count, w, 5)).toBeNull();
  });

  it("keeps a busier neighbour's TTFTs out of a 1-user step (issue 31: server 6.4 s, the client 4.4 s)", () => {
    // Scrapes every second. A 4-user step ends at 10.2 s; its last requests' first tokens come at 10.5 s, 8 s each.
    // The 1-user step runs 10.7 s .. 19.5 s: 2 requests at TTFT 4.4 s (first tokens at 15.1 s and 19.2 s).
    const t = [10_000, 11_000, 12_000, 13_000, 14_000, 15_000, 16_000, 17_000, 18_000, 19_000, 20_000];
    // The neighbour's 4 requests (32 s) land by 11 s, the cell's first (4.4 s) by 16 s, its second at the last
    // scrape.
    const grown = (x: number, i: number, neighbour: number, own: number): number =>
      (x >= 11_000 ? neighbour : 0) + (x >= 16_000 ? own : 0) + (i === 10 ? own : 0);
    const ttftCount = series(t.map((x, i) => [x, 100 + grown(x, i, 4, 1)]));
    const ttftSum = series(t.map((x, i) => [x, 500 + grown(x, i, 32, 4.4)]));
    const w = { startMs: 10_700, endMs: 19_500 };
    // The old outer window: (32 + 8.8) s / 6 requests = 6.8 s, above every request the client measured.
    expect((deltaOver(ttftSum, w)! / deltaOver(ttftCount, w)!) * 1000).toBeCloseTo(6800, 6);
    // Told it ran 2 requests, the outer count (6) is not the cell's: the inner scrapes 11 s .. 19 s hold only the
    // first.
    expect(histogramMeanMs(ttftSum, ttftCount, w, 2)).toBeCloseTo(4400, 6);
    const own = { requests: 2, tokenGaps: 0 };
    const f = serverFigures({ serverTtftSum: ttftSum, serverTtftCount: ttftCount }, w, 1000, own);
    expect(f!.serverTtftMs).toBeCloseTo(4400, 6);
    // Without the neighbour, the outer scrapes count exactly the cell's 2 requests and both are used.
    const alone = series(t.map((x, i) => [x, 100 + (x >= 16_000 ? 1 : 0) + (i === 10 ? 1 : 0)]));
    const aloneSum = series(t.map((x, i) => [x, 500 + (x >= 16_000 ? 4.4 : 0) + (i === 10 ? 4.6 : 0)]));
    expect(histogramMeanMs(aloneSum, alone, w, 2)).toBeCloseTo(4500, 6);
  });

  it('treats a counter reset as not measured', () => {
    const reset = series([[0, 50], [1000, 2]]);
    expect(deltaOver(reset, { startMs: 0, endMs: 1000 })).toBeNull();
  });

});

describe('server figures of a cell', () => {
  it('summarises server figures and returns null without monitor samples', () => {
    const f = serverFigures(
      {
        queueTimeSum: QUEUE_SUM, queueTimeCount: QUEUE_COUNT,
        waiting: series([
          [2000, 3], [3000, 7],
        ]),
      },
      { startMs: 1500, endMs: 3500 }, 0, { requests: 4, tokenGaps: 0 },
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
    const counters = { prefixCacheQueriesTotal: queries, prefixCacheHitsTotal: hits };
    expect(serverFigures(counters, w)!.prefixCacheHitRate).toBe(0.75);
  });

  it("falls back to the mean of the server's own rate gauge (SGLang), null when the server exposes neither", () => {
    const gauge = { prefixCacheHitRate: series([[2000, 0.2], [3000, 0.4]]) };
    expect(prefixCacheHitRate(gauge, w, 1000)).toBeCloseTo(0.3, 10);
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
    const prices = { usdPerKwh: 0.1, usdPerGpuHour: 0, gpuCount: 1 };
    expect(powerFigures(undefined, { startMs: 0, endMs: 1 }, 1, 1, prices)).toBeNull();
  });
});
