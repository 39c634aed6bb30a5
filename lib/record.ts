// The per-request record and the pure formulas that derive its figures (docs/architecture.md, "Measurement definitions"). Runs in k6 and Node.

/** Why a request failed; becomes the error_kind tag of llm_errors. */
export const ERROR_KINDS = [
  'connection', // no HTTP response at all (refused, reset before headers, DNS)
  'timeout', // the whole-request timeout fired
  'connect_timeout', // no connection within target.connectTimeoutSeconds (k6/x/llm)
  'ttfb_timeout', // no response head within target.firstByteTimeoutSeconds (k6/x/llm)
  'stalled', // no byte for target.idleTimeoutSeconds while the stream was open (k6/x/llm)
  'http_429', // the server refused for load
  'http_4xx', // any other client error status
  'http_5xx', // server error status
  'http_other', // a status that is neither 2xx nor an error class (1xx, 3xx)
  'server_error', // an error object inside a 200 stream, or a non-SSE error body (k6/x/sse: "unknown event: {...}")
  'malformed_chunk', // a data line that is not JSON
  'truncated', // the stream ended with neither finish_reason nor [DONE]
  'no_tokens', // the stream completed without a single generated token
  'stream_error', // the transport reported an error mid-stream (connection reset, read error)
] as const;
export type ErrorKind = (typeof ERROR_KINDS)[number];

/** Where the output token count came from: the server's usage object, or counting delta chunks (less exact). */
export type TokenSource = 'usage' | 'chunks';

interface RecordBase {
  /** HTTP status; 0 when no response arrived. */
  readonly status: number;
  /** Request start and stream end, ms on the run's clock (exec.instance.currentTestRunDuration). */
  readonly startMs: number;
  readonly endMs: number;
  readonly requestedInputTokens: number;
  readonly requestedOutputTokens: number;
  /** SSE events seen, including role-only, usage and [DONE]. */
  readonly events: number;
}

export interface CompletedRecord extends RecordBase {
  readonly outcome: 'completed';
  /** usage.prompt_tokens, else the requested length (inputTokenSource says which). */
  readonly inputTokens: number;
  readonly inputTokenSource: 'usage' | 'requested';
  readonly outputTokens: number;
  readonly outputTokenSource: TokenSource;
  readonly ttftMs: number;
  /** Time to the first content token; null when no content arrived (reasoning or tool calls only). */
  readonly ttfcMs: number | null;
  readonly e2eMs: number;
  /** One value per generated token after the first (length outputTokens - 1). */
  readonly itlMs: readonly number[];
  /** Null for fewer than 2 output tokens. */
  readonly tpotMs: number | null;
  readonly decodeTokensPerSecond: number | null;
  readonly prefillTokensPerSecond: number | null;
  readonly finishReason: string | null;
  /** Whether the stream ended with data: [DONE]. */
  readonly sawDone: boolean;
}

export interface ErroredRecord extends RecordBase {
  readonly outcome: 'errored';
  readonly errorKind: ErrorKind;
  /** Short message for logs; never contains the API key (requests carry it only in a header). */
  readonly errorMessage: string;
  /** Tokens that did arrive before the failure (not used for latency figures). */
  readonly outputTokensSeen: number;
}

export type RequestRecord = CompletedRecord | ErroredRecord;

/** TPOT in ms: (e2e - ttft) / (outputTokens - 1); null for fewer than 2 tokens (undefined, as in GuideLLM). */
export function timePerOutputTokenMs(e2eMs: number, ttftMs: number, outputTokens: number): number | null {
  if (outputTokens < 2) return null;
  return (e2eMs - ttftMs) / (outputTokens - 1);
}

/** Per-user decode speed in tokens/s: (outputTokens - 1) / (e2e - ttft); null when undefined. */
export function decodeTokensPerSecond(e2eMs: number, ttftMs: number, outputTokens: number): number | null {
  const decodeMs = e2eMs - ttftMs;
  if (outputTokens < 2 || decodeMs <= 0) return null;
  return ((outputTokens - 1) * 1000) / decodeMs;
}

/** Per-user prefill speed in tokens/s: inputTokens / ttft; null when undefined. */
export function prefillTokensPerSecond(inputTokens: number, ttftMs: number): number | null {
  if (inputTokens <= 0 || ttftMs <= 0) return null;
  return (inputTokens * 1000) / ttftMs;
}

/**
 * Splits a total token count over chunks in proportion to their text lengths (largest remainder),
 * at least one token per chunk. Used when the server's usage says more tokens than chunks arrived
 * (SGLang and speculative decoding send several tokens per chunk).
 */
export function distributeTokens(total: number, weights: readonly number[]): number[] {
  const n = weights.length;
  if (n === 0) return [];
  if (total <= n) return weights.map(() => 1);
  const spare = total - n;
  const weightSum = weights.reduce((a, b) => a + Math.max(0, b), 0);
  const shares = weights.map((w) => (weightSum > 0 ? (spare * Math.max(0, w)) / weightSum : spare / n));
  const result = shares.map((s) => 1 + Math.floor(s));
  let left = total - result.reduce((a, b) => a + b, 0);
  const order = shares.map((s, i) => ({ i, r: s - Math.floor(s) })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (let k = 0; left > 0; k = (k + 1) % n, left--) result[order[k]!.i]! += 1;
  return result;
}

/**
 * ITL samples from token-bearing chunk arrival times (ms) and the tokens each chunk carried.
 * A chunk with k tokens arriving g ms after the previous chunk gives k samples of g/k: the gap is
 * spread over its tokens. The first chunk's own gap is TTFT, not ITL; its extra tokens arrived with
 * the first one and give samples of 0 ms, so there is exactly one sample per token after the first.
 */
export function interTokenLatenciesMs(arrivalsMs: readonly number[], tokensPerChunk: readonly number[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < arrivalsMs.length; i++) {
    const k = tokensPerChunk[i] ?? 1;
    if (i === 0) {
      for (let j = 1; j < k; j++) out.push(0);
      continue;
    }
    const gap = arrivalsMs[i]! - arrivalsMs[i - 1]!;
    for (let j = 0; j < k; j++) out.push(gap / k);
  }
  return out;
}
