// Exact-length prompt preparation by each of its three ways. Runs in Node (vitest).
// With the Qwen3 tokenizer, with a server's /tokenize (the real simulator), and approximately.

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestPrefix } from '../../lib/prompt-text';
import { startSim } from '../../sim/server';
import { isQwen3Model, preparePrompts } from '../../tokenizer/prepare-prompts';
import { loadQwen3Tokenizer } from '../../tokenizer/qwen3';
import { TokenText } from '../../sim/text';
import { ROOT, tempDir } from '../e2e/helpers';

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

  it("prepares follow-ups that add exactly their length to a conversation's next turn, " +
    "besides the answer", async () => {
    const set = await preparePrompts({
      model: MODEL, api: 'chat', contexts: [1024], followUps: [64, 700], tokenizer: 'qwen3',
    });
    expect(set.exact).toBe(true);
    const tok = loadQwen3Tokenizer();
    const first = { role: 'user' as const, content: requestPrefix('unique', 3, 2, 1) + set.prompts[0]!.body };
    for (const f of set.followUps!) {
      // The answer as the simulator generates it: one token per word.
      const answer = { role: 'assistant' as const, content: new TokenText(f.contextTokens).tokens(128) };
      expect(tok.countChat([first, answer, { role: 'user', content: f.body }])).toBe(1024 + 128 + f.contextTokens);
    }
    const tooShort = { model: MODEL, api: 'chat', contexts: [1024], followUps: [8], tokenizer: 'qwen3' } as const;
    await expect(preparePrompts(tooShort)).rejects.toThrow(
      /follow-up of 8 tokens is shorter than its fixed part/,
    );
  });

  it('builds a context fitted to the window at its shorter length, under its own context name', async () => {
    const fitted = new Map([[4096, 4000]]);
    const set = await preparePrompts({ model: MODEL, api: 'chat', contexts: [1024, 4096], fitted, tokenizer: 'qwen3' });
    expect(set.exact).toBe(true);
    const [short, long] = set.prompts;
    expect(short).not.toHaveProperty('promptTokens');
    expect(long).toMatchObject({ contextTokens: 4096, promptTokens: 4000, measuredTokens: 4000 });
    const tok = loadQwen3Tokenizer();
    expect(tok.countChat([{ role: 'user', content: requestPrefix('unique', 9, 9, 9) + long!.body }])).toBe(4000);
    const approximate = await preparePrompts({
      model: 'm', api: 'chat', contexts: [4096], fitted, tokenizer: 'approximate',
    });
    expect(approximate.prompts[0]).toMatchObject({ contextTokens: 4096, promptTokens: 4000 });
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
    const set = await preparePrompts({
      model: MODEL, api: 'chat', contexts: [300, 2048], tokenizer: 'server', baseUrl: sim.url,
    });
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
    expect(loadQwen3Tokenizer().countChat([first, answer, { role: 'user', content: set.followUps![0]!.body }])).toBe(
      300 + 50 + 100,
    );
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
    const set = await preparePrompts({
      model: 'meta-llama/Llama-3.1-8B-Instruct', api: 'chat', contexts: [1024], tokenizer: 'auto',
    });
    expect(set.exact).toBe(false);
    expect(set.tokenizer).toMatch(/approximate/);
  });
});

describe('npm run prepare-prompts with a context window', () => {
  const cli = (args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts', 'prepare-prompts.ts'), ...args], {
      cwd: ROOT, encoding: 'utf8',
    });

  it('fits contexts longer than the window less the output, and says so', () => {
    const out = path.join(tempDir('prompts-window'), 'prompts.json');
    const r = cli([
      '--out', out, '--contexts', '1k,4k', '--window', '4k', '--output-tokens', '256', '--tokenizer', 'qwen3',
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toContain('context 4096 fitted to 3840 tokens');
    const set = JSON.parse(readFileSync(out, 'utf8')) as { exact: boolean; prompts: object[] };
    expect(set.exact).toBe(true);
    expect(set.prompts[1]).toMatchObject({ contextTokens: 4096, promptTokens: 3840, measuredTokens: 3840 });
  });

  it('refuses an output that leaves no room for the prompt, in one line', () => {
    const out = path.join(tempDir('prompts-window'), 'prompts.json');
    const r = cli([
      '--out', out, '--contexts', '4k', '--window', '4k', '--output-tokens', '3000', '--tokenizer', 'qwen3',
    ]);
    expect(r.status).not.toBe(0);
    expect(r.stderr.trim()).toMatch(
      /^prepare-prompts: cells of context 4096 ask 3000 output tokens.*window is 4096 tokens/,
    );
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });
});
