// Tests analysis/server-metrics.ts and analysis/power.ts: histogram deltas over a cell window, gauges, energy and cost.
// Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import {
  innerDeltaOver,
  isolatedDelta,
  isolatingPairs,
  prefixCacheHitRate,
  readHistogram,
  samplesNear,
  serverFigures,
  valueAtOrAfter,
  valueAtOrBefore,
  type OwnRequests,
} from '../../analysis/server-metrics';
import { addRequestSpan, newRequestSpans, spanIndex, type SpanIndex } from '../../analysis/request-spans';
import { powerFigures } from '../../analysis/power';
import { FloatList } from '../../analysis/stats';
import type { Series } from '../../analysis/server-metrics';

function series(points: [number, number][]): Series {
  const times = new FloatList();
  const values = new FloatList();
  for (const [t, v] of points) {
    times.push(t);
    values.push(v);
  }
  return { times, values };
}

/** The part's requests as [start, end] ms. */
function spans(list: [number, number][]): SpanIndex {
  const s = newRequestSpans();
  for (const [start, end] of list) addRequestSpan(s, end, end - start);
  return spanIndex(s);
}

/** A cell whose measured requests ran as `own` ([start, end] ms), each with `gaps` token gaps. */
function cellOf(own: [number, number][], gaps = 0): OwnRequests {
  const window = { startMs: Math.min(...own.map((r) => r[0])), endMs: Math.max(...own.map((r) => r[1])) };
  return { window, requests: own.length, tokenGaps: own.length * gaps, periods: [{ window, requests: own.length }] };
}

// Queue-time histogram scraped every second: sum in seconds, count in requests.
const QUEUE_SUM = series([[0, 10], [1000, 10], [2000, 12], [3000, 15], [4000, 15], [5000, 20]]);
const QUEUE_COUNT = series([[0, 100], [1000, 100], [2000, 102], [3000, 104], [4000, 104], [5000, 110]]);
// Four requests between 1.5 s and 3.5 s: the ones the queue histogram counts between the scrapes at 1 s and 4 s.
const FOUR: [number, number][] = [[1500, 1900], [1600, 2000], [2500, 3000], [2600, 3500]];

describe('cumulative series over a window', () => {
  it('takes the sample at or before the start and at or after the end', () => {
    expect(valueAtOrBefore(QUEUE_SUM, 1500)).toBe(10);
    expect(valueAtOrAfter(QUEUE_SUM, 3500)).toBe(15);
    expect(valueAtOrBefore(QUEUE_SUM, -5)).toBe(10);
    expect(valueAtOrAfter(QUEUE_SUM, 9999)).toBe(20);
  });

  it("reads a histogram's mean over exactly the cell's requests: delta sum / delta count", () => {
    // Outer scrapes 1000 and 4000, nothing else ran between them: sum 10 -> 15 (5 s), count 100 -> 104, 1.25 s.
    const own = cellOf(FOUR);
    expect(isolatingPairs(QUEUE_COUNT, own.periods[0]!, spans(FOUR))[0]).toEqual({ t0: 1000, t1: 4000 });
    expect(readHistogram(QUEUE_SUM, QUEUE_COUNT, own, 4, spans(FOUR)))
      .toEqual({ kind: 'mean', ms: 1250, scrapes: [{ fromMs: 1000, toMs: 4000, requests: 4 }], counted: 4 });
    // The client measured 3 there: the server's 4 are another set of requests.
    expect(readHistogram(QUEUE_SUM, QUEUE_COUNT, cellOf(FOUR.slice(1)), 3, spans(FOUR.slice(1))))
      .toEqual({ kind: 'count', counted: 4, observations: 3 });
    expect(readHistogram(undefined, QUEUE_COUNT, own, 4, spans(FOUR))).toEqual({ kind: 'absent' });
  });

  it('leaves a mean out when another request ran between every pair of scrapes around the cell', () => {
    // A warm-up request (1.1 s .. 1.4 s) and a transition request ending at 3.8 s: the count may even match.
    for (const other of [[1100, 1400], [3400, 3800]] as [number, number][]) {
      const all = spans([...FOUR, other]);
      expect(isolatingPairs(QUEUE_COUNT, cellOf(FOUR).periods[0]!, all)).toEqual([]);
      expect(readHistogram(QUEUE_SUM, QUEUE_COUNT, cellOf(FOUR), 4, all)).toEqual({ kind: 'shared' });
    }
    // One that ended at the scrape before the cell's first request, or began at the scrape after its last, did not.
    const edges = spans([...FOUR, [200, 1000], [4000, 4400]]);
    expect(readHistogram(QUEUE_SUM, QUEUE_COUNT, cellOf(FOUR), 4, edges)).toMatchObject({ kind: 'mean', ms: 1250 });
  });

  it('waits for a server that observes a request after the client has its last byte (SGLang, up to 0.5 s)', () => {
    // Window 1000 .. 4000, three requests of 2 s; the server counts the last one between the scrapes at 4000 and 4500.
    const t = [500, 1000, 1500, 2000, 2500, 3000, 3500, 4000, 4500, 5000];
    const count = series(t.map((x) => [x, 10 + (x >= 2000 ? 1 : 0) + (x >= 3000 ? 1 : 0) + (x >= 4500 ? 1 : 0)]));
    const sum = series(t.map((x) => [x, 20 + (x >= 2000 ? 2 : 0) + (x >= 3000 ? 2 : 0) + (x >= 4500 ? 2.3 : 0)]));
    const three: [number, number][] = [[1000, 2000], [1000, 3000], [2000, 4000]];
    const read = readHistogram(sum, count, cellOf(three), 3, spans(three));
    expect(read).toMatchObject({ kind: 'mean', scrapes: [{ fromMs: 1000, toMs: 4500, requests: 3 }], counted: 3 });
    expect(read.kind === 'mean' && read.ms).toBeCloseTo(2100, 6);
    // The next cell's first request began at 4.2 s: no later scrape holds the cell's alone.
    expect(readHistogram(sum, count, cellOf(three), 3, spans([...three, [4200, 4600]])))
      .toEqual({ kind: 'count', counted: 2, observations: 3 });
  });

  it('adds up a step measured twice, each stretch between its own scrapes, another step between them', () => {
    // Stretch one: 2 requests (1 s and 3 s), scrapes at 0 and 5 s; another step at 6-9 s (3 requests, 10 s of TTFT);
    // stretch two: 1 request (2 s), scrapes at 10 s and 15 s.
    const count = series([[0, 0], [5000, 2], [10_000, 5], [15_000, 6]]);
    const sum = series([[0, 0], [5000, 4], [10_000, 14], [15_000, 16]]);
    const window = { startMs: 1000, endMs: 14_000 };
    const periods = [{ window: { startMs: 1000, endMs: 4000 }, requests: 2 }, { window: { startMs: 11_000, endMs:
      14_000 }, requests: 1 }];
    const own: OwnRequests = { window, requests: 3, tokenGaps: 0, periods };
    const all = spans([[1000, 2000], [2000, 4000], [6000, 9000], [6000, 9000], [6000, 9000], [11_000, 14_000]]);
    const read = readHistogram(sum, count, own, 3, all);
    expect(read).toMatchObject({ kind: 'mean', counted: 3, scrapes: [
      { fromMs: 0, toMs: 5000, requests: 2 }, { fromMs: 10_000, toMs: 15_000, requests: 1 },
    ] });
    expect(read.kind === 'mean' && read.ms).toBeCloseTo(2000, 6);
    // As one window it would hold the other step's requests.
    expect(readHistogram(sum, count, cellOf([[1000, 2000], [2000, 4000], [11_000, 14_000]]), 3, all))
      .toEqual({ kind: 'shared' });
  });

  it('treats a counter reset as not measured', () => {
    const reset = series([[0, 50], [1000, 2]]);
    expect(isolatedDelta(reset, cellOf([[100, 900]]), spans([[100, 900]]))).toBeNull();
    expect(innerDeltaOver(reset, { startMs: 0, endMs: 1000 })).toBeNull();
  });
});

describe("a capacity step's server figures (issue 46: server 3,361 ms, client 2,262)", () => {
  it("keeps the neighbours' requests out: a mean over the step's own requests or none", () => {
    // Scrapes every second. A 4-user step's last requests (8 s TTFTs) ran until 10.5 s, into the 1-user step's time.
    // The 1-user step's 2 measured requests (TTFT 2.2 s) ran 10.7 s .. 19.5 s.
    const t = [10_000, 11_000, 12_000, 13_000, 14_000, 15_000, 16_000, 17_000, 18_000, 19_000, 20_000];
    const grown = (x: number, i: number, neighbour: number, own: number): number =>
      (x >= 11_000 ? neighbour : 0) + (x >= 16_000 ? own : 0) + (i === 10 ? own : 0);
    const ttftCount = series(t.map((x, i) => [x, 100 + grown(x, i, 4, 1)]));
    const ttftSum = series(t.map((x, i) => [x, 500 + grown(x, i, 32, 2.2)]));
    const step: [number, number][] = [[10_700, 15_100], [15_100, 19_500]];
    const neighbours: [number, number][] = [[2_500, 10_500], [2_600, 10_500], [2_700, 10_500], [2_800, 10_500]];
    const own = cellOf(step);
    const ttft = { serverTtftSum: ttftSum, serverTtftCount: ttftCount };
    const f = serverFigures(ttft, own, spans([...neighbours, ...step]))!;
    expect(f.serverTtftMs).toBeNull();
    expect(f.scrapes).toBeNull();
    expect(f.leftOut).toEqual({ kind: 'shared' });
    // The driver's quiet gap put the neighbours' end before a scrape (10 s): then the step's own 2 requests are read.
    const gapped = spans([...neighbours.map(([a]): [number, number] => [a, 9_900]), ...step]);
    const g = serverFigures(ttft, own, gapped)!;
    expect(g.serverTtftMs).toBeNull();
    expect(g.leftOut).toEqual({ kind: 'count', of: 'requests', counted: 6, observations: 2 });
    const alone = series(t.map((x, i) => [x, 100 + (x >= 16_000 ? 1 : 0) + (i === 10 ? 1 : 0)]));
    const aloneSum = series(t.map((x, i) => [x, 500 + (x >= 16_000 ? 2.2 : 0) + (i === 10 ? 2.4 : 0)]));
    const h = serverFigures({ serverTtftSum: aloneSum, serverTtftCount: alone }, own, gapped)!;
    expect(h.serverTtftMs).toBeCloseTo(2300, 6);
    expect(h.scrapes).toEqual([{ fromMs: 10_000, toMs: 20_000, requests: 2 }]);
    expect(h.leftOut).toBeNull();
  });
});

describe('server figures of a cell', () => {
  it('summarises server figures and returns null without monitor samples', () => {
    const monitor = { queueTimeSum: QUEUE_SUM, queueTimeCount: QUEUE_COUNT, waiting: series([[2000, 3], [3000, 7]]) };
    const f = serverFigures(monitor, cellOf(FOUR), spans(FOUR))!;
    expect(f.queueWaitMs).toBe(1250);
    expect(f.maxWaiting).toBe(7);
    expect(f.prefillTimeMs).toBeNull();
    // No TTFT or e2e histogram: no scrapes to state, and nothing the server exposes is left out.
    expect([f.scrapes, f.leftOut]).toEqual([null, null]);
    expect(serverFigures({}, cellOf(FOUR), spans(FOUR))).toBeNull();
  });

  it("reads token gaps between the scrapes that held exactly the cell's requests, whatever the server counted", () => {
    // The four requests' e2e counted 100 -> 104; SGLang counted 10 token gaps where the client measured 12 (two
    // requests' first chunks carried two tokens): still the cell's own gaps, over 0.5 s.
    const monitor = {
      serverE2eSum: QUEUE_SUM, serverE2eCount: QUEUE_COUNT,
      serverItlSum: series([[1000, 3], [4000, 3.5]]), serverItlCount: series([[1000, 40], [4000, 50]]),
    };
    const f = serverFigures(monitor, cellOf(FOUR, 3), spans(FOUR))!;
    expect([f.serverE2eMs, f.serverItlMs, f.leftOut]).toEqual([1250, 50, null]);
    // Without a per-request mean to stand on, the count must be the client's: 10 gaps are not its 12.
    const alone = { serverItlSum: monitor.serverItlSum, serverItlCount: monitor.serverItlCount };
    expect(serverFigures(alone, cellOf(FOUR, 3), spans(FOUR))!.leftOut)
      .toEqual({ kind: 'count', of: 'tokenGaps', counted: 10, observations: 12 });
  });

  it('takes the nearest gauge sample for a window shorter than the scrape interval', () => {
    const g = series([[0, 100], [1000, 300]]);
    expect(samplesNear(g, { startMs: 1100, endMs: 1400 }, 1000)).toEqual([300]);
    expect(samplesNear(g, { startMs: 5000, endMs: 5100 }, 1000)).toEqual([]);
  });
});

describe('prefix-cache hit rate', () => {
  const own = cellOf(FOUR);

  it("is cached / queried prompt tokens over the cell's requests from vLLM-style counters", () => {
    const queries = series([[1000, 1000], [2000, 5000], [4000, 9000]]);
    const hits = series([[1000, 0], [2000, 1000], [4000, 6000]]);
    // 1000 -> 9000 queried, 0 -> 6000 cached: 0.75
    const counters = { prefixCacheQueriesTotal: queries, prefixCacheHitsTotal: hits };
    expect(prefixCacheHitRate(counters, own, spans(FOUR))).toBe(0.75);
    // Another request ran between the scrapes: its hits are not the cell's.
    expect(prefixCacheHitRate(counters, own, spans([...FOUR, [1200, 1300]]))).toBeNull();
  });

  it("falls back to the mean of the server's own rate gauge (SGLang), null when the server exposes neither", () => {
    // The sample at 1 s is of the requests before the cell's; those after it are the cell's.
    const gauge = { prefixCacheHitRate: series([[1000, 0.9], [2000, 0.2], [3000, 0.4], [4000, 0.3]]) };
    expect(prefixCacheHitRate(gauge, own, spans(FOUR))).toBeCloseTo(0.3, 10);
    // Counters without a query in the window say nothing: the gauge (if any) decides.
    const flat = series([[1000, 100], [4000, 100]]);
    expect(prefixCacheHitRate({ prefixCacheQueriesTotal: flat, prefixCacheHitsTotal: flat }, own, spans(FOUR)))
      .toBeNull();
    expect(prefixCacheHitRate({}, own, spans(FOUR))).toBeNull();
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
