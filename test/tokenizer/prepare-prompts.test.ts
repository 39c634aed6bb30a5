// Exact-length prompt preparation by each of its three ways. Runs in Node (vitest).
// With the Qwen3 tokenizer, with a server's /tokenize (the real simulator), and approximately.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestPrefix } from '../../lib/prompt-text';
import { startSim } from '../../sim/server';
import { isQwen3Model, preparePrompts } from '../../tokenizer/prepare-prompts';
import { loadQwen3Tokenizer } from '../../tokenizer/qwen3';
import { TokenText } from '../../sim/text';

const MODEL = 'Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8';
const CONTEXTS = [300, 1024, 4096];

describe('preparePrompts with the Qwen3 tokenizer', () => {
  it('hits every chat length exactly, whatever the per-request prefix', async () => {
    const set = await preparePrompts({ model: MODEL, api: 'chat', contexts: CONTEXTS, tokenizer: 'auto' });
    expect(set.exact).toBe(true);
    expect(set.tokenizer).toContain('qwen3');
    const tok = loadQwen3Tokenizer();
    for (const p of set.prompts) {
      expect(p.measuredTokens).toBe(p.contextTokens);
      for (const prefix of [
        requestPrefix('unique', 123_456, 7, 89), requestPrefix('unique', 1, 99_999, 0),
        requestPrefix('shared-prefix', 0, 0, 0),
      ]) {
        expect(tok.countChat([{ role: 'user', content: prefix + p.body }])).toBe(p.contextTokens);
      }
    }
  });

  it('hits completions lengths exactly (no chat template)', async () => {
    const set = await preparePrompts({ model: MODEL, api: 'completions', contexts: [512], tokenizer: 'qwen3' });
    const tok = loadQwen3Tokenizer();
    expect(tok.countText(requestPrefix('unique', 5, 5, 5) + set.prompts[0]!.body)).toBe(512);
  });

  it("prepares follow-ups that add exactly their length to a conversation's next turn, besides the answer", async () => {
    const set = await preparePrompts({ model: MODEL, api: 'chat', contexts: [1024], followUps: [64, 700], tokenizer: 'qwen3' });
    expect(set.exact).toBe(true);
    const tok = loadQwen3Tokenizer();
    const first = { role: 'user' as const, content: requestPrefix('unique', 3, 2, 1) + set.prompts[0]!.body };
    for (const f of set.followUps!) {
      // The answer as the simulator generates it: one token per word.
      const answer = { role: 'assistant' as const, content: new TokenText(f.contextTokens).tokens(128) };
      expect(tok.countChat([first, answer, { role: 'user', content: f.body }])).toBe(1024 + 128 + f.contextTokens);
    }
    await expect(preparePrompts({ model: MODEL, api: 'chat', contexts: [1024], followUps: [8], tokenizer: 'qwen3' })).rejects.toThrow(
      /follow-up of 8 tokens is shorter than its fixed part/,
    );
  });

  it('refuses a context shorter than the fixed part of the prompt', async () => {
    await expect(preparePrompts({ model: MODEL, api: 'chat', contexts: [5], tokenizer: 'qwen3' })).rejects.toThrow(
      /shorter than the prompt's fixed part/,
    );
  });
});

describe('preparePrompts with a server /tokenize', () => {
  let sim: Awaited<ReturnType<typeof startSim>>;
  beforeAll(async () => {
    sim = await startSim({ port: 0, fixed: { ttftMs: 1, itlMs: 1 } });
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('asks the server for counts and reaches the same exact lengths', async () => {
    const set = await preparePrompts({ model: MODEL, api: 'chat', contexts: [300, 2048], tokenizer: 'server', baseUrl: sim.url });
    expect(set.tokenizer).toContain('/tokenize');
    expect(set.exact).toBe(true);
    expect(set.prompts.map((p) => p.measuredTokens)).toEqual([300, 2048]);
  });

  it('prepares follow-ups through /tokenize to the lengths the local tokenizer counts', async () => {
    const set = await preparePrompts({
      model: MODEL, api: 'chat', contexts: [300], followUps: [100], tokenizer: 'server', baseUrl: sim.url,
    });
    expect(set.followUps!.map((f) => f.measuredTokens)).toEqual([100]);
    const first = { role: 'user' as const, content: requestPrefix('unique', 3, 2, 1) + set.prompts[0]!.body };
    const answer = { role: 'assistant' as const, content: new TokenText(1).tokens(50) };
    expect(loadQwen3Tokenizer().countChat([first, answer, { role: 'user', content: set.followUps![0]!.body }])).toBe(300 + 50 + 100);
  });

  it('says what to do when the server has no /tokenize', async () => {
    await expect(preparePrompts({
      model: MODEL, api: 'chat', contexts: [300], tokenizer: 'server', baseUrl: 'http://127.0.0.1:9/v1',
    })).rejects.toThrow();
  });
});

describe('model families', () => {
  it('uses the bundled tokenizer only for Qwen3 models, else approximates without a URL', async () => {
    expect(isQwen3Model('Qwen/Qwen3.5-35B-A3B-FP8')).toBe(true);
    expect(isQwen3Model('meta-llama/Llama-3.1-8B-Instruct')).toBe(false);
    const set = await preparePrompts({ model: 'meta-llama/Llama-3.1-8B-Instruct', api: 'chat', contexts: [1024], tokenizer: 'auto' });
    expect(set.exact).toBe(false);
    expect(set.tokenizer).toMatch(/approximate/);
  });
});
