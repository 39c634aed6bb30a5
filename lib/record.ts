// The per-request record the measuring agent builds (agent/record.go), and the list of error kinds.
// Runs in k6 and Node.
//
// Go computes every figure (docs/reference/metrics.md); TypeScript reads records, in the scripts and in the
// bench's driven search. The agent's GET / lists its error kinds, and a test holds ERROR_KINDS equal to them.

/** Why a request failed; becomes the error_kind tag of llm_errors. */
export const ERROR_KINDS = [
  'connection', // no HTTP response at all (refused, reset before headers, DNS)
  'timeout', // the whole-request timeout fired
  'connect_timeout', // no connection within target.connectTimeoutSeconds
  'ttfb_timeout', // no response head within target.firstByteTimeoutSeconds
  'stalled', // no byte for target.idleTimeoutSeconds while the stream was open
  'http_429', // the server refused for load
  'http_4xx', // any other client error status
  'http_5xx', // server error status
  'http_other', // a status that is neither 2xx nor an error class (1xx, 3xx)
  'server_error', // an error object or `event: error` inside a 200 stream, a 200 JSON error body, a stream line
  //                 that is not SSE
  'malformed_chunk', // a data line that is not JSON, or a line over 1 MiB
  'truncated', // the stream ended with neither finish_reason nor [DONE] (Responses, Messages: its terminal event)
  'no_tokens', // the stream completed without a single generated token
  'stream_error', // the connection failed mid-stream (reset, read error, cancelled)
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
  /**
   * Whether the request met every limit it was sent with (params.slo of lib/k6/llm.ts stream, its own TTFT, e2e,
   * decode speed, TPOT and mean ITL); false for a failed request; null when it was sent without limits.
   */
  readonly goodput: boolean | null;
}

export interface CompletedRecord extends RecordBase {
  readonly outcome: 'completed';
  /**
   * usage.prompt_tokens (Responses input_tokens; Messages input_tokens plus cache reads and writes), else the requested
   * length (inputTokenSource says which).
   */
  readonly inputTokens: number;
  readonly inputTokenSource: 'usage' | 'requested';
  /**
   * usage.prompt_tokens_details.cached_tokens: prompt tokens the server's prefix cache served; null when the usage had
   * no such field (vLLM writes it only when some were cached, and only with --enable-prompt-tokens-details).
   */
  readonly cachedTokens: number | null;
  readonly outputTokens: number;
  /**
   * Output tokens that were reasoning: the usage's figure (chat completion_tokens_details.reasoning_tokens, Responses
   * output_tokens_details.reasoning_tokens), else the output tokens spread over reasoning chunks; null when the
   * usage has no such figure and no reasoning arrived.
   */
  readonly reasoningTokens: number | null;
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
