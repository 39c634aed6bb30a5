// The per-request figures, defined once for TypeScript (docs/reference/metrics.md): the virtual engine (whatif/), the
// simulator's virtual runs (sim/virtual-run.ts), the accuracy judge's ground truth (bench/accuracy-judge.ts) and the
// benches compute them here. The measuring agent computes the same figures in Go (agent/tokens.go, agent/slo.go):
// test/fixtures/request-figures.json pins both to the same values, edge cases included.
// Pure. Runs in k6 and Node.

import { compare } from './threshold-grammar';
import type { UseCaseLimit } from '../thresholds/use-cases';

/**
 * TPOT, ms: (e2e - ttft) / (outputTokens - 1). Null below 2 output tokens: a one-token answer has no token after
 * the first to divide the decode time by. 0 when every token arrived at once (a tie of e2e and TTFT).
 */
export function timePerOutputTokenMs(e2eMs: number, ttftMs: number, outputTokens: number): number | null {
  return outputTokens < 2 ? null : (e2eMs - ttftMs) / (outputTokens - 1);
}

/**
 * Per-user decode speed, tokens/s: (outputTokens - 1) / (e2e - ttft). Null below 2 output tokens (no interval: a
 * one-token answer is not infinitely fast, nor 0 tokens/s) and when the decode time is not positive (every token
 * arrived with the first: a speed with nothing to divide by).
 */
export function decodeTokensPerSecond(e2eMs: number, ttftMs: number, outputTokens: number): number | null {
  const decodeMs = e2eMs - ttftMs;
  return outputTokens < 2 || decodeMs <= 0 ? null : ((outputTokens - 1) * 1000) / decodeMs;
}

/** Per-user prefill speed, tokens/s: inputTokens / ttft (queue wait included, as a user sees it); null without both. */
export function prefillTokensPerSecond(inputTokens: number, ttftMs: number): number | null {
  return inputTokens <= 0 || ttftMs <= 0 ? null : (inputTokens * 1000) / ttftMs;
}

/**
 * One inter-token latency per token after the first, from the arrival of each token-bearing chunk and the tokens it
 * carried. A chunk of k tokens that came g ms after the previous one gives k samples of g / k: its gap is spread over
 * its tokens. The first chunk's delay is TTFT, not ITL; its extra tokens came with the first and count 0 ms.
 */
export function interTokenLatenciesMs(arrivalsMs: readonly number[], tokensPerChunk: readonly number[]): number[] {
  const out: number[] = [];
  arrivalsMs.forEach((at, i) => {
    const k = tokensPerChunk[i]!;
    const gap = i === 0 ? 0 : at - arrivalsMs[i - 1]!;
    for (let j = i === 0 ? 1 : 0; j < k; j++) out.push(gap / k);
  });
  return out;
}

/** The mean of a request's inter-token latencies (what an ITL limit is judged on); null without any. */
export function meanItlMs(itlMs: readonly number[]): number | null {
  return itlMs.length === 0 ? null : itlMs.reduce((s, x) => s + x, 0) / itlMs.length;
}

/** Tokens that arrived together: one chunk. */
export interface TokenChunk {
  readonly atMs: number;
  readonly tokens: number;
}

/** Per-token write times (a multi-token chunk gives its tokens one time, as the simulator's truth) as chunks. */
export function chunksOfTokenTimes(tokenMs: readonly number[]): TokenChunk[] {
  const out: { atMs: number; tokens: number }[] = [];
  for (const at of tokenMs) {
    const last = out[out.length - 1];
    if (last && last.atMs === at) last.tokens++;
    else out.push({ atMs: at, tokens: 1 });
  }
  return out;
}

/** A completed request's own figures; null where the request has none. */
export interface RequestFigures {
  readonly ttftMs: number;
  /** Time to the first content token; null when none came. */
  readonly ttfcMs: number | null;
  readonly e2eMs: number;
  readonly itlMs: readonly number[];
  readonly tpotMs: number | null;
  readonly decodeTokensPerSecond: number | null;
}

/** A request as its times give it: start, each token-bearing chunk, end; ms on one clock. */
export interface TimedRequest {
  readonly startMs: number;
  readonly chunks: readonly TokenChunk[];
  readonly endMs: number;
  readonly inputTokens: number;
}

/** Every figure of a completed request from its times; null for one without a token (it failed: no_tokens). */
export function requestFigures(
  r: TimedRequest,
): (RequestFigures & { readonly outputTokens: number; readonly prefillTokensPerSecond: number | null }) | null {
  if (r.chunks.length === 0) return null;
  const outputTokens = r.chunks.reduce((s, c) => s + c.tokens, 0);
  const ttftMs = r.chunks[0]!.atMs - r.startMs;
  const e2eMs = r.endMs - r.startMs;
  return {
    ttftMs, ttfcMs: ttftMs, e2eMs, outputTokens,
    itlMs: interTokenLatenciesMs(r.chunks.map((c) => c.atMs), r.chunks.map((c) => c.tokens)),
    tpotMs: timePerOutputTokenMs(e2eMs, ttftMs, outputTokens),
    decodeTokensPerSecond: decodeTokensPerSecond(e2eMs, ttftMs, outputTokens),
    prefillTokensPerSecond: prefillTokensPerSecond(r.inputTokens, ttftMs),
  };
}

/** The figures a limit is judged on, one number per metric (null where the request has none). */
export interface LimitFigures {
  readonly ttftMs: number;
  readonly ttfcMs: number | null;
  readonly e2eMs: number;
  readonly tpotMs: number | null;
  readonly decodeTokensPerSecond: number | null;
  /** The mean of the request's inter-token latencies. */
  readonly itlMeanMs: number | null;
}

type Limit = Pick<UseCaseLimit, 'metric' | 'operator' | 'value'>;

/**
 * Goodput: whether the request met every limit on its own figures (agent/slo.go judgeGoodput). A failed request
 * (null figures) is not good. ITL is judged on the request's mean ITL; a figure the request does not have is not
 * judged, as it gives the cell's figure no sample either. A figure equal to its limit holds for <= and >= only.
 */
export function judgeGoodput(r: RequestFigures | null, limits: readonly Limit[]): boolean {
  if (r === null) return false;
  const figures = { ...r, itlMeanMs: meanItlMs(r.itlMs) };
  return limits.every((l) => {
    const v = limitValue(figures, l.metric);
    return v === null || compare(v, l.operator, l.value);
  });
}

/** The per-request value of a limit's metric, as the suite measures it (lib/record.ts, agent/slo.go). */
export function limitValue(r: LimitFigures, metric: UseCaseLimit['metric']): number | null {
  switch (metric) {
    case 'ttft':
      return r.ttftMs;
    case 'ttfc':
      return r.ttfcMs;
    case 'e2e':
      return r.e2eMs;
    case 'tpot':
      return r.tpotMs;
    case 'decodeSpeed':
      return r.decodeTokensPerSecond;
    case 'itl':
      return r.itlMeanMs;
  }
}
