// Per-cell statistics, from requests and errors to server and power figures. Runs in Node.
// They are requests, success, errors, latency distributions, speeds, throughput, efficiency, server and power figures.
//
// Formulas (docs/design/architecture.md, "Measurement definitions"):
//   system throughput = output tokens / cell wall time (first request start to last request end), tok/s
//   tokens per hour   = throughput x 3600
//   scaling efficiency = throughput(N) / (N x throughput(1)), same part, context and output length
//   goodput            = requests within every limit of the cell's use case / requests judged (llm_goodput)

import { cellRequests, type Cell } from '../lib/plan';
import type { ServerMetricKey } from '../lib/metrics';
import { clientIntegrity, type ClientIntegrity } from './client-integrity';
import type { ClientBoundCause } from './client-bound';
import type { Series } from './server-metrics';
import type { CellAccumulator, TrendKey } from './cell-accumulator';
import { TREND_KEYS } from './cell-accumulator';
import { summarize, type Distribution } from './stats';
import { spanUnionMs, type Span } from '../lib/span-union';
import { serverFigures, type OwnRequests, type ServerFigures } from './server-metrics';
import { powerFigures, type CostOptions, type PowerFigures } from './power';
import { openLoopStats, queueGrowth, type OpenLoopStats } from './open-loop';
import { sessionCellStats, type SessionCellStats } from './sessions';
import { ownPeriods, type RequestSpans, type SpanIndex } from './request-spans';

/** The plan's description of a cell (its part, lengths, concurrency, use case), plus what was measured. */
export interface CellStats extends Pick<
  Cell,
  'id' | 'script' | 'contextTokens' | 'outputTokens' | 'concurrency' | 'rounds' | 'useCase' | 'profile'
> {
  /** Requests that reported an outcome (llm_request_ok samples). */
  readonly requests: number;
  readonly succeeded: number;
  readonly failed: number;
  /**
   * Planned requests of a cell that ran but never ended: cut by the end of its slot or by Ctrl-C (neither measured
   * nor failed).
   */
  readonly cut: number;
  /** Requests left out of the statistics: warm-up of added users, and requests that ran across a step's end. */
  readonly warmupRequests: number;
  readonly transitionRequests: number;
  /**
   * rounds: N users x rounds, all measured; steady: N users in steady state, warm-up left out; search: a steady step
   * chosen by the capacity search.
   */
  readonly measurement: 'rounds' | 'steady' | 'search';
  /** How many times the step was measured: the capacity search measures a step again while its verdict is unclear. */
  readonly measurements: number;
  /** succeeded / requests; null with no requests. */
  readonly successRate: number | null;
  /**
   * The share of the judged requests that met every limit of the cell's use case on their own figures (a failed
   * request counts as not good): llm_goodput's rate; null when no request was judged (a cell without a use case).
   */
  readonly goodput: number | null;
  /** Requests judged for goodput (the denominator of `goodput`). */
  readonly goodputJudged: number;
  readonly errorsByKind: Readonly<Record<string, number>>;
  /**
   * Per error kind, the most frequent server error messages (top ERROR_MESSAGES_SHOWN), most frequent first.
   * Untrusted text.
   */
  readonly errorMessages: Readonly<Record<string, readonly ErrorMessageCount[]>>;
  /** Distributions in ms (times) or tok/s (speeds); null when the metric has no samples. */
  readonly metrics: Readonly<Record<TrendKey, Distribution | null>>;
  readonly inputTokensTotal: number;
  readonly outputTokensTotal: number;
  /** Prompt and output tokens per request as the server counted them; null without samples. */
  readonly lengths: { readonly input: Distribution | null; readonly output: Distribution | null };
  /** Prompt tokens served from the server's prefix cache, over the requests that said; null when none said. */
  readonly cachedTokensTotal: number | null;
  /** Thinking tokens per request that said (a reasoning model), the mean; null when none said. */
  readonly reasoningTokensPerRequest: number | null;
  /**
   * The share of the succeeded requests whose usage said the prefix cache served part of their prompt (the
   * llm_ttft_cache_hit samples / succeeded); null when no request's usage said how many tokens were cached.
   */
  readonly cacheHitShare: number | null;
  /** Where output token counts came from: "usage", "chunks" or "mixed"; null without samples. */
  readonly tokenSource: string | null;
  readonly windowStartMs: number | null;
  readonly windowEndMs: number | null;
  readonly wallSeconds: number | null;
  /** Output tokens per second over the cell's wall time. */
  readonly throughput: number | null;
  readonly tokensPerHour: number | null;
  /** Filled by applyScalingEfficiency; 0..1. */
  scalingEfficiency: number | null;
  readonly server: ServerFigures | null;
  readonly power: PowerFigures | null;
  /**
   * Why the client, not the server, limited this cell (analysis/client-bound.ts), or null. A client-bound cell is no
   * measurement of the server: no capacity stands on it (analysis/capacity.ts).
   */
  readonly clientBound: ClientBoundCause | null;
  /** What the client did and delivered in this cell (analysis/client-integrity.ts); null when it never ran. */
  readonly clientIntegrity: ClientIntegrity | null;
  /** A sessions step's requests in flight and turns (analysis/sessions.ts); null for other cells. */
  readonly sessions: SessionCellStats | null;
  /** A rate cell's schedule against what its sender did (analysis/open-loop.ts); null for closed-loop cells. */
  readonly openLoop: OpenLoopStats | null;
}

export interface ErrorMessageCount {
  readonly message: string;
  readonly count: number;
}

/** How many messages per cell and error kind the report shows. */
export const ERROR_MESSAGES_SHOWN = 3;

/** The top messages per kind: by count, then by text, so the order is stable. */
export function topErrorMessages(
  byKind: Readonly<Record<string, ReadonlyMap<string, number>>>, n = ERROR_MESSAGES_SHOWN,
): Record<string, ErrorMessageCount[]> {
  const out: Record<string, ErrorMessageCount[]> = {};
  for (const kind of Object.keys(byKind).sort()) {
    const list = [...byKind[kind]!].map(([message, count]) => ({ message, count }));
    list.sort((a, b) => b.count - a.count || (a.message < b.message ? -1 : a.message > b.message ? 1 : 0));
    if (list.length > 0) out[kind] = list.slice(0, n);
  }
  return out;
}

function tokenSourceOf(sources: Readonly<Record<string, number>>): string | null {
  const keys = Object.keys(sources).filter((k) => (sources[k] ?? 0) > 0);
  if (keys.length === 0) return null;
  if (keys.length === 1) return keys[0]!;
  return 'mixed';
}

/** The cell's measured requests as the server's histograms count them: one each, and one per token gap. */
function ownRequests(
  window: { startMs: number; endMs: number }, succeeded: number, acc: CellAccumulator, part: PartRequests,
): OwnRequests {
  const periods = ownPeriods(acc.trends.e2e.values(), acc.requestEnds.values(), part.index);
  return { window, requests: succeeded, tokenGaps: acc.trends.itl.length, periods };
}

/** Every request of a cell's part: when each ran (sessions' requests in flight) and an index of them. */
export interface PartRequests {
  readonly spans: RequestSpans;
  readonly index: SpanIndex;
}

/** From the cell's first request's start to its last one's end; null when none ran. */
function requestWindow(acc: CellAccumulator | undefined): { startMs: number; endMs: number } | null {
  const hasWindow = acc !== undefined && isFinite(acc.windowStartMs) && isFinite(acc.windowEndMs) &&
    acc.windowEndMs > acc.windowStartMs;
  return hasWindow ? { startMs: acc.windowStartMs, endMs: acc.windowEndMs } : null;
}

/** The cell's wall time: its window, or for a step the search measured more than once, the time it had requests. */
function cellWallSeconds(
  cell: Cell, acc: CellAccumulator | undefined, window: { startMs: number; endMs: number } | null,
): number | null {
  if (!window) return null;
  // A step measured more than once ran in separate periods: its wall time leaves out the gaps between.
  const pooled = (cell.driven?.measurements ?? 1) > 1 && acc !== undefined;
  if (pooled) return busyMs(acc.trends.e2e.values(), acc.requestEnds.values()) / 1000;
  return (window.endMs - window.startMs) / 1000;
}

/**
 * Builds a cell's statistics from its plan entry and what the CSV held for it (acc may be undefined
 * when the cell never ran, e.g. an interrupted run: the cell is kept with zero requests).
 */
export function buildCellStats(
  cell: Cell, acc: CellAccumulator | undefined, monitor: Partial<Record<ServerMetricKey, Series>>, cost: CostOptions,
  monitorIntervalMs = 1000, part: PartRequests | null = null,
): CellStats {
  const metrics = {} as Record<TrendKey, Distribution | null>;
  for (const k of TREND_KEYS) metrics[k] = acc ? summarize(acc.trends[k].sorted()) : null;
  const [ok, fail] = [acc?.okCount ?? 0, acc?.failCount ?? 0];
  // Requests that never reported llm_request_ok but did report e2e still count as requests.
  const requests = Math.max(ok + fail, metrics.e2e?.count ?? 0);
  const succeeded = ok + fail === 0 ? requests : ok;
  const errorsByKind = acc && Object.keys(acc.errorsByKind).length > 0 ? acc.errorsByKind : (acc?.failedByKind ?? {});
  const window = requestWindow(acc);
  const wallSeconds = cellWallSeconds(cell, acc, window);
  const outputTokensTotal = acc?.outputTokens ?? 0;
  const throughput = wallSeconds && wallSeconds > 0 ? outputTokensTotal / wallSeconds : null;
  const { id, script, contextTokens, outputTokens, concurrency, rounds, useCase, profile } = cell;
  const requestsCut = cutRequests(cell, requests, acc?.excluded.warmup ?? 0);
  const counts = { requests, succeeded, cut: requestsCut, wallSeconds };
  const { openLoop, integrity } = clientFigures(cell, acc, metrics, counts);
  return {
    id, script, contextTokens, outputTokens, concurrency, rounds, useCase, profile,
    requests,
    succeeded,
    failed: requests - succeeded,
    cut: requestsCut,
    ...measurementOf(cell, acc),
    successRate: requests > 0 ? succeeded / requests : null,
    goodput: acc && acc.goodput.judged > 0 ? acc.goodput.good / acc.goodput.judged : null,
    goodputJudged: acc?.goodput.judged ?? 0,
    errorsByKind,
    errorMessages: acc ? topErrorMessages(acc.errorMessages) : {},
    metrics,
    inputTokensTotal: acc?.inputTokens ?? 0,
    outputTokensTotal,
    ...sentTokens(acc),
    cacheHitShare: cacheHitShare(metrics, succeeded),
    tokenSource: acc ? tokenSourceOf(acc.tokenSources) : null,
    windowStartMs: window?.startMs ?? null,
    windowEndMs: window?.endMs ?? null,
    wallSeconds,
    throughput,
    tokensPerHour: throughput === null ? null : throughput * 3600,
    scalingEfficiency: null,
    // Gauges: the nearest sample for a cell shorter than the scrape interval; histograms: the cell's own requests.
    server: window && acc && part
      ? serverFigures(monitor, ownRequests(window, succeeded, acc, part), part.index, monitorIntervalMs)
      : null,
    power: window
      ? powerFigures(monitor.powerWatts, window, outputTokensTotal, throughput ?? 0, cost, monitorIntervalMs)
      : null,
    clientBound: integrity?.clientBound ?? null,
    clientIntegrity: integrity,
    sessions: acc?.sessions ? sessionCellStats(acc.sessions, part?.spans ?? null, window) : null,
    openLoop,
  };
}

/** How the cell was measured, and the requests its statistics leave out. */
function measurementOf(cell: Cell, acc: CellAccumulator | undefined): Pick<CellStats,
  'warmupRequests' | 'transitionRequests' | 'measurement' | 'measurements'> {
  return {
    warmupRequests: acc?.excluded.warmup ?? 0,
    transitionRequests: acc?.excluded.transition ?? 0,
    measurement: cell.driven ? (cell.driven.search ? 'search' : cell.driven.mode)
      : cell.warmupRounds > 0 ? 'steady' : 'rounds',
    measurements: cell.driven?.measurements ?? 1,
  };
}

/**
 * Hits over succeeded requests, not over hits and misses: a server that leaves cached_tokens out at 0 (vLLM before
 * 0.32) gives no miss samples, and its hits are still a share of every request.
 */
function cacheHitShare(metrics: Record<TrendKey, Distribution | null>, succeeded: number): number | null {
  const hits = metrics.ttftCacheHit?.count ?? 0;
  if (hits + (metrics.ttftCacheMiss?.count ?? 0) === 0 || succeeded === 0) return null;
  return Math.min(1, hits / succeeded);
}

/** Prompt and output tokens per request as the server counted them, and those it served from its prefix cache. */
function sentTokens(
  acc: CellAccumulator | undefined,
): Pick<CellStats, 'lengths' | 'cachedTokensTotal' | 'reasoningTokensPerRequest'> {
  return {
    lengths: {
      input: acc ? summarize(acc.inputLengths.sorted()) : null,
      output: acc ? summarize(acc.outputLengths.sorted()) : null,
    },
    cachedTokensTotal: acc && acc.cachedReported > 0 ? acc.cachedTokens : null,
    reasoningTokensPerRequest: acc && acc.reasoningReported > 0 ? acc.reasoningTokens / acc.reasoningReported : null,
  };
}

/**
 * Planned requests of a cell that ran but never ended (see CellStats.cut). A rate cell's warm-up is the requests
 * that ended in it (its schedule's first seconds), a closed loop's its users' first rounds.
 */
function cutRequests(cell: Cell, requests: number, warmupEnded: number): number {
  if (cell.driven) return cell.driven.requests.cut;
  const warmup = cell.arrivals ? warmupEnded : cell.concurrency * cell.warmupRounds;
  return requests > 0 ? Math.max(0, cellRequests(cell) - warmup - requests) : 0;
}

/** A rate cell's achieved rate: its senders' summed, once every sender pushed its share's; null before. */
function cellAchievedRate(cell: Cell, acc: CellAccumulator | undefined): number | null {
  if (!acc || acc.achievedRate === null) return null;
  return acc.achievedSenders >= (cell.arrivals?.senders ?? 1) ? acc.achievedRate : null;
}

/** The group a cell's efficiency is measured within: same part, context, output length and profile. */
function scalingGroup(c: CellStats): string {
  return `${c.script}|${c.contextTokens}|${c.outputTokens}|${c.profile ?? ''}|${c.useCase ?? ''}`;
}

/** Time with at least one of the requests running (the union of their [end - e2e, end] spans), ms. */
export function busyMs(e2e: ArrayLike<number>, ends: ArrayLike<number>): number {
  const count = Math.min(e2e.length, ends.length);
  return spanUnionMs(Array.from({ length: count }, (_, i): Span => [ends[i]! - e2e[i]!, ends[i]!]));
}

/**
 * scaling efficiency = throughput(N) / (N x throughput(1)) against the concurrency-1 cell of the
 * same group; null when the group has no concurrency-1 cell with a throughput.
 */
export function scalingEfficiency(throughputN: number, n: number, throughput1: number): number {
  return throughputN / (n * throughput1);
}

export function applyScalingEfficiency(cells: CellStats[]): void {
  const base = new Map<string, number>();
  for (const c of cells) {
    if (c.concurrency === 1 && c.throughput !== null && c.throughput > 0) base.set(scalingGroup(c), c.throughput);
  }
  for (const c of cells) {
    const t1 = base.get(scalingGroup(c));
    c.scalingEfficiency = t1 !== undefined && c.throughput !== null
      ? scalingEfficiency(c.throughput, c.concurrency, t1)
      : null;
  }
}

/** What the client did in a cell: a rate cell's sender against its schedule, and the cell's client integrity. */
function clientFigures(
  cell: Cell, acc: CellAccumulator | undefined, metrics: Record<TrendKey, Distribution | null>,
  counts: { requests: number; succeeded: number; cut: number; wallSeconds: number | null },
): { openLoop: OpenLoopStats | null; integrity: ClientIntegrity | null } {
  const openLoop = cell.arrivals
    ? openLoopStats(
      // Ended: the measured requests and the warm-up's, of the one schedule.
      cell.arrivals, metrics.scheduleLag, cellAchievedRate(cell, acc), counts.requests + (acc?.excluded.warmup ?? 0),
      acc ? queueGrowth(acc.trends.e2eIntended.values()) : null,
    )
    : null;
  const integrity = clientIntegrity(acc, {
    concurrency: cell.concurrency, failed: counts.requests - counts.succeeded, cut: counts.cut,
    wallSeconds: counts.wallSeconds, itl: metrics.itl, openLoop, pooled: (cell.driven?.measurements ?? 1) > 1,
    drivenInFlight: cell.driven?.inFlight ?? null,
  });
  return { openLoop, integrity };
}
