// Request bodies and headers for OpenAI-compatible /chat/completions and /completions streaming calls.
// Runs in k6 and Node.

import type { ChatMessage } from './chat-template';
import type { ApiStyle, TargetConfig } from './plan';

export interface GenerationRequest {
  readonly prompt: string;
  readonly maxTokens: number;
  /** A conversation's messages (chat API): sent instead of one user message of `prompt`. */
  readonly messages?: readonly ChatMessage[];
}

export interface HttpRequestSpec {
  readonly url: string;
  readonly body: string;
  readonly headers: Record<string, string>;
}

/** The endpoint path of an API style, relative to the /v1 base URL. */
export function endpointPath(api: ApiStyle): string {
  return api === 'chat' ? '/chat/completions' : '/completions';
}

/**
 * The JSON body of one streaming request. Output length is forced with max_tokens plus
 * ignore_eos (vLLM, SGLang) and, when enabled, min_tokens (vLLM); usage is requested in the stream
 * so token counts come from the server rather than from counting chunks.
 */
export function buildRequestBody(target: TargetConfig, request: GenerationRequest): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: target.model,
    stream: true,
    stream_options: { include_usage: true },
    max_tokens: request.maxTokens,
    temperature: target.temperature,
  };
  if (target.api === 'chat') body.messages = request.messages ?? [{ role: 'user', content: request.prompt }];
  else body.prompt = request.prompt;
  if (target.ignoreEos) body.ignore_eos = true;
  if (target.minTokens) body.min_tokens = request.maxTokens;
  if (target.seed !== null) body.seed = target.seed;
  return body;
}

/** Headers of a streaming request; the API key goes only here, never into tags, logs or outputs. */
export function buildHeaders(apiKey: string | null): Record<string, string> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'text/event-stream' };
  if (apiKey) headers.Authorization = `Bearer ${apiKey}`;
  return headers;
}

export function buildStreamingRequest(target: TargetConfig, request: GenerationRequest, apiKey: string | null): HttpRequestSpec {
  return {
    url: target.baseUrl + endpointPath(target.api),
    body: JSON.stringify(buildRequestBody(target, request)),
    headers: buildHeaders(apiKey),
  };
}

/** Replaces every occurrence of the API key in a message, so error text can be logged safely. */
export function redactSecret(message: string, secret: string | null): string {
  if (!secret) return message;
  return message.split(secret).join('[redacted]');
}

/** An error message as results keep it: secret redacted, whitespace runs (newlines) as one space, at most `max` characters. */
export function errorMessageForResults(message: string, secret: string | null, max: number): string {
  return redactSecret(message, secret).replace(/\s+/g, ' ').trim().slice(0, max);
}
