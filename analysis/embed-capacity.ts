// The embed script's capacity: per (input tokens, batch), the highest concurrency whose p99 latency holds the plan's
// limit, and the throughput there. Runs in Node; pure, from each cell's samples as the report read them.

import { percentile, sortValues } from './stats';
import { readLadder } from './capacity';

/** One embed cell's samples (report/read-samples.ts EmbedSamples) beside its plan. */
export interface EmbedCellInput {
  readonly cellId: string;
  readonly inputTokens: number;
  readonly batch: number;
  readonly concurrency: number;
  /** Each successful request's latency, ms. */
  readonly latencyMs: ArrayLike<number>;
  readonly failed: number;
  /** Inputs (rerank: documents) and input tokens the successful requests carried. */
  readonly items: number;
  readonly tokens: number;
  /** From the first request's start to the last one's end, ms; 0 without requests. */
  readonly spanMs: number;
}

export interface EmbedCellFigures {
  readonly cellId: string;
  readonly concurrency: number;
  readonly requests: number;
  readonly failed: number;
  /** Over the cell's span; null without a successful request. */
  readonly requestsPerSecond: number | null;
  readonly itemsPerSecond: number | null;
  readonly tokensPerSecond: number | null;
  readonly latencyP50Ms: number | null;
  readonly latencyP99Ms: number | null;
  /** Every request succeeded and the p99 latency is at most the limit. */
  readonly withinLimit: boolean;
}

export interface EmbedThroughput {
  readonly concurrency: number;
  readonly requestsPerSecond: number;
  readonly itemsPerSecond: number;
  readonly tokensPerSecond: number;
}

export interface EmbedCapacity {
  readonly inputTokens: number;
  readonly batch: number;
  readonly limitMs: number;
  /** By concurrency, ascending. */
  readonly cells: readonly EmbedCellFigures[];
  /** The highest concurrency within the limit below the first that is not; null when the lowest already breaks it. */
  readonly capacity: EmbedThroughput | null;
  /** The lowest concurrency that broke the limit; null when every one held (the capacity is then "at least"). */
  readonly brokenAt: number | null;
}

/** One cell's throughput, latency and verdict. */
export function embedCellFigures(c: EmbedCellInput, limitMs: number): EmbedCellFigures {
  const ok = c.latencyMs.length;
  const sorted = sortValues(c.latencyMs);
  const seconds = c.spanMs / 1000;
  const rate = (n: number): number | null => (ok > 0 && seconds > 0 ? n / seconds : null);
  const p99 = ok > 0 ? percentile(sorted, 0.99) : null;
  return {
    cellId: c.cellId, concurrency: c.concurrency, requests: ok + c.failed, failed: c.failed,
    requestsPerSecond: rate(ok), itemsPerSecond: rate(c.items), tokensPerSecond: rate(c.tokens),
    latencyP50Ms: ok > 0 ? percentile(sorted, 0.5) : null, latencyP99Ms: p99,
    withinLimit: ok > 0 && c.failed === 0 && p99! <= limitMs,
  };
}

/**
 * Groups the cells by (input tokens, batch) and reads each ladder as every ladder is read (capacity.ts readLadder):
 * the capacity is the last concurrency that held before the first that broke; a cell above the first break that held
 * again is left as measured in the table, not taken as capacity.
 */
export function embedCapacities(cells: readonly EmbedCellInput[], limitMs: number): EmbedCapacity[] {
  const groups = new Map<string, EmbedCellInput[]>();
  for (const c of cells) {
    const key = `${c.inputTokens}/${c.batch}`;
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  return [...groups.values()].map((group) => {
    const figures = [...group].sort((a, b) => a.concurrency - b.concurrency).map((c) => embedCellFigures(c, limitMs));
    const { lastHeld: top, firstBroken } = readLadder(figures, (f) => f.withinLimit);
    return {
      inputTokens: group[0]!.inputTokens, batch: group[0]!.batch, limitMs, cells: figures,
      capacity: top && top.requestsPerSecond !== null
        ? {
            concurrency: top.concurrency, requestsPerSecond: top.requestsPerSecond, itemsPerSecond: top.itemsPerSecond!,
            tokensPerSecond: top.tokensPerSecond!,
          }
        : null,
      brokenAt: firstBroken?.concurrency ?? null,
    };
  });
}
