// Type declarations for the project's k6 extension k6/x/llm (xk6-llm/, Go). The contract is docs/k6-x-llm.md.
declare module 'k6/x/llm' {
  /** One server-sent event, read and timestamped in Go (handed to the script only when it passes onEvents). */
  export interface LlmEvent {
    /**
     * When the bytes that completed the event reached the client (on 64-bit Linux the kernel's receive time): ms since
     * the test started, float, monotonic (the scale of exec.instance.currentTestRunDuration).
     */
    time: number;
    /** The event's `event:` field ('' when absent, which means "message"). */
    name: string;
    /** The `data:` lines joined with "\n". */
    data: string;
    /** With params.parseJson: the data decoded as JSON in Go; absent when it is not JSON. */
    json?: unknown;
  }

  export interface LlmStreamParams {
    url: string;
    /** Default POST. */
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    /** Whole request, connect to end of stream: a Go duration string ("600s") or seconds; 0 or absent = no limit. */
    timeout?: string | number;
    /** Dialling the connection (TCP and TLS). Default 0 = only the whole-request timeout applies. */
    connectTimeout?: string | number;
    /** Request sent to response headers. Default 0. */
    headerTimeout?: string | number;
    /** No byte read for this long once the response started: ends the request as `idle_timeout`. Default 0. */
    idleTimeout?: string | number;
    /** The prompt length the request asked for: the record's input tokens when the server sends no usage. Default 0. */
    requestedInputTokens?: number;
    /** The output length the request asked for (max_tokens), kept in the record. Default 0. */
    requestedOutputTokens?: number;
    /** Tags on every sample of this request (http_* and llm_*), added to the VU's tags. */
    tags?: Record<string, string | number | boolean>;
    /**
     * Do not push the llm_* samples when the request ends: the script calls result.pushMetrics(tags) once it knows
     * their tags. Default false.
     */
    deferMetrics?: boolean;
    /** With onEvents: also hand each event's data decoded as JSON (event.json). Default false. */
    parseJson?: boolean;
    /**
     * Gather the generated content (delta.content, or a completions choice's text) into result.text, for a
     * conversation's next turn. Default false.
     */
    keepText?: boolean;
    /**
     * Limits the request is judged against for goodput: record.goodput and one llm_goodput sample (1 when it completed
     * and every limit holds for its own value, 0 otherwise). Absent: not judged.
     */
    slo?: LlmLimit[];
  }

  /**
   * One limit of params.slo, in the metric's unit (ms; tokens/s for decodeSpeed). `itl` is judged on the request's mean
   * ITL; a figure the request lacks (ITL, TPOT, decode speed below 2 tokens) is not judged. Other fields are ignored.
   */
  export interface LlmLimit {
    metric: 'ttft' | 'e2e' | 'decodeSpeed' | 'itl' | 'tpot';
    operator: '<' | '<=' | '>' | '>=';
    value: number;
  }

  /** Why the transport ended the request early; '' when the response ended normally (EOF). */
  export type LlmErrorCode =
    | ''
    | 'connect'
    | 'connect_timeout'
    | 'header_timeout'
    | 'idle_timeout'
    | 'timeout'
    | 'reset'
    | 'read'
    | 'line_too_long'
    | 'cancelled'
    | 'invalid_request';

  /** Why a request failed: the error_kind tag of llm_errors (lib/record.ts ERROR_KINDS has each one's meaning). */
  export type LlmErrorKind =
    | 'connection'
    | 'timeout'
    | 'connect_timeout'
    | 'ttfb_timeout'
    | 'stalled'
    | 'http_429'
    | 'http_4xx'
    | 'http_5xx'
    | 'http_other'
    | 'server_error'
    | 'malformed_chunk'
    | 'truncated'
    | 'no_tokens'
    | 'stream_error';

  interface LlmRecordBase {
    /** HTTP status; 0 when no response arrived. */
    status: number;
    /** Request start and end of the stream, ms on the event time scale. */
    startMs: number;
    endMs: number;
    requestedInputTokens: number;
    requestedOutputTokens: number;
    /** Events read, the role-only, usage and [DONE] ones included. */
    events: number;
    /** With params.slo: whether the request met every limit (false when it failed); null without params.slo. */
    goodput: boolean | null;
  }

  /** A request that streamed at least one token and ended normally; its figures are the llm_* samples. */
  export interface LlmCompletedRecord extends LlmRecordBase {
    outcome: 'completed';
    /** usage.prompt_tokens, else requestedInputTokens (inputTokenSource says which). */
    inputTokens: number;
    inputTokenSource: 'usage' | 'requested';
    /** usage.prompt_tokens_details.cached_tokens (prompt tokens the prefix cache served); null when absent. */
    cachedTokens: number | null;
    /** usage.completion_tokens, else the token-bearing chunks counted (outputTokenSource says which). */
    outputTokens: number;
    outputTokenSource: 'usage' | 'chunks';
    /** Request start to the first generated token of any kind (content, reasoning, tool call), ms. */
    ttftMs: number;
    /** Request start to the first content token, ms; null when none arrived. */
    ttfcMs: number | null;
    /** Request start to the end of the stream, ms. */
    e2eMs: number;
    /** One inter-token latency per token after the first, ms; a chunk of k tokens spreads its gap over k. */
    itlMs: number[];
    /** (e2e - ttft) / (outputTokens - 1), ms; null below 2 tokens. */
    tpotMs: number | null;
    /** (outputTokens - 1) / (e2e - ttft), tokens/s; null when undefined. */
    decodeTokensPerSecond: number | null;
    /** inputTokens / ttft, tokens/s; null when undefined. */
    prefillTokensPerSecond: number | null;
    finishReason: string | null;
    /** Whether the stream ended with data: [DONE]. */
    sawDone: boolean;
  }

  /** A request that failed; it is counted in llm_errors and never enters a latency Trend. */
  export interface LlmErroredRecord extends LlmRecordBase {
    outcome: 'errored';
    errorKind: LlmErrorKind;
    /** The server's (or transport's) message: credentials redacted, one line, at most 200 characters. */
    errorMessage: string;
    /** Tokens that arrived before the failure. */
    outputTokensSeen: number;
  }

  export type LlmRecord = LlmCompletedRecord | LlmErroredRecord;

  export interface LlmStreamResult {
    /** The request's measurements. */
    record: LlmRecord;
    /** HTTP status; 0 when no response head arrived. */
    status: number;
    /** Lower-case header names; several values joined with ", ". */
    headers: Record<string, string>;
    /** The transport's error message ('' when none). */
    error: string;
    errorCode: LlmErrorCode;
    /** For a non-2xx status or a response that is not text/event-stream: the body's first bytes (at most 4 KiB), else ''. */
    body: string;
    /** Request start (before dialling), response head, and end of the response, on the `time` scale. */
    startTime: number;
    headersTime: number;
    endTime: number;
    /** Events read. */
    events: number;
    /** Lines of an event stream that are not SSE (no field name such as `data`, `event`, `id`, `retry`, or a comment). */
    invalidLines: number;
    /** The first such line, at most 512 characters ('' when none): often a bare JSON error body. */
    firstInvalidLine: string;
    /** With params.keepText only: the generated content, as the server sent it. */
    text?: string;
    /** With params.deferMetrics only: pushes the record's llm_* samples once, with these tags added. */
    pushMetrics?: (tags?: Record<string, string | number | boolean>) => void;
  }

  /**
   * Sends one request, reads and interprets its event stream in Go, pushes its http_* and llm_*
   * samples, and resolves with the record. A failing server never rejects: the record says what
   * failed. `onEvents`, when given, is called on the JavaScript thread with the events read since
   * the last call (oldest first); an exception it throws ends the request and rejects the promise.
   */
  export function stream(params: LlmStreamParams, onEvents?: (events: LlmEvent[]) => void): Promise<LlmStreamResult>;

  const llm: { stream: typeof stream };
  export default llm;
}
