// End to end against vLLM's CPU build with the tiny Qwen3 model (Hugging Face format), and the suite through
// `npm run bench -- --target vllm`. Runs in Node (vitest).
//
// The install (scripts/ensure-vllm.sh, about 3 GB, minutes) happens here when `npm run vllm:build` has not run.

import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestPrefix } from '../../lib/prompt-text';
import { groupMembers } from '../../orchestrator/process-group';
import { ensureVllmArtefacts, startVllmServer, type VllmServer } from '../../orchestrator/vllm-server';
import { preparePrompts } from '../../tokenizer/prepare-prompts';
import { runBenchCli, tempDir, writePlan } from './helpers';
import { expectExactSweep } from './real-server';

let server: VllmServer;
let v1: string;

beforeAll(async () => {
  server = await startVllmServer(await ensureVllmArtefacts(() => {}));
  v1 = `${server.base}/v1`;
}, 1_800_000);

afterAll(async () => {
  await server?.stop();
});

interface Chunk {
  choices: { delta?: { content?: string }; finish_reason?: string | null }[];
  usage?: { prompt_tokens: number; completion_tokens: number };
}

interface Streamed {
  status: number;
  chunks: Chunk[];
  body: string;
}

/** A streamed chat completion, read to the end: its chunks, in order. */
async function streamChat(content: string, maxTokens: number): Promise<Streamed> {
  const res = await fetch(`${v1}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: server.model, messages: [{ role: 'user', content }], max_tokens: maxTokens, ignore_eos: true, stream: true,
      stream_options: { include_usage: true },
    }),
  });
  const body = await res.text();
  const data = body.split('\n').filter((l) => l.startsWith('data: ') && l !== 'data: [DONE]');
  return { status: res.status, chunks: data.map((l) => JSON.parse(l.slice(6)) as Chunk), body };
}

describe('vLLM (CPU build), a real inference server', () => {
  it('counts prompt tokens as the suite does, the chat template included, and streams usage last', async () => {
    const prompts = await preparePrompts({
      model: server.model, api: 'chat', contexts: [1024, 4096], tokenizer: 'auto', baseUrl: v1, apiKey: null,
    });
    expect(prompts.exact).toBe(true);
    expect(prompts.tokenizer).toMatch(/qwen3/i);
    for (const set of prompts.prompts) {
      const { status, chunks, body } = await streamChat(requestPrefix('unique', 123_456, 7, 89) + set.body, 16);
      expect(status, body.slice(0, 500)).toBe(200);
      const last = chunks.at(-1)!;
      // vLLM's usage chunk has no choices; the suite reads usage from it.
      expect(last.choices).toEqual([]);
      expect(last.usage?.prompt_tokens, `${set.contextTokens}-token prompt as vLLM counts it`).toBe(set.contextTokens);
      expect(last.usage?.completion_tokens).toBe(16);
    }
  }, 120_000);

  it('answers an over-long prompt with 400', async () => {
    const { status, body } = await streamChat('word '.repeat(server.settings.maxModelLen + 100), 8);
    expect(status).toBe(400);
    expect(body).toMatch(/context|length|tokens/i);
  }, 60_000);
});

// Before the bench below starts a vLLM of its own: two on two cores would slow both.
describe('stopping vLLM', () => {
  it('leaves no process of the server: API server, engine core and worker all end', async () => {
    const { pgid } = server.group;
    expect(groupMembers(pgid).length, 'vLLM runs as several processes').toBeGreaterThan(1);
    await server.stop();
    expect(groupMembers(pgid)).toEqual([]);
    await expect(fetch(`${server.base}/health`)).rejects.toThrow();
  }, 60_000);
});

describe('npm run bench -- --target vllm', () => {
  const dir = tempDir('vllm-bench');
  const runDir = path.join(dir, 'vllm');
  let bench: Awaited<ReturnType<typeof runBenchCli>>;

  beforeAll(async () => {
    const plan = { sweep: { contexts: [1024, 4096], concurrencies: [1, 2], rounds: 1, outputTokens: 32 } };
    bench = await runBenchCli([
      '--target', 'vllm', '--plan', writePlan(dir, plan), '--scripts', 'sweep', '--results', dir, '--run-id', 'vllm',
    ]);
  }, 900_000);

  it('starts vLLM, runs the sweep on k6 with exact prompt and output lengths, and writes the report', () => {
    expectExactSweep(bench, runDir, 'vllm');
    expect(bench.stderr).toMatch(/vLLM, CPU build \(max-model-len 16384, .*\) listening at http:\/\/127\.0\.0\.1:\d+/);
  });
});
