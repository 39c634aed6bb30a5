// Tests for lib/embed-request.ts: the bodies the embed script sends and how it reads answers and failures.
// Runs in Node (vitest).

import { describe, expect, it } from 'vitest';
import { embedRequestBody, readEmbedResponse, RERANK_QUERY, statusErrorKind } from '../../lib/embed-request';
import { ERROR_KINDS } from '../../lib/record';

describe('embed request bodies', () => {
  it('are OpenAI embeddings and llama.cpp/Jina rerank', () => {
    expect(JSON.parse(embedRequestBody('embeddings', 'm', ['a', 'b'])))
      .toEqual({ model: 'm', input: ['a', 'b'], encoding_format: 'float' });
    expect(JSON.parse(embedRequestBody('rerank', 'm', ['a', 'b'])))
      .toEqual({ model: 'm', query: RERANK_QUERY, documents: ['a', 'b'], top_n: 2 });
  });
});

describe('embed responses', () => {
  const data = (n: number) => JSON.stringify({
    data: Array.from({ length: n }, (_, index) => ({ index, embedding: [1] })),
    usage: { prompt_tokens: 42, total_tokens: 42 },
  });

  it('count the items and the server\'s tokens', () => {
    expect(readEmbedResponse('embeddings', 200, data(3), 3)).toEqual({ ok: true, items: 3, usageTokens: 42 });
    const rerank = JSON.stringify({ results: [{ index: 0, relevance_score: 0.5 }] });
    expect(readEmbedResponse('rerank', 200, rerank, 1)).toEqual({ ok: true, items: 1, usageTokens: null });
    const totalOnly = JSON.stringify({ results: [{ index: 0, relevance_score: 1 }], usage: { total_tokens: 7 } });
    expect(readEmbedResponse('rerank', 200, totalOnly, 1)).toMatchObject({ usageTokens: 7 });
  });

  it('fail an answer that left inputs out, or is no JSON', () => {
    expect(readEmbedResponse('embeddings', 200, data(2), 3))
      .toMatchObject({ ok: false, errorKind: 'server_error', message: 'response answered 2 of 3 inputs in "data"' });
    expect(readEmbedResponse('embeddings', 200, '<html>', 1)).toMatchObject({ ok: false, errorKind: 'server_error' });
    expect(readEmbedResponse('rerank', 200, data(1), 1)).toMatchObject({ ok: false, errorKind: 'server_error' });
  });

  it('take the server\'s message from an error body', () => {
    const body = JSON.stringify({ error: { message: 'Pooling type none is not OAI compatible', code: 400 } });
    expect(readEmbedResponse('embeddings', 400, body, 1))
      .toEqual({ ok: false, errorKind: 'http_4xx', message: 'Pooling type none is not OAI compatible' });
  });

  it('name every failure with one of the suite\'s error kinds', () => {
    const kinds = [0, 429, 404, 503, 302].map((s) => statusErrorKind(s, false));
    expect(kinds).toEqual(['connection', 'http_429', 'http_4xx', 'http_5xx', 'http_other']);
    expect(statusErrorKind(0, true)).toBe('timeout');
    for (const k of [...kinds, 'timeout']) expect(ERROR_KINDS).toContain(k);
  });
});
