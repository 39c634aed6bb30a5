// The simulator's embeddings and rerank answers: request bodies checked, and deterministic vectors and scores.
// Runs in Node; pure, so the answers are tested without a server.
//
// The vectors mean nothing: each is a seeded hash of its text, spread over EMBEDDING_DIMENSIONS and scaled to unit
// length, so one text always gets one vector and a client can check the shape. The time an answer takes is the
// batcher's (sim/server.ts): the batch's tokens as one request's prefill.

import { fnv1a, mulberry32 } from '../lib/random';
import { ApiError } from './api-error';

/** Dimension of the simulator's embeddings (sim/README.md). */
export const EMBEDDING_DIMENSIONS = 64;

export type EmbedRoute = 'embeddings' | 'rerank';

export interface EmbedRequest {
  readonly model: string;
  /** Embeddings: the inputs; rerank: the documents. */
  readonly texts: readonly string[];
  /** Rerank's query; null for embeddings. */
  readonly query: string | null;
  /** Rerank's top_n: how many results to answer (all when absent). */
  readonly topN: number | null;
}

/** Inputs per request the simulator takes, as vLLM's default max batch of an embeddings call is bounded too. */
export const MAX_EMBED_INPUTS = 4096;

function stringList(value: unknown, field: string): string[] {
  const list = typeof value === 'string' ? [value] : value;
  if (!Array.isArray(list) || list.length === 0)
    throw new ApiError(400, `"${field}" must be a string or a non-empty list of strings.`, field);
  if (list.length > MAX_EMBED_INPUTS)
    throw new ApiError(400, `"${field}" holds more than ${MAX_EMBED_INPUTS} items.`, field);
  list.forEach((item, i) => {
    if (typeof item !== 'string' || item === '')
      throw new ApiError(400, `"${field}[${i}]" must be a non-empty string (no token-id inputs).`, field);
  });
  return list as string[];
}

/** A parsed body; throws ApiError 400 (OpenAI's error shape) naming the bad field. */
export function parseEmbedRequest(body: Record<string, unknown>, route: EmbedRoute): EmbedRequest {
  if (typeof body.model !== 'string' || body.model === '')
    throw new ApiError(400, '"model" must be a non-empty string.', 'model');
  if (route === 'embeddings') {
    const format = body.encoding_format;
    if (format !== undefined && format !== 'float')
      throw new ApiError(400, '"encoding_format" must be "float" (no base64 here).', 'encoding_format');
    return { model: body.model, texts: stringList(body.input, 'input'), query: null, topN: null };
  }
  if (typeof body.query !== 'string' || body.query === '')
    throw new ApiError(400, '"query" must be a non-empty string.', 'query');
  const texts = stringList(body.documents, 'documents');
  const topN = body.top_n;
  if (topN !== undefined && topN !== null && !(Number.isInteger(topN) && (topN as number) >= 1))
    throw new ApiError(400, '"top_n" must be a whole number of at least 1.', 'top_n');
  return { model: body.model, texts, query: body.query, topN: typeof topN === 'number' ? topN : null };
}

/** The text's vector: EMBEDDING_DIMENSIONS draws in [-1, 1) from its hash, scaled to length 1. */
export function embeddingVector(text: string, dimensions = EMBEDDING_DIMENSIONS): number[] {
  const next = mulberry32(fnv1a(text, 0x9e3779b9));
  const raw = Array.from({ length: dimensions }, () => next() * 2 - 1);
  const norm = Math.sqrt(raw.reduce((sum, x) => sum + x * x, 0));
  // A zero vector has probability 0 from 64 draws; the fallback keeps the unit length regardless.
  return norm > 0 ? raw.map((x) => x / norm) : raw.map((_, i) => (i === 0 ? 1 : 0));
}

/** Cosine of two unit vectors. */
function dot(a: readonly number[], b: readonly number[]): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

export interface RerankResult {
  readonly index: number;
  readonly relevance_score: number;
}

/**
 * Each document's relevance, (1 + cosine of its vector with the query's) / 2 so it lies in [0, 1], highest first
 * (ties by index), cut to top_n.
 */
export function rerankResults(query: string, documents: readonly string[], topN: number | null): RerankResult[] {
  const q = embeddingVector(query);
  const score = (d: string): number => Math.min(1, Math.max(0, (1 + dot(q, embeddingVector(d))) / 2));
  const scored = documents.map((d, index) => ({ index, relevance_score: score(d) }));
  scored.sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index);
  return topN === null ? scored : scored.slice(0, topN);
}

/** The texts the batcher reads: each input, or for rerank the query beside each document (a cross-encoder's pairs). */
export function engineTexts(r: EmbedRequest): string[] {
  return r.query === null ? [...r.texts] : r.texts.map((d) => `${r.query}\n${d}`);
}

/** The response body, with usage counted by the simulator's tokenizer. */
export function embedResponseBody(r: EmbedRequest, route: EmbedRoute, promptTokens: number): unknown {
  const usage = { prompt_tokens: promptTokens, total_tokens: promptTokens };
  if (route === 'embeddings') {
    const data = r.texts.map((t, index) => ({ object: 'embedding', index, embedding: embeddingVector(t) }));
    return { object: 'list', model: r.model, data, usage };
  }
  const id = `rerank-${fnv1a(r.query ?? '', r.texts.length).toString(16)}`;
  return { id, model: r.model, results: rerankResults(r.query!, r.texts, r.topN), usage };
}
