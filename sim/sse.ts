// Builds the response bodies of the simulator: SSE chunks as vLLM and SGLang stream them, and non-streaming bodies.
// Runs in Node, pure.

import type { Flavour } from './profiles';

/** chat: /v1/chat/completions; completion: /v1/completions; responses: /v1/responses; messages: /v1/messages. */
export type Endpoint = 'chat' | 'completion' | 'responses' | 'messages';

export interface Usage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly total_tokens: number;
  /** Prompt tokens served from the prefix cache, 0 included (see makeUsage). */
  readonly prompt_tokens_details: { readonly cached_tokens: number };
  /** Only from a reasoning server (--reasoning-tokens): how many of completion_tokens were thinking. */
  readonly completion_tokens_details?: { readonly reasoning_tokens: number };
}

export interface StreamIdentity {
  readonly id: string;
  readonly created: number;
  readonly model: string;
  readonly endpoint: Endpoint;
  readonly flavour: Flavour;
}

export const DONE_EVENT = 'data: [DONE]\n\n';

/** One SSE event carrying a JSON payload. */
export function sseEvent(payload: string): string {
  return `data: ${payload}\n\n`;
}

const heads = new WeakMap<StreamIdentity, string>();

/** The JSON prefix shared by every chunk of a stream, built once per stream (chunks are written per token). */
function head(s: StreamIdentity): string {
  let h = heads.get(s);
  if (h === undefined) {
    const object = s.endpoint === 'chat' ? 'chat.completion.chunk' : 'text_completion';
    h = `{"id":${JSON.stringify(s.id)},"object":"${object}","created":${s.created},"model":${JSON.stringify(s.model)}`;
    heads.set(s, h);
  }
  return h;
}

function finishJson(finish: string | null): string {
  return finish === null ? 'null' : `"${finish}"`;
}

/** The role-only first chunk of a chat stream (not a token). Completions have none. */
export function roleChunk(s: StreamIdentity): string {
  const extra = s.flavour === 'sglang' ? ',"matched_stop":null' : '';
  return sseEvent(
    `${head(s)},"choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,` +
    `"finish_reason":null${extra}}]}`,
  );
}

/**
 * A chunk carrying `text` (one or more tokens). vLLM puts finish_reason on the chunk of the last token; SGLang sends
 * it in a separate chunk (see finishChunk). A chat stream's reasoning goes in delta.reasoning_content, as vLLM's and
 * SGLang's reasoning parsers put it; completions have no such field, so their reasoning is text.
 */
export function contentChunk(
  s: StreamIdentity, text: string, finish: string | null = null, kind: 'content' | 'reasoning' = 'content',
): string {
  const t = JSON.stringify(text);
  const tail = s.flavour === 'sglang' ? ',"matched_stop":null' : finish === null ? '' : ',"stop_reason":null';
  if (s.endpoint === 'chat') {
    const field = kind === 'reasoning' ? 'reasoning_content' : 'content';
    return sseEvent(
      `${head(s)},"choices":[{"index":0,"delta":{"${field}":${t}},"logprobs":null,` +
      `"finish_reason":${finishJson(finish)}${tail}}]}`,
    );
  }
  return sseEvent(
    `${head(s)},"choices":[{"index":0,"text":${t},"logprobs":null,"finish_reason":${finishJson(finish)}${tail}}]}`,
  );
}

/**
 * A final chunk with no content: SGLang's finish chunk, or vLLM's when a stop ended the stream with no content left.
 */
export function finishChunk(s: StreamIdentity, finish: string): string {
  const tail = s.flavour === 'sglang' ? ',"matched_stop":null' : ',"stop_reason":null';
  if (s.endpoint === 'chat') {
    return sseEvent(
      `${head(s)},"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"${finish}"${tail}}]}`,
    );
  }
  return sseEvent(`${head(s)},"choices":[{"index":0,"text":"","logprobs":null,"finish_reason":"${finish}"${tail}}]}`);
}

/** The usage chunk sent when stream_options.include_usage is set: no choices. */
export function usageChunk(s: StreamIdentity, usage: Usage): string {
  return sseEvent(`${head(s)},"choices":[],"usage":${JSON.stringify(usage)}}`);
}

/** An OpenAI-style error object sent inside a 200 stream (fault injection, or a server error mid-stream). */
export function streamErrorEvent(message: string, code = 500): string {
  return sseEvent(JSON.stringify({ error: { message, type: 'InternalServerError', param: null, code } }));
}

/**
 * The usage object. prompt_tokens_details.cached_tokens is written as vLLM 0.32 writes it with
 * --enable-prompt-tokens-details (and SGLang with --enable-cache-report): on every response, 0 when nothing was
 * cached, so a client can tell a miss from a server that does not report (older vLLM left the field out at 0).
 */
export function makeUsage(
  promptTokens: number, completionTokens: number, cachedTokens = 0, reasoningTokens = 0,
): Usage {
  return {
    prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: cachedTokens },
    ...(reasoningTokens > 0 ? { completion_tokens_details: { reasoning_tokens: reasoningTokens } } : {}),
  };
}

/** The non-streaming response body; a chat answer's reasoning goes in message.reasoning_content, as vLLM's. */
export function completionBody(
  s: StreamIdentity, text: { readonly reasoning: string; readonly content: string }, finish: string, usage: Usage,
): string {
  if (s.endpoint === 'chat') {
    const reasoning = text.reasoning === '' ? {} : { reasoning_content: text.reasoning };
    return JSON.stringify({
      id: s.id,
      object: 'chat.completion',
      created: s.created,
      model: s.model,
      choices: [
        {
          index: 0, message: { role: 'assistant', content: text.content, ...reasoning, tool_calls: [] }, logprobs: null,
          finish_reason: finish, stop_reason: null,
        },
      ],
      usage,
    });
  }
  return JSON.stringify({
    id: s.id,
    object: 'text_completion',
    created: s.created,
    model: s.model,
    choices: [
      { index: 0, text: text.reasoning + text.content, logprobs: null, finish_reason: finish, stop_reason: null },
    ],
    usage,
  });
}
