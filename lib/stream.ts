// Stream interpretation: turns the timestamped SSE events of one OpenAI-style streaming response into a RequestRecord. Runs in k6 and Node.
//
// Fed the way k6/x/sse delivers a stream (reference/k6.md, section 9): every event's data as a
// string (comment-only blocks arrive with empty data; [DONE] as ordinary data), transport errors
// as messages (a bare JSON error body arrives as "unknown event: {...}"), then the response status.

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

export interface StreamEnd {
  /** HTTP status; 0 when the connection failed. */
  readonly status: number;
  /** The transport's error string ('' when none), e.g. k6's response.error. */
  readonly transportError: string;
  readonly endMs: number;
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

/** Extracts the message of a JSON error body that k6/x/sse reported as "unknown event: {...}". */
function messageFromTransportError(message: string): string {
  const at = message.indexOf('{');
  if (at >= 0) {
    try {
      const parsed: unknown = JSON.parse(message.slice(at));
      if (isObject(parsed)) {
        // vLLM/OpenAI: {"error": {...}} or {"object":"error",...}; llama.cpp: {"code","message","type"}.
        const m = errorMessageOf(parsed) ?? (typeof parsed.message === 'string' ? parsed.message : null);
        if (m) return m;
      }
    } catch {
      // Not JSON after all: keep the transport's own words.
    }
  }
  return message.trim();
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

  /** One SSE event's data (already CR/LF-trimmed by the transport) and when it arrived. */
  onEvent(data: string, atMs: number): void {
    this.events++;
    const text = data.trim();
    // Comment-only blocks (": keep-alive") arrive as events with empty data: not part of the answer.
    if (text === '') return;
    if (text === '[DONE]') {
      this.sawDone = true;
      return;
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      this.noteError('malformed_chunk', `malformed chunk: ${text.slice(0, 120)}`);
      return;
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
      this.noteError('server_error', messageFromTransportError(message));
      return;
    }
    this.noteError(isTimeout(message) ? 'timeout' : 'stream_error', message);
  }

  finish(end: StreamEnd): RequestRecord {
    const base = {
      status: end.status,
      startMs: this.info.startMs,
      endMs: end.endMs,
      requestedInputTokens: this.info.requestedInputTokens,
      requestedOutputTokens: this.info.requestedOutputTokens,
      events: this.events,
    };
    const seen = this.completionTokens ?? this.chunks.length;
    const statusKind = classifyStatus(end.status);
    if (statusKind) {
      const message = end.transportError || (this.firstError ? this.firstError.message : `HTTP ${end.status}`);
      const kind = end.status === 0 && isTimeout(message) ? 'timeout' : statusKind;
      return { ...base, outcome: 'errored', errorKind: kind, errorMessage: message, outputTokensSeen: seen };
    }
    if (this.firstError) {
      return { ...base, outcome: 'errored', errorKind: this.firstError.kind, errorMessage: this.firstError.message, outputTokensSeen: seen };
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
    const ttftMs = first.atMs - this.info.startMs;
    const firstContent = this.chunks.find((c) => c.hasContent);
    const e2eMs = end.endMs - this.info.startMs;
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
      ttfcMs: firstContent ? firstContent.atMs - this.info.startMs : null,
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
