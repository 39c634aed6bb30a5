// The embed script's request and answer: the body of an embeddings or rerank request, and what its response says.
// Runs in k6 and Node; pure, so the shapes are tested without a server.
//
// Embeddings: OpenAI's POST /embeddings {model, input: string[]} -> {data: [{embedding, index}], usage}. Rerank:
// llama.cpp's, vLLM's, Jina's and Cohere's POST /rerank {model, query, documents, top_n} -> {results: [{index,
// relevance_score}], usage?}.

import type { EmbedConfig } from './plan';
import type { ErrorKind } from './record';

export type EmbedKind = EmbedConfig['kind'];

/** The path under the target's base URL (…/v1). */
export const EMBED_PATHS: Readonly<Record<EmbedKind, string>> = { embeddings: '/embeddings', rerank: '/rerank' };

/**
 * The rerank query, the same for every request: short and fixed, so a request's work is its documents (each of the
 * cell's input length, counted in llm_embed_input_tokens when the server says nothing of its usage).
 */
export const RERANK_QUERY = 'Which passage says the most about the world and its people?';

/** The JSON body of one request: `inputs` are the batch's texts (rerank: its documents). */
export function embedRequestBody(kind: EmbedKind, model: string, inputs: readonly string[]): string {
  if (kind === 'embeddings') return JSON.stringify({ model, input: inputs, encoding_format: 'float' });
  return JSON.stringify({ model, query: RERANK_QUERY, documents: inputs, top_n: inputs.length });
}

/** What a response said: the items answered and the server's token count, or why the request failed. */
export type EmbedOutcome =
  | { readonly ok: true; readonly items: number; readonly usageTokens: number | null }
  | { readonly ok: false; readonly errorKind: ErrorKind; readonly message: string };

/** A failed request's kind from its HTTP status (0: no response; k6's error code says whether it timed out). */
export function statusErrorKind(status: number, timedOut: boolean): ErrorKind {
  if (status === 0) return timedOut ? 'timeout' : 'connection';
  if (status === 429) return 'http_429';
  if (status >= 400 && status < 500) return 'http_4xx';
  if (status >= 500) return 'http_5xx';
  return 'http_other';
}

const failed = (errorKind: ErrorKind, message: string): EmbedOutcome =>
  ({ ok: false, errorKind, message: message.slice(0, 200) });

/** The server's error message in an OpenAI error body, else the body's start. */
function errorMessage(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; detail?: unknown };
    if (typeof parsed.error === 'string') return parsed.error;
    if (typeof parsed.error?.message === 'string') return parsed.error.message;
    if (typeof parsed.detail === 'string') return parsed.detail;
  } catch {
    // Not JSON: the text itself says what went wrong.
  }
  return body.replace(/\s+/g, ' ').trim();
}

function usageTokens(usage: unknown): number | null {
  if (typeof usage !== 'object' || usage === null) return null;
  const u = usage as { prompt_tokens?: unknown; total_tokens?: unknown };
  const n = typeof u.prompt_tokens === 'number' ? u.prompt_tokens : u.total_tokens;
  return typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : null;
}

/**
 * Reads a response: a 2xx must answer every one of the `expected` inputs (an embedding each, or a score each), or it
 * counts as a server_error, so a server that drops inputs cannot look fast.
 */
export function readEmbedResponse(
  kind: EmbedKind, status: number, body: string | null, expected: number, timedOut = false,
): EmbedOutcome {
  if (status < 200 || status >= 300) {
    const text = body ? errorMessage(body) : '';
    return failed(statusErrorKind(status, timedOut), text || `HTTP ${status}`);
  }
  let parsed: { data?: unknown; results?: unknown; usage?: unknown; error?: unknown };
  try {
    parsed = JSON.parse(body ?? '') as typeof parsed;
  } catch {
    return failed('server_error', `response is not JSON: ${(body ?? '').slice(0, 80)}`);
  }
  if (typeof parsed !== 'object' || parsed === null) return failed('server_error', 'response is not a JSON object');
  if (parsed.error !== undefined) return failed('server_error', errorMessage(body ?? ''));
  const list = kind === 'embeddings' ? parsed.data : parsed.results;
  const field = kind === 'embeddings' ? 'data' : 'results';
  if (!Array.isArray(list)) return failed('server_error', `response has no "${field}" list`);
  if (list.length !== expected)
    return failed('server_error', `response answered ${list.length} of ${expected} inputs in "${field}"`);
  return { ok: true, items: list.length, usageTokens: usageTokens(parsed.usage) };
}
