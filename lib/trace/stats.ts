// Summary figures of a trace or a selection: size, pace, burstiness, lengths, prefix reuse, conversations.
// Runs in k6 and Node (pure).

import { k6Percentile } from '../percentile';
import type { TraceRow } from './types';

/** Percentiles as k6 computes a Trend's (lib/percentile.ts: linear between closest ranks), so they read alike. */
export interface LengthStats {
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
}

export interface TraceStats {
  readonly rows: number;
  /** Last row's time minus the first's, ms. */
  readonly durationMs: number;
  /** Requests per second: (rows - 1) / duration, the inverse of the mean gap; null when all rows share one time. */
  readonly meanRatePerSecond: number | null;
  /**
   * Coefficient of variation of the gaps between consecutive rows: population standard deviation / mean. 0 for evenly
   * spaced rows, 1 for a Poisson process (vLLM's burstiness b gives 1/sqrt(b)); null below 2 gaps or a mean gap of 0.
   */
  readonly gapCv: number | null;
  readonly inputTokens: LengthStats | null;
  readonly outputTokens: LengthStats | null;
  /**
   * Prompt tokens in blocks an earlier row already had, over the rows with hash_ids: for each row, the count k of
   * its leading hash ids seen in any earlier row, shared = min(k x blockTokens, inputTokens); share = sum of shared
   * / sum of inputTokens. The traces chain each block's hash to the blocks before it, so this is the longest prefix
   * a perfect prefix cache could have served. Null when no row has hash_ids.
   */
  readonly prefix: { readonly sharedTokens: number; readonly promptTokens: number; readonly share: number } | null;
  /**
   * Bailian: conversations (turns linked by parentChatId back to one first turn) and turns per conversation. Null when
   * no row has a chat id.
   */
  readonly conversations: { readonly count: number; readonly meanTurns: number; readonly maxTurns: number } | null;
}

/** The figures of the rows, which are in time order (as loadTrace and selectRows give them). */
export function traceStats(rows: readonly TraceRow[]): TraceStats {
  const times = Float64Array.from(rows, (r) => r.timestampMs).sort();
  const durationMs = rows.length === 0 ? 0 : times[times.length - 1]! - times[0]!;
  return {
    rows: rows.length,
    durationMs,
    meanRatePerSecond: durationMs > 0 ? (rows.length - 1) / (durationMs / 1000) : null,
    gapCv: gapCv(times),
    inputTokens: lengthStats(rows.map((r) => r.inputTokens)),
    outputTokens: lengthStats(rows.map((r) => r.outputTokens)),
    prefix: prefixShare(rows),
    conversations: conversations(rows),
  };
}

function gapCv(times: Float64Array): number | null {
  const n = times.length - 1;
  if (n < 2) return null;
  let sum = 0;
  for (let i = 1; i < times.length; i++) sum += times[i]! - times[i - 1]!;
  const mean = sum / n;
  if (mean === 0) return null;
  let squares = 0;
  for (let i = 1; i < times.length; i++) squares += (times[i]! - times[i - 1]! - mean) ** 2;
  return Math.sqrt(squares / n) / mean;
}

function lengthStats(values: readonly number[]): LengthStats | null {
  if (values.length === 0) return null;
  const sorted = Float64Array.from(values).sort();
  const at = (p: number): number => k6Percentile(sorted, sorted.length, p);
  return { p50: at(0.5), p90: at(0.9), p99: at(0.99), max: sorted[sorted.length - 1]! };
}

function prefixShare(rows: readonly TraceRow[]): TraceStats['prefix'] {
  const seen = new Set<number>();
  let sharedTokens = 0;
  let promptTokens = 0;
  let any = false;
  for (const r of rows) {
    if (r.hashIds === null || r.blockTokens === null) continue;
    any = true;
    let k = 0;
    while (k < r.hashIds.length && seen.has(r.hashIds[k]!)) k++;
    // The last block of a prompt may be partial: never count more tokens than the prompt has.
    sharedTokens += Math.min(k * r.blockTokens, r.inputTokens);
    promptTokens += r.inputTokens;
    for (const id of r.hashIds) seen.add(id);
  }
  return any ? { sharedTokens, promptTokens, share: promptTokens === 0 ? 0 : sharedTokens / promptTokens } : null;
}

function conversations(rows: readonly TraceRow[]): TraceStats['conversations'] {
  const rootOf = new Map<string, string>();
  const turns = new Map<string, number>();
  for (const r of rows) {
    if (r.chatId === null) continue;
    // A turn whose parent is not among the rows starts its own group under the parent's id.
    const root = r.parentChatId === null ? r.chatId : (rootOf.get(r.parentChatId) ?? r.parentChatId);
    rootOf.set(r.chatId, root);
    turns.set(root, (turns.get(root) ?? 0) + 1);
  }
  if (turns.size === 0) return null;
  let max = 0;
  for (const n of turns.values()) max = Math.max(max, n);
  return { count: turns.size, meanTurns: rootOf.size / turns.size, maxTurns: max };
}
