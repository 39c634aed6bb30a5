// Tests for the simulator's embeddings and rerank: vectors, scores, body checks, and the routes on the batcher.
// Runs in Node (vitest).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMBEDDING_DIMENSIONS, embeddingVector, parseEmbedRequest, rerankResults } from '../../sim/embed';
import { ApiError } from '../../sim/api-error';
import { startSim, type SimServer } from '../../sim/server';
import { MODEL_A, postJson } from './helpers';

describe('embedding vectors', () => {
  it('are unit length, of the documented dimension, one per text and the same every time', () => {
    const a = embeddingVector('the first text');
    expect(a).toHaveLength(EMBEDDING_DIMENSIONS);
    expect(Math.hypot(...a)).toBeCloseTo(1, 12);
    expect(embeddingVector('the first text')).toEqual(a);
    expect(embeddingVector('the first text.')).not.toEqual(a);
  });
});

describe('rerank scores', () => {
  it('lie in [0, 1], highest first, cut to top_n, each document once', () => {
    const docs = Array.from({ length: 20 }, (_, i) => `document ${i}`);
    const all = rerankResults('a query', docs, null);
    expect(all.map((r) => r.index).sort((x, y) => x - y)).toEqual(docs.map((_, i) => i));
    for (const r of all) expect(r.relevance_score).toBeGreaterThanOrEqual(0);
    for (const r of all) expect(r.relevance_score).toBeLessThanOrEqual(1);
    for (let i = 1; i < all.length; i++)
      expect(all[i - 1]!.relevance_score).toBeGreaterThanOrEqual(all[i]!.relevance_score);
    expect(rerankResults('a query', docs, 3)).toEqual(all.slice(0, 3));
  });
});

describe('embed request bodies', () => {
  it('take a string or a list as input', () => {
    expect(parseEmbedRequest({ model: 'm', input: 'one' }, 'embeddings').texts).toEqual(['one']);
    expect(parseEmbedRequest({ model: 'm', query: 'q', documents: ['a', 'b'], top_n: 1 }, 'rerank'))
      .toEqual({ model: 'm', texts: ['a', 'b'], query: 'q', topN: 1 });
  });

  it.each([
    [{ input: ['x'] }, 'embeddings', 'model'],
    [{ model: 'm', input: [] }, 'embeddings', 'input'],
    [{ model: 'm', input: [1, 2] }, 'embeddings', 'input'],
    [{ model: 'm', input: 'x', encoding_format: 'base64' }, 'embeddings', 'encoding_format'],
    [{ model: 'm', documents: ['a'] }, 'rerank', 'query'],
    [{ model: 'm', query: 'q', documents: 'a', top_n: 0 }, 'rerank', 'top_n'],
  ] as const)('refuses %j (%s) naming %s', (body, route, param) => {
    let thrown: unknown;
    try {
      parseEmbedRequest(body, route);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect((thrown as ApiError).status).toBe(400);
    expect((thrown as ApiError).param).toBe(param);
  });
});

describe('embed routes on the batcher', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSim({ tokenizerWorkers: 1 });
  });
  afterAll(async () => {
    await sim.close();
  });
  const texts = (n: number, words: number) =>
    Array.from({ length: n }, (_, i) => `[${i}] ${'people of the world '.repeat(words / 4)}`);

  it('answers every input with its vector and the tokenizer\'s count', async () => {
    const one = await postJson(`${sim.url}/embeddings`, { model: MODEL_A, input: texts(1, 200) });
    const four = await postJson(`${sim.url}/embeddings`, { model: MODEL_A, input: texts(4, 200) });
    expect(one.status).toBe(200);
    const body = four.json as { data: { index: number; embedding: number[] }[]; usage: { prompt_tokens: number } };
    expect(body.data.map((d) => d.index)).toEqual([0, 1, 2, 3]);
    expect(body.data[2]!.embedding).toEqual(embeddingVector(texts(4, 200)[2]!));
    const single = (one.json as { usage: { prompt_tokens: number } }).usage.prompt_tokens;
    expect(single).toBeGreaterThan(200);
    // The inputs differ only in their first digit, one token each.
    expect(body.usage.prompt_tokens).toBe(4 * single);
  });

  it('takes longer for a bigger batch: its tokens are prefill work on the batcher', async () => {
    const time = async (n: number): Promise<number> => {
      const t = performance.now();
      await postJson(`${sim.url}/embeddings`, { model: MODEL_A, input: texts(n, 2000) });
      return performance.now() - t;
    };
    await time(1);
    const small = await time(1);
    const big = await time(32);
    expect(big).toBeGreaterThan(small * 2);
  });

  it('reranks on /v1/rerank and llama.cpp\'s /rerank, sorted, with usage of the pairs', async () => {
    for (const path of ['/v1/rerank', '/rerank', '/v1/reranking']) {
      const r = await postJson(sim.url.replace(/\/v1$/, '') + path, {
        model: MODEL_A, query: 'q', documents: texts(3, 40),
      });
      expect(r.status).toBe(200);
      const body = r.json as {
        results: { index: number; relevance_score: number }[];
        usage: { prompt_tokens: number };
      };
      expect(body.results).toHaveLength(3);
      expect(body.results[0]!.relevance_score).toBeGreaterThanOrEqual(body.results[2]!.relevance_score);
      expect(body.usage.prompt_tokens).toBeGreaterThan(3 * 40);
    }
  });

  it('answers a bad body with the OpenAI error shape', async () => {
    const r = await postJson(`${sim.url}/embeddings`, { model: MODEL_A, input: [] });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ error: { type: 'BadRequestError', param: 'input', code: 400 } });
    const wrong = await postJson(`${sim.url}/embeddings`, { model: 'other', input: 'x' });
    expect(wrong.status).toBe(404);
  });
});
