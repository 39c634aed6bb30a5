// Tests analysis/cells.ts: throughput, scaling efficiency, success and error counts from accumulators.
// Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { applyScalingEfficiency, buildCellStats, busyMs, scalingEfficiency } from '../../analysis/cells';
import { FloatList } from '../../analysis/stats';
import { newCellAccumulator, TREND_KEYS, type CellAccumulator, type TrendKey } from '../../analysis/cell-accumulator';
import { DEFAULT_COST } from '../../analysis/power';
import type { Cell } from '../../lib/plan';
import { cell } from '../report/helpers';

function planCell(over: Partial<Cell>): Cell {
  return {
    id: 'sweep_c1k_o64_n2', script: 'sweep', contextTokens: 1024, outputTokens: 64, concurrency: 2, rounds: 1,
    warmupRounds: 0, useCase: null, profile: null, startSeconds: 0, maxDurationSeconds: 10, gracefulStopSeconds: 5,
    ...over,
  };
}

describe('busyMs', () => {
  it('is the time with at least one request running: overlaps once, gaps left out', () => {
    // [0, 100] and [50, 150] overlap (150 ms), [400, 500] after a gap (100 ms), [420, 480] inside it.
    expect(busyMs([100, 100, 100, 60], [100, 150, 500, 480])).toBe(250);
    expect(busyMs([], [])).toBe(0);
  });
});

/** A cell's accumulator with nothing read yet, but for `over`. */
function accumulator(over: Partial<CellAccumulator>): CellAccumulator {
  const trends = {} as Record<TrendKey, FloatList>;
  for (const k of TREND_KEYS) trends[k] = new FloatList();
  return {
    id: 'cell', tags: {}, trends, inputTokens: 0, outputTokens: 0, tokenSources: {}, okCount: 0, failCount: 0,
    goodput: { judged: 0, good: 0 }, requestEnds: new FloatList(), errorsByKind: {}, errorMessages: {},
    excluded: { warmup: 0, transition: 0 }, failedByKind: {}, windowStartMs: Infinity, windowEndMs: -Infinity,
    readLag: new FloatList(), stall: new FloatList(), reading: { readTogether: 0, chunked: 0, requests: 0 },
    inputLengths: new FloatList(), outputLengths: new FloatList(), cachedTokens: 0,
    cachedReported: 0, reasoningTokens: 0, reasoningReported: 0, cpuFirst: null, cpuLast: null, achievedRate: null,
    achievedSenders: 0,
    ...over,
  };
}

describe('buildCellStats of a rate cell', () => {
  const arrivals = {
    process: 'poisson' as const, ratePerSecond: 4, rampFromPerSecond: null, durationSeconds: 10, burstiness: 1,
    seed: 1, requests: 40, lagLimitMs: 10, senders: 2, warmupSeconds: 2,
  };
  const rate = planCell({ id: 'rate_u_r4', script: 'rate', concurrency: 1, arrivals });

  it("states the senders' achieved rates summed once every sender pushed its own, and the warm-up as ended", () => {
    const acc = accumulator({ id: 'rate_u_r4', okCount: 32, achievedRate: 2, achievedSenders: 1 });
    acc.excluded.warmup = 8;
    const one = buildCellStats(rate, acc, {}, DEFAULT_COST);
    expect(one.openLoop!.achievedRate).toBeNull();
    expect([one.openLoop!.ended, one.warmupRequests, one.cut]).toEqual([40, 8, 0]);
    const both = buildCellStats(rate, { ...acc, achievedRate: 3.98, achievedSenders: 2 }, {}, DEFAULT_COST);
    expect(both.openLoop!.achievedRate).toBe(3.98);
    // A measured request that never ended is cut; the warm-up's are not.
    expect(buildCellStats(rate, { ...acc, okCount: 31 }, {}, DEFAULT_COST).cut).toBe(1);
  });
});

describe('buildCellStats', () => {
  it('computes requests, success, errors, throughput and the window', () => {
    const acc = accumulator({
      id: 'sweep_c1k_o64_n2', inputTokens: 2048, outputTokens: 128, tokenSources: { usage: 2 }, okCount: 2,
      failCount: 1, goodput: { judged: 3, good: 1 }, errorsByKind: { timeout: 1 },
      errorMessages: { timeout: new Map([['read timeout', 1]]) }, failedByKind: { timeout: 1 },
      windowStartMs: 10_000, windowEndMs: 12_000,
    });
    for (const v of [100, 200]) acc.trends.ttft.push(v);
    for (const v of [1000, 2000]) acc.trends.e2e.push(v);
    const s = buildCellStats(planCell({}), acc, {}, DEFAULT_COST);
    expect(s.requests).toBe(3);
    expect(s.succeeded).toBe(2);
    // 2 users x 1 round planned, 3 reported: nothing cut; 4 planned (2 rounds): one cut.
    expect(s.cut).toBe(0);
    expect(buildCellStats(planCell({ rounds: 2 }), acc, {}, DEFAULT_COST).cut).toBe(1);
    expect(s.successRate).toBeCloseTo(2 / 3, 10);
    // 3 judged (the failure among them), 1 within every limit.
    expect(s.goodput).toBeCloseTo(1 / 3, 10);
    expect(s.errorsByKind).toEqual({ timeout: 1 });
    expect(s.metrics.ttft?.mean).toBe(150);
    expect(s.wallSeconds).toBe(2);
    // 128 output tokens over 2 s
    expect(s.throughput).toBe(64);
    expect(s.tokensPerHour).toBe(64 * 3600);
    expect(s.tokenSource).toBe('usage');
    expect(s.power).toBeNull();
    // The same requests as a search step measured twice: running 10-11 s and 13-15 s, so 128 tokens over 3 s, not 5.
    for (const end of [11_000, 15_000]) acc.requestEnds.push(end);
    const driven = { mode: 'steady' as const, search: true, startSeconds: 0, seconds: 2, measurements: 2,
      requests: { measured: 2, warmup: 0, transition: 0, cut: 0 } };
    const widened = { ...acc, windowStartMs: 10_000, windowEndMs: 15_000 };
    const pooled = buildCellStats(planCell({ driven }), widened, {}, DEFAULT_COST);
    expect([pooled.wallSeconds, pooled.throughput, pooled.measurements]).toEqual([3, 128 / 3, 2]);
    expect(s.clientBound).toBeNull();
    // Delivered load: a slot's measured requests over its wall time; none for a pooled step the bench did not count;
    // the bench's own count of every request in flight where plan.json has it.
    const inFlight = (c: typeof s) => [c.clientIntegrity?.meanInFlight, c.clientIntegrity?.inFlightCounted];
    expect(inFlight(s)).toEqual([(1000 + 2000) / 1000 / 2, 'measured requests']);
    expect(inFlight(pooled)).toEqual([null, null]);
    const counted = buildCellStats(planCell({ driven: { ...driven, inFlight: 1.96 } }), widened, {}, DEFAULT_COST);
    expect(inFlight(counted)).toEqual([1.96, 'every request']);
  });

  it('keeps a planned cell without samples, with zero requests', () => {
    const s = buildCellStats(planCell({}), undefined, {}, DEFAULT_COST);
    expect(s.requests).toBe(0);
    expect(s.successRate).toBeNull();
    expect(s.throughput).toBeNull();
    expect(s.clientBound).toBeNull();
  });
});

describe('the client-bound verdict of a cell', () => {
  it('says a cell was client-bound when the agent read tokens together, not for a late read alone', () => {
    const base = accumulator({ id: 'c', okCount: 1, windowStartMs: 0, windowEndMs: 1 });
    for (let i = 0; i < 100; i++) base.trends.itl.push(10);
    const readLag = new FloatList();
    for (let i = 0; i < 100; i++) readLag.push(i < 95 ? 0.1 : 8);
    const cpu = { cpuFirst: null, cpuLast: null };
    // Reads 8 ms late (p99) against 10 ms gaps, but no token read together: the kernel's times stand.
    const lateOnly = { ...base, ...cpu, readLag, reading: { readTogether: 0, chunked: 40, requests: 4 } };
    const late = buildCellStats(planCell({}), lateOnly, {}, DEFAULT_COST);
    expect(late.goodput, 'no request judged: no goodput').toBeNull();
    expect(late.clientBound).toBeNull();
    expect(late.clientIntegrity).toMatchObject({
      readLag: { p99: 8 }, tokensReadTogether: 0, tokensChunked: 40, itlSamples: 100, clientBound: null,
    });
    // 2 of 100 tokens read together: 2%, over the 1% limit; the server's chunked tokens are not counted against it.
    const twoTogether = { ...lateOnly, reading: { readTogether: 2, chunked: 40, requests: 4 } };
    const together = buildCellStats(planCell({}), twoTogether, {}, DEFAULT_COST);
    expect(together.clientBound).toEqual({
      agentCpuShare: null, reading: { kind: 'readTogether', share: 0.02, readLagP99Ms: 8 }, stall: null,
    });
    // The same tokens read together by a reader never late (p99 0.1 ms): the server wrote those chunks together.
    const prompt = new FloatList();
    for (let i = 0; i < 100; i++) prompt.push(0.1);
    const bunched = buildCellStats(planCell({}), { ...twoTogether, readLag: prompt }, {}, DEFAULT_COST);
    expect(bunched.clientBound).toBeNull();
    // An agent that did not count them: a read lag p99 of a whole gap may have read tokens together.
    const wholeGap = new FloatList();
    for (let i = 0; i < 100; i++) wholeGap.push(i < 95 ? 0.1 : 12);
    const old = buildCellStats(planCell({}), { ...base, ...cpu, readLag: wholeGap }, {}, DEFAULT_COST);
    expect(old.clientBound).toEqual({
      agentCpuShare: null, reading: { kind: 'readLate', readLagP99Ms: 12, itlMedianMs: 10 }, stall: null,
    });
    expect(buildCellStats(planCell({}), { ...base, ...cpu, readLag }, {}, DEFAULT_COST).clientBound).toBeNull();
  });

  it('says a cell was client-bound when the measuring agent used its cores up', () => {
    const base = accumulator({ id: 'c', okCount: 1, windowStartMs: 0, windowEndMs: 1 });
    for (let i = 0; i < 100; i++) base.trends.itl.push(10);
    // 1.9 per-core CPU seconds over 2 s of wall time: 95% of the cores.
    const busy = buildCellStats(
      planCell({}),
      { ...base, readLag: new FloatList(), cpuFirst: { atMs: 0, seconds: 1 }, cpuLast: { atMs: 2000, seconds: 2.9 } },
      {}, DEFAULT_COST,
    );
    expect(busy.clientBound?.agentCpuShare).toBeCloseTo(0.95, 9);
    expect(busy.clientBound?.reading).toBeNull();
    const calm = buildCellStats(
      planCell({}),
      { ...base, readLag: new FloatList(), cpuFirst: { atMs: 0, seconds: 1 }, cpuLast: { atMs: 2000, seconds: 1.4 } },
      {}, DEFAULT_COST,
    );
    expect(calm.clientBound).toBeNull();
  });

  it("says a cell was client-bound when 1% of its requests ran across a stall of the machine of 50 ms or more", () => {
    const base = accumulator({ id: 'c', okCount: 1, windowStartMs: 0, windowEndMs: 1 });
    const stalls = (values: number[]): FloatList => {
      const list = new FloatList();
      for (const v of values) list.push(v);
      return list;
    };
    const quiet = Array<number>(199).fill(0);
    // One request of 200 (0.5%) across a 6 s pause, and one more just under the limit: the margins hold them.
    const one = buildCellStats(planCell({}), { ...base, stall: stalls([...quiet.slice(1), 6000, 49.9]) }, {},
      DEFAULT_COST);
    expect(one.clientBound).toBeNull();
    expect(one.clientIntegrity?.stall).toEqual({ maxMs: 6000, requestsOver: 1 });
    // Two of 200 at 50 ms and over: 1%, the cell's p99 can be the pause's.
    const two = buildCellStats(planCell({}), { ...base, stall: stalls([...quiet.slice(1), 6000, 50]) }, {},
      DEFAULT_COST);
    expect(two.clientBound).toEqual({ agentCpuShare: null, reading: null, stall: { share: 0.01, longestMs: 6000 } });
    // An agent that did not say: no figure, no verdict.
    const unsaid = buildCellStats(planCell({}), base, {}, DEFAULT_COST);
    expect([unsaid.clientBound, unsaid.clientIntegrity?.stall]).toEqual([null, null]);
  });
});

describe('scaling efficiency', () => {
  it('is throughput(N) / (N x throughput(1)) within the same context and output length', () => {
    expect(scalingEfficiency(400, 4, 150)).toBeCloseTo(400 / 600, 10);
    const cells = [
      cell({ id: 'a1', script: 'sweep', contextTokens: 1024, concurrency: 1, throughput: 150 }),
      cell({ id: 'a4', script: 'sweep', contextTokens: 1024, concurrency: 4, throughput: 450 }),
      cell({ id: 'b4', script: 'sweep', contextTokens: 8192, concurrency: 4, throughput: 300 }),
    ];
    applyScalingEfficiency(cells);
    expect(cells[0]!.scalingEfficiency).toBe(1);
    expect(cells[1]!.scalingEfficiency).toBe(0.75);
    // No concurrency-1 cell at 8K: not defined.
    expect(cells[2]!.scalingEfficiency).toBeNull();
  });
});

describe('the cache hit share', () => {
  const withCache = (hits: number, misses: number, ok: number): CellAccumulator => {
    const acc = newCellAccumulator('sweep_c1k_o64_n2', {});
    for (let i = 0; i < hits; i++) acc.trends.ttftCacheHit.push(40);
    for (let i = 0; i < misses; i++) acc.trends.ttftCacheMiss.push(120);
    acc.okCount = ok;
    return acc;
  };

  it('is the requests whose usage said some prompt tokens were cached over the succeeded ones', () => {
    const s = buildCellStats(planCell({}), withCache(3, 2, 5), {}, DEFAULT_COST);
    expect(s.cacheHitShare).toBe(0.6);
    expect([s.metrics.ttftCacheHit?.p50, s.metrics.ttftCacheMiss?.p50]).toEqual([40, 120]);
    // A server that leaves cached_tokens out at 0 gives hits only: still a share of every request.
    expect(buildCellStats(planCell({}), withCache(3, 0, 5), {}, DEFAULT_COST).cacheHitShare).toBe(0.6);
  });

  it('is null when no request said how many tokens were cached', () => {
    expect(buildCellStats(planCell({}), withCache(0, 0, 5), {}, DEFAULT_COST).cacheHitShare).toBeNull();
    expect(buildCellStats(planCell({}), undefined, {}, DEFAULT_COST).cacheHitShare).toBeNull();
  });
});
