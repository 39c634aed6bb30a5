// End to end against vLLM's CPU build with the tiny Qwen3 model (Hugging Face format), and the suite through
// `npm run bench -- --target vllm`. Runs in Node (vitest).
//
// The install (scripts/ensure-vllm.sh, about 3 GB, minutes) happens here when `npm run vllm:build` has not run.

import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRICS } from '../../lib/metrics';
import { requestPrefix } from '../../lib/prompt-text';
import { groupMembers } from '../../orchestrator/process-group';
import { ensureVllmArtefacts, startVllmServer, type VllmServer } from '../../orchestrator/vllm-server';
import { preparePrompts } from '../../tokenizer/prepare-prompts';
import { extraTags, readCsv, readJson, runBenchCli, tempDir, writePlan } from './helpers';

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
    expect(bench.exitCode, bench.stderr.slice(-3000)).toBe(0);
    expect(bench.stderr).toMatch(/vLLM, CPU build \(max-model-len 16384, .*\) listening at http:\/\/127\.0\.0\.1:\d+/);
    const run = readJson<{
      target: { simulated: boolean; server: { name: string } }; promptsExact: boolean;
      requests: Record<string, { succeeded: number; failed: number }>;
    }>(path.join(runDir, 'run.json'));
    expect(run.target).toMatchObject({ simulated: false, server: { name: 'vllm' } });
    expect(run.promptsExact).toBe(true);
    expect(run.requests.sweep).toMatchObject({ succeeded: 6, failed: 0 });
    const rows = readCsv(path.join(runDir, 'sweep', 'samples.csv')).rows;
    const tokenMetrics: string[] = [METRICS.inputTokens.name, METRICS.outputTokens.name];
    const counted = rows.filter((r) => tokenMetrics.includes(r.metric_name!));
    expect(counted.length).toBe(12);
    for (const row of counted) {
      const tags = extraTags(row);
      expect(tags.token_source).toBe('usage');
      const planned = row.metric_name === METRICS.inputTokens.name ? tags.context : tags.output;
      expect(Number(row.metric_value), `${tags.cell} ${row.metric_name}`).toBe(Number(planned));
    }
    for (const f of ['report.md', 'report.html', 'cells.csv']) expect(existsSync(path.join(runDir, f)), f).toBe(true);
  });
});
