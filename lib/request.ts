// Request bodies and headers of a streaming call on each API: OpenAI's /chat/completions, /completions and /responses,
// Anthropic's /messages.
// Runs in k6 and Node.

import type { ApiMessage, ToolSpec } from './chat-template';
import type { ApiStyle, TargetConfig } from './plan';
import { messagesConversation, messagesTools, responsesInput, responsesTools } from './tool-shapes';

export interface GenerationRequest {
  readonly prompt: string;
  readonly maxTokens: number;
  /**
   * A conversation's messages, in the chat API's shape: sent instead of one user message of `prompt`, in the target
   * API's own shape (lib/tool-shapes.ts) on Responses and Messages.
   */
  readonly messages?: readonly ApiMessage[];
  /** The tools the model may call (the agentic script's catalog), in the chat API's shape. */
  readonly tools?: readonly ToolSpec[];
}

export interface HttpRequestSpec {
  readonly url: string;
  readonly body: string;
  readonly headers: Record<string, string>;
}

const ENDPOINT_PATHS: Record<ApiStyle, string> = {
  chat: '/chat/completions', completions: '/completions', responses: '/responses', messages: '/messages',
};

/** The endpoint path of an API style, relative to the /v1 base URL. */
export function endpointPath(api: ApiStyle): string {
  return ENDPOINT_PATHS[api];
}

/** The body field that caps the output's tokens, per API. */
export function maxTokensField(api: ApiStyle): string {
  return api === 'responses' ? 'max_output_tokens' : 'max_tokens';
}

/** The anthropic-version header a Messages request carries (the API's only stable version). */
export const ANTHROPIC_VERSION = '2023-06-01';

/**
 * The JSON body of one streaming request. Output length is forced with the API's max tokens field plus ignore_eos
 * (vLLM, SGLang) and, when enabled, min_tokens (vLLM); on chat and completions usage is requested in the stream so
 * token counts come from the server rather than from counting chunks (Responses and Messages always send it).
 */
export function buildRequestBody(target: TargetConfig, request: GenerationRequest): Record<string, unknown> {
  const body: Record<string, unknown> = { model: target.model, stream: true };
  const messages = request.messages ?? [{ role: 'user', content: request.prompt }];
  switch (target.api) {
    case 'chat':
      Object.assign(body, { stream_options: { include_usage: true }, messages });
      // The calls are the script's choice, not the model's (docs/guides/agentic.md). "none" keeps the catalog in the
      // prompt and spares the server a tool parser: vLLM refuses "auto", the default with tools, without one.
      if (request.tools) Object.assign(body, { tools: request.tools, tool_choice: 'none' });
      break;
    case 'completions':
      Object.assign(body, { stream_options: { include_usage: true }, prompt: request.prompt });
      break;
    case 'responses':
      // A list of items, not the input string: the conversation's history goes the same way.
      body.input = responsesInput(messages);
      if (request.tools) Object.assign(body, { tools: responsesTools(request.tools), tool_choice: 'none' });
      break;
    case 'messages': {
      const { system, messages: conversation } = messagesConversation(messages);
      if (system !== null) body.system = system;
      body.messages = conversation;
      if (request.tools) Object.assign(body, { tools: messagesTools(request.tools), tool_choice: { type: 'none' } });
      break;
    }
  }
  body[maxTokensField(target.api)] = request.maxTokens;
  body.temperature = target.temperature;
  if (target.ignoreEos) body.ignore_eos = true;
  if (target.minTokens) body.min_tokens = request.maxTokens;
  if (target.seed !== null) body.seed = target.seed;
  return body;
}

/**
 * Headers of a streaming request; the API key goes only here, never into tags, logs or outputs. A Messages request
 * carries it as Anthropic's x-api-key too (gateways read either) and says its anthropic-version.
 */
export function buildHeaders(apiKey: string | null, api: ApiStyle = 'chat'): Record<string, string> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', Accept: 'text/event-stream' };
  if (api === 'messages') headers['anthropic-version'] = ANTHROPIC_VERSION;
  if (apiKey) {
    headers.Authorization = `Bearer ${apiKey}`;
    if (api === 'messages') headers['x-api-key'] = apiKey;
  }
  return headers;
}

export function buildStreamingRequest(
  target: TargetConfig, request: GenerationRequest, apiKey: string | null,
): HttpRequestSpec {
  return {
    url: target.baseUrl + endpointPath(target.api),
    body: JSON.stringify(buildRequestBody(target, request)),
    headers: buildHeaders(apiKey, target.api),
  };
}

/** Replaces every occurrence of the API key in a message, so error text can be logged safely. */
export function redactSecret(message: string, secret: string | null): string {
  if (!secret) return message;
  return message.split(secret).join('[redacted]');
}

/**
 * An error message as results keep it: secret redacted, whitespace runs (newlines) as one space, at most `max`
 * characters.
 */
export function errorMessageForResults(message: string, secret: string | null, max: number): string {
  return redactSecret(message, secret).replace(/\s+/g, ' ').trim().slice(0, max);
}
