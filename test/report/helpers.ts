// Test helpers: hand-made CellStats with known figures. Runs in Node (vitest).
import type { CellStats } from '../../analysis/cells';
import type { Distribution } from '../../analysis/stats';
import { TREND_KEYS, type TrendKey } from '../../analysis/cell-accumulator';

/** A distribution whose every statistic equals v (so avg, med and p(95) all read v). */
export function flat(v: number, count = 10): Distribution {
  return { count, mean: v, min: v, max: v, p50: v, p90: v, p95: v, p99: v };
}

export function cell(
  over: Partial<Omit<CellStats, 'metrics'>> & { metrics?: Partial<Record<TrendKey, Distribution | null>> },
): CellStats {
  const metrics = {} as Record<TrendKey, Distribution | null>;
  for (const k of TREND_KEYS) metrics[k] = over.metrics?.[k] ?? null;
  const n = over.concurrency ?? 1;
  return {
    id: over.id ?? `c_n${n}`,
    script: over.script ?? 'capacity',
    contextTokens: over.contextTokens ?? 32768,
    outputTokens: over.outputTokens ?? 1024,
    concurrency: n,
    rounds: 1,
    useCase: over.useCase ?? null,
    profile: over.profile ?? null,
    requests: over.requests ?? 10,
    succeeded: over.succeeded ?? over.requests ?? 10,
    failed: over.failed ?? 0,
    cut: over.cut ?? 0,
    warmupRequests: over.warmupRequests ?? 0,
    transitionRequests: over.transitionRequests ?? 0,
    measurement: over.measurement ?? 'rounds',
    measurements: over.measurements ?? 1,
    successRate: over.successRate === undefined ? 1 : over.successRate,
    goodput: over.goodput === undefined ? null : over.goodput,
    goodputJudged: over.goodputJudged ?? (over.goodput == null ? 0 : over.requests ?? 10),
    errorsByKind: over.errorsByKind ?? {},
    errorMessages: over.errorMessages ?? {},
    metrics,
    inputTokensTotal: over.inputTokensTotal ?? 0,
    outputTokensTotal: over.outputTokensTotal ?? 0,
    lengths: over.lengths ?? { input: null, output: null },
    cachedTokensTotal: over.cachedTokensTotal ?? null,
    reasoningTokensPerRequest: over.reasoningTokensPerRequest ?? null,
    cacheHitShare: over.cacheHitShare ?? null,
    tokenSource: 'usage',
    windowStartMs: 0,
    windowEndMs: 1000,
    wallSeconds: over.wallSeconds ?? 1,
    throughput: over.throughput === undefined ? 100 : over.throughput,
    tokensPerHour: over.throughput === undefined ? 360000 : over.throughput === null ? null : over.throughput * 3600,
    scalingEfficiency: null,
    server: over.server ?? null,
    power: over.power ?? null,
    clientBound: over.clientBound ?? null,
    clientIntegrity: over.clientIntegrity ?? null,
    sessions: over.sessions ?? null,
    openLoop: over.openLoop ?? null,
  };
}
