// Stream interpretation: turns the timestamped SSE events of one OpenAI-style streaming response into a RequestRecord. Runs in k6 and Node.
//
// Fed by either transport (lib/k6/transport-llm.ts, lib/k6/transport-sse.ts): every event's data
// (and `event:` name, where the transport gives it) with the time it arrived, transport errors as
// messages, then how the response ended. k6/x/sse delivers comment-only blocks as events with empty
// data and a bare JSON error body as the error "unknown event: {...}" (docs/k6-observed.md);
// k6/x/llm keeps such lines and non-2xx bodies and hands them to finish() (docs/k6-x-llm.md).

import {
  decodeTokensPerSecond,
  distributeTokens,
  interTokenLatenciesMs,
  prefillTokensPerSecond,
  timePerOutputTokenMs,
  type ErrorKind,
  type RequestRecord,
} from './record';

export interface StreamRequestInfo {
  readonly startMs: number;
  readonly requestedInputTokens: number;
  readonly requestedOutputTokens: number;
}

/** Why a transport ended a request early (k6/x/llm's errorCode); '' when the response ended normally. */
export type TransportErrorCode = '' | 'connect' | 'connect_timeout' | 'header_timeout' | 'idle_timeout' | 'timeout' | 'reset' | 'read' | 'line_too_long' | 'cancelled' | 'invalid_request';

export interface StreamEnd {
  /** HTTP status; 0 when the connection failed. */
  readonly status: number;
  /** The transport's error string ('' when none), e.g. k6's response.error. */
  readonly transportError: string;
  readonly endMs: number;
  /** The request's start as the transport stamped it (k6/x/llm); replaces the start given to the constructor. */
  readonly startMs?: number;
  /** What ended the request, when the transport says (k6/x/llm); absent: read it from the message. */
  readonly errorCode?: TransportErrorCode;
  /** The first bytes of a non-2xx or non-event-stream body (k6/x/llm). */
  readonly body?: string;
  /** The first line of an event stream that is not SSE (k6/x/llm), often a bare JSON error. */
  readonly firstInvalidLine?: string;
}

interface TokenChunk {
  readonly atMs: number;
  /** Characters of generated text in the chunk: the weight for spreading usage tokens over chunks. */
  readonly chars: number;
  readonly hasContent: boolean;
}

/** What one parsed chunk says, kept apart from timing so it can be tested on literal JSON. */
export interface ChunkFacts {
  readonly generatedChars: number;
  readonly hasToken: boolean;
  readonly hasContent: boolean;
  readonly finishReason: string | null;
  readonly usage: { promptTokens: number | null; completionTokens: number | null } | null;
  readonly error: string | null;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

function textLength(v: unknown): number {
  return typeof v === 'string' ? v.length : 0;
}

function errorMessageOf(o: Record<string, unknown>): string | null {
  const err = o.error;
  if (typeof err === 'string') return err;
  if (isObject(err)) return typeof err.message === 'string' ? err.message : JSON.stringify(err);
  if (o.object === 'error') return typeof o.message === 'string' ? o.message : 'error object in stream';
  return null;
}

function numberOrNull(v: unknown): number | null {
  return typeof v === 'number' && isFinite(v) ? v : null;
}

/**
 * Reads one chunk of a /chat/completions or /completions stream. A token is any generated text:
 * content, reasoning_content / reasoning (vLLM and SGLang reasoning parsers), a tool-call delta, or
 * completions `text`. The role-only first chunk and the usage-only last chunk carry no token.
 */
export function readChunk(json: unknown): ChunkFacts {
  if (!isObject(json)) return { generatedChars: 0, hasToken: false, hasContent: false, finishReason: null, usage: null, error: 'chunk is not a JSON object' };
  const error = errorMessageOf(json);
  let generatedChars = 0;
  let hasToken = false;
  let hasContent = false;
  let finishReason: string | null = null;
  const choices = Array.isArray(json.choices) ? json.choices : [];
  for (const choice of choices) {
    if (!isObject(choice)) continue;
    if (typeof choice.finish_reason === 'string') finishReason = choice.finish_reason;
    const delta = isObject(choice.delta) ? choice.delta : null;
    if (delta) {
      const content = textLength(delta.content);
      const reasoning = textLength(delta.reasoning_content) + textLength(delta.reasoning);
      let tool = 0;
      if (Array.isArray(delta.tool_calls)) {
        for (const call of delta.tool_calls) {
          const fn = isObject(call) && isObject(call.function) ? call.function : null;
          // A tool-call delta is a token even when it only names the function.
          tool += fn ? Math.max(1, textLength(fn.arguments) + textLength(fn.name)) : 1;
        }
      }
      if (content > 0) hasContent = true;
      if (content + reasoning + tool > 0) hasToken = true;
      generatedChars += content + reasoning + tool;
    } else if (typeof choice.text === 'string' && choice.text.length > 0) {
      hasToken = true;
      hasContent = true;
      generatedChars += choice.text.length;
    }
  }
  let usage: ChunkFacts['usage'] = null;
  if (isObject(json.usage)) {
    usage = { promptTokens: numberOrNull(json.usage.prompt_tokens), completionTokens: numberOrNull(json.usage.completion_tokens) };
  }
  return { generatedChars, hasToken, hasContent, finishReason, usage, error };
}

/** The message of a JSON error body (or a text carrying one, as xk6-sse's "unknown event: {...}"); the text itself when there is none. */
export function serverMessageOf(text: string): string {
  const at = text.indexOf('{');
  if (at >= 0) {
    try {
      const parsed: unknown = JSON.parse(text.slice(at));
      if (isObject(parsed)) {
        // vLLM/OpenAI: {"error": {...}} or {"object":"error",...}; llama.cpp: {"code","message","type"}.
        const m = errorMessageOf(parsed) ?? (typeof parsed.message === 'string' ? parsed.message : null);
        if (m) return m;
      }
    } catch {
      // Not JSON after all: keep the text's own words.
    }
  }
  return text.trim();
}

/** The error kind for how a k6/x/llm request ended, when that alone decides it. */
function kindOfTransportCode(code: TransportErrorCode): ErrorKind | null {
  switch (code) {
    case 'connect':
    case 'invalid_request':
      return 'connection';
    case 'connect_timeout':
      return 'connect_timeout';
    case 'header_timeout':
      return 'ttfb_timeout';
    case 'idle_timeout':
      return 'stalled';
    case 'timeout':
      return 'timeout';
    case 'line_too_long':
      return 'malformed_chunk';
    case 'reset':
    case 'read':
    case 'cancelled':
      return 'stream_error';
    case '':
      return null;
  }
}

function classifyStatus(status: number): ErrorKind | null {
  if (status === 0) return 'connection';
  if (status === 429) return 'http_429';
  if (status >= 400 && status < 500) return 'http_4xx';
  if (status >= 500) return 'http_5xx';
  if (status < 200 || status >= 300) return 'http_other';
  return null;
}

function isTimeout(message: string): boolean {
  return /deadline exceeded|timeout|timed out/i.test(message);
}

/** Marks an event whose data the transport did not decode. */
const NOT_PARSED: unique symbol = Symbol('not parsed');

/**
 * Collects one stream. Call onEvent for each SSE event as it arrives, onTransportError for each
 * error the transport reports, and finish once when the stream is over.
 */
export class StreamObserver {
  private readonly chunks: TokenChunk[] = [];
  private events = 0;
  private finishReason: string | null = null;
  private promptTokens: number | null = null;
  private completionTokens: number | null = null;
  private sawDone = false;
  private firstError: { kind: ErrorKind; message: string } | null = null;

  constructor(private readonly info: StreamRequestInfo) {}

  private noteError(kind: ErrorKind, message: string): void {
    if (!this.firstError) this.firstError = { kind, message };
  }

  /** One SSE event's data (already CR/LF-trimmed by the transport), when it arrived, and its `event:` name if the transport gives it. */
  onEvent(data: string, atMs: number, name = ''): void {
    this.readEvent(data, atMs, name, NOT_PARSED);
  }

  /**
   * The same, for an event whose data the transport has already decoded as JSON (k6/x/llm with
   * parseJson: off the JavaScript thread, and in Go far cheaper than k6's JSON.parse).
   */
  onParsedEvent(data: string, atMs: number, name: string, json: unknown): void {
    this.readEvent(data, atMs, name, json);
  }

  private readEvent(data: string, atMs: number, name: string, parsed: unknown): void {
    this.events++;
    const text = data.trim();
    // An `event: error` carries the server's message (TGI, gateways); vLLM puts an error object in a data chunk instead.
    if (name === 'error') {
      this.noteError('server_error', serverMessageOf(text) || 'error event');
      return;
    }
    // Comment-only blocks (": keep-alive") arrive as events with empty data: not part of the answer.
    if (text === '') return;
    if (text === '[DONE]') {
      this.sawDone = true;
      return;
    }
    let json: unknown = parsed;
    if (json === NOT_PARSED) {
      try {
        json = JSON.parse(text);
      } catch {
        this.noteError('malformed_chunk', `malformed chunk: ${text.slice(0, 120)}`);
        return;
      }
    }
    const facts = readChunk(json);
    if (facts.error) {
      this.noteError('server_error', facts.error);
      return;
    }
    if (facts.hasToken) this.chunks.push({ atMs, chars: facts.generatedChars, hasContent: facts.hasContent });
    if (facts.finishReason) this.finishReason = facts.finishReason;
    if (facts.usage) {
      if (facts.usage.promptTokens !== null) this.promptTokens = facts.usage.promptTokens;
      if (facts.usage.completionTokens !== null) this.completionTokens = facts.usage.completionTokens;
    }
  }

  /** An error the transport reported while the stream was open (k6/x/sse 'error' handler). */
  onTransportError(rawMessage: string): void {
    // xk6-sse ends "unknown event: <line>" with the line's own newline.
    const message = rawMessage.trim();
    if (message.startsWith('unknown event')) {
      // A non-SSE line: usually a JSON error body, sometimes on a 200 response.
      this.noteError('server_error', serverMessageOf(message));
      return;
    }
    this.noteError(isTimeout(message) ? 'timeout' : 'stream_error', message);
  }

  finish(end: StreamEnd): RequestRecord {
    const startMs = end.startMs ?? this.info.startMs;
    const base = {
      status: end.status,
      startMs,
      endMs: end.endMs,
      requestedInputTokens: this.info.requestedInputTokens,
      requestedOutputTokens: this.info.requestedOutputTokens,
      events: this.events,
    };
    const seen = this.completionTokens ?? this.chunks.length;
    const codeKind = end.errorCode ? kindOfTransportCode(end.errorCode) : null;
    const bodyMessage = end.body ? serverMessageOf(end.body) : '';
    const statusKind = classifyStatus(end.status);
    if (statusKind) {
      // The server's own words first ("CUDA out of memory"), then the transport's, then the status.
      const message = bodyMessage || end.transportError || (this.firstError ? this.firstError.message : `HTTP ${end.status}`);
      const kind = end.status === 0 ? (codeKind ?? (isTimeout(message) ? 'timeout' : statusKind)) : statusKind;
      return { ...base, outcome: 'errored', errorKind: kind, errorMessage: message, outputTokensSeen: seen };
    }
    // A 2xx answer that is not an event stream: a JSON error object, or a server that ignored stream: true.
    if (bodyMessage) {
      return { ...base, outcome: 'errored', errorKind: 'server_error', errorMessage: bodyMessage, outputTokensSeen: seen };
    }
    if (end.firstInvalidLine) this.noteError('server_error', serverMessageOf(end.firstInvalidLine));
    if (this.firstError) {
      return { ...base, outcome: 'errored', errorKind: this.firstError.kind, errorMessage: this.firstError.message, outputTokensSeen: seen };
    }
    if (codeKind) {
      return { ...base, outcome: 'errored', errorKind: codeKind, errorMessage: end.transportError || end.errorCode || '', outputTokensSeen: seen };
    }
    if (end.transportError) {
      const kind = isTimeout(end.transportError) ? 'timeout' : 'stream_error';
      return { ...base, outcome: 'errored', errorKind: kind, errorMessage: end.transportError, outputTokensSeen: seen };
    }
    if (!this.sawDone && this.finishReason === null) {
      return { ...base, outcome: 'errored', errorKind: 'truncated', errorMessage: 'stream ended without finish_reason or [DONE]', outputTokensSeen: seen };
    }
    const first = this.chunks[0];
    if (!first) {
      return { ...base, outcome: 'errored', errorKind: 'no_tokens', errorMessage: 'stream completed without a generated token', outputTokensSeen: 0 };
    }
    const outputTokenSource = this.completionTokens !== null ? 'usage' : 'chunks';
    const outputTokens = this.completionTokens !== null ? Math.max(this.completionTokens, 1) : this.chunks.length;
    const perChunk = distributeTokens(outputTokens, this.chunks.map((c) => c.chars));
    const itlMs = interTokenLatenciesMs(this.chunks.map((c) => c.atMs), perChunk);
    // With usage smaller than the chunk count (a server counting differently), keep one sample per token.
    if (itlMs.length > outputTokens - 1) itlMs.length = Math.max(0, outputTokens - 1);
    const ttftMs = first.atMs - startMs;
    const firstContent = this.chunks.find((c) => c.hasContent);
    const e2eMs = end.endMs - startMs;
    const inputTokenSource = this.promptTokens !== null ? 'usage' : 'requested';
    const inputTokens = this.promptTokens ?? this.info.requestedInputTokens;
    return {
      ...base,
      outcome: 'completed',
      inputTokens,
      inputTokenSource,
      outputTokens,
      outputTokenSource,
      ttftMs,
      ttfcMs: firstContent ? firstContent.atMs - startMs : null,
      e2eMs,
      itlMs,
      tpotMs: timePerOutputTokenMs(e2eMs, ttftMs, outputTokens),
      decodeTokensPerSecond: decodeTokensPerSecond(e2eMs, ttftMs, outputTokens),
      prefillTokensPerSecond: prefillTokensPerSecond(inputTokens, ttftMs),
      finishReason: this.finishReason,
      sawDone: this.sawDone,
    };
  }
}
