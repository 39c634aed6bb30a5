// Type declarations for the project's own k6 extension k6/x/llm (xk6-llm/, Go) and its local-runner twin
// (runner/modules/llm.ts). The contract both implement is docs/k6-x-llm.md.
declare module 'k6/x/llm' {
  /** One server-sent event, read and timestamped by the transport (not by JavaScript). */
  export interface LlmEvent {
    /** When the bytes that completed the event reached the client (k6 on 64-bit Linux: the kernel's receive time; else when the transport read them): ms since the test started, float, monotonic (the scale of exec.instance.currentTestRunDuration). */
    time: number;
    /** The event's `event:` field ('' when absent, which means "message"). */
    name: string;
    /** The `data:` lines joined with "\n". */
    data: string;
    /** With params.parseJson: the data decoded as JSON by the transport; absent when it is not JSON. */
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
    /** Decode each event's data as JSON in the transport, off the JavaScript thread (event.json). Default false. */
    parseJson?: boolean;
    /** Extra tags on this request's http_* samples (the VU's tags are always there). */
    tags?: Record<string, string | number | boolean>;
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

  export interface LlmStreamResult {
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
    /** Events delivered to the handler. */
    events: number;
    /** Lines of an event stream that are not SSE (no field name such as `data`, `event`, `id`, `retry`, or a comment). */
    invalidLines: number;
    /** The first such line, at most 512 characters ('' when none): often a bare JSON error body. */
    firstInvalidLine: string;
  }

  /**
   * Sends one request and reads its event stream in the transport. `onEvents` is called on the
   * JavaScript thread with the events read since the last call (one or more, oldest first); events
   * carry the time the transport read them, so a busy script delays their processing but not their
   * times. An exception thrown by `onEvents` ends the request and rejects the promise.
   */
  export function stream(params: LlmStreamParams, onEvents: (events: LlmEvent[]) => void): Promise<LlmStreamResult>;

  const llm: { stream: typeof stream };
  export default llm;
}
