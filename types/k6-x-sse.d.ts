// Type declarations for the xk6-sse extension (phymbert/xk6-sse), which @types/k6 lacks.
// Shapes follow what a real build does (docs/k6-observed.md, "k6/x/sse").
declare module 'k6/x/sse' {
  /** One server-sent event. All fields are strings; with CRLF line endings id/name/comment keep a trailing "\r". */
  export interface SseEvent {
    id: string;
    name: string;
    data: string;
    comment: string;
  }

  /** The argument of an 'error' handler is a Go error: read its message with error(). */
  export interface SseError {
    error(): string;
  }

  export interface SseClient {
    on(event: 'open', handler: () => void): void;
    on(event: 'event', handler: (event: SseEvent) => void): void;
    on(event: 'error', handler: (error: SseError) => void): void;
    close(): void;
  }

  export interface SseParams {
    method?: string;
    /** Must be a string: an object becomes "[object Object]". */
    body?: string;
    headers?: Record<string, string>;
    tags?: Record<string, string | number | boolean>;
    /** A Go duration string such as "600s"; covers the whole stream. */
    timeout?: string;
  }

  /** No body: status 0 and a non-empty error on connection failure. Header values are joined with ", ". */
  export interface SseResponse {
    url: string;
    status: number;
    headers: Record<string, string>;
    error: string;
  }

  /** Blocks until the stream ends under k6 (returns the response, not a promise); the local runner returns a promise, so always await it. */
  export function open(url: string, setup: (client: SseClient) => void): SseResponse | Promise<SseResponse>;
  export function open(url: string, params: SseParams, setup: (client: SseClient) => void): SseResponse | Promise<SseResponse>;

  const sse: { open: typeof open };
  export default sse;
}
