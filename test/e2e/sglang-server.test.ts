// End to end against SGLang on the CPU with the tiny Qwen3 model (Hugging Face format), and the suite through
// `npm run bench -- --target sglang`. Runs in Node (vitest).
//
// The install (scripts/ensure-sglang.sh, about 3.2 GB, minutes) happens here when `npm run sglang:build` has not
// run. SGLang's sgl_kernel is the project's CPU stand-in (scripts/sglang-cpu/sgl_kernel): see ensure-sglang.sh.

import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePrometheusText, readServerSnapshot } from '../../lib/prometheus';
import { requestPrefix } from '../../lib/prompt-text';
import { groupMembers } from '../../orchestrator/process-group';
import {
  ensureSglangArtefacts, startSglangServer, type SglangArtefacts, type SglangServer,
} from '../../orchestrator/sglang-server';
import { preparePrompts } from '../../tokenizer/prepare-prompts';
import { ROOT, runBenchCli, tempDir, testAgent, writePlan } from './helpers';
import { expectExactSweep } from './real-server';

let artefacts: SglangArtefacts;
let server: SglangServer;
let v1: string;

beforeAll(async () => {
  artefacts = await ensureSglangArtefacts(() => {});
  server = await startSglangServer(artefacts);
  v1 = `${server.base}/v1`;
}, 1_800_000);

afterAll(async () => {
  await server?.stop();
});

interface Chunk {
  choices: { delta?: { content?: string }; finish_reason?: string | null }[];
  usage?: {
    prompt_tokens: number; completion_tokens: number; prompt_tokens_details?: { cached_tokens: number } | null;
  };
}

/** The JSON body of a streamed chat completion of `maxTokens` tokens, usage asked for. */
function chatBody(content: string, maxTokens: number): string {
  return JSON.stringify({
    model: server.model, messages: [{ role: 'user', content }], max_tokens: maxTokens, ignore_eos: true, stream: true,
    stream_options: { include_usage: true },
  });
}

interface Streamed {
  status: number;
  chunks: Chunk[];
  body: string;
}

/** A streamed chat completion, read to the end: its chunks, in order. */
async function streamChat(content: string, maxTokens: number): Promise<Streamed> {
  const res = await fetch(`${v1}/chat/completions`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: chatBody(content, maxTokens),
  });
  const body = await res.text();
  const data = body.split('\n').filter((l) => l.startsWith('data: ') && l !== 'data: [DONE]');
  return { status: res.status, chunks: data.map((l) => JSON.parse(l.slice(6)) as Chunk), body };
}

interface AgentAnswer {
  record: { outcome: string; outputTokens: number; outputTokenSource: string; inputTokens: number; itlMs: number[] };
  events: { data: string }[];
}

/** One streamed request through the measuring agent, with every event kept. */
async function viaAgent(agent: string, content: string, maxTokens: number): Promise<AgentAnswer> {
  const res = await fetch(`${agent}/stream`, {
    method: 'POST',
    body: JSON.stringify({
      url: `${v1}/chat/completions`, headers: { 'content-type': 'application/json' },
      body: chatBody(content, maxTokens), timeout: '120s', requestedOutputTokens: maxTokens, events: true,
    }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as AgentAnswer;
}

/** The events of an answer that carry generated text. */
function contentChunks(answer: AgentAnswer): number {
  return answer.events.filter((e) => e.data.startsWith('{') && (JSON.parse(e.data) as Chunk).choices[0]?.delta?.content)
    .length;
}

describe('SGLang (CPU), a real inference server', () => {
  it("runs on the project's sgl_kernel stand-in, which does what SGLang's own kernel does", () => {
    const python = path.join(path.dirname(artefacts.launcher), 'venv', 'bin', 'python');
    const script = path.join(ROOT, 'scripts', 'sglang-cpu', 'check_standin.py');
    const check = spawnSync(python, [script], { encoding: 'utf8' });
    expect(check.status, check.stderr.slice(-2000)).toBe(0);
    expect(check.stdout.trim()).toBe('ok');
  }, 120_000);

  it('counts prompt tokens as the suite does, the chat template included, and streams usage last', async () => {
    const prompts = await preparePrompts({
      model: server.model, api: 'chat', contexts: [1024, 4096], tokenizer: 'auto', baseUrl: v1, apiKey: null,
    });
    expect(prompts.exact).toBe(true);
    for (const set of prompts.prompts) {
      const { status, chunks, body } = await streamChat(requestPrefix('unique', 123_456, 7, 89) + set.body, 16);
      expect(status, body.slice(0, 500)).toBe(200);
      const last = chunks.at(-1)!;
      // As vLLM: the usage chunk has no choices.
      expect(last.choices).toEqual([]);
      const counted = `${set.contextTokens}-token prompt as SGLang counts it`;
      expect(last.usage?.prompt_tokens, counted).toBe(set.contextTokens);
      expect(last.usage?.completion_tokens).toBe(16);
      // --enable-cache-report: a number, 0 or more, never null.
      expect(last.usage?.prompt_tokens_details?.cached_tokens).toBeTypeOf('number');
    }
  }, 120_000);

  it('answers an over-long prompt with 400', async () => {
    const { status, body } = await streamChat('word '.repeat(server.settings.contextLength + 100), 8);
    expect(status).toBe(400);
    expect(body).toMatch(/context|length|tokens/i);
  }, 60_000);

  it('states its window in /v1/models, as the bench reads it', async () => {
    const models = (await (await fetch(`${v1}/models`)).json()) as { data: { id: string; max_model_len?: number }[] };
    expect(models.data[0]).toMatchObject({ id: server.model, max_model_len: server.settings.contextLength });
  });

  // Not preemptions: SGLang's sglang:num_retracted_requests_total appears with the first retraction.
  it('exposes the sglang: metrics the monitor reads', async () => {
    const text = await (await fetch(`${server.base}/metrics`)).text();
    const snapshot = readServerSnapshot(parsePrometheusText(text));
    const keys = [
      'running', 'waiting', 'kvCacheUsage', 'queueTimeCount', 'serverTtftCount', 'prefixCacheHitRate',
    ] as const;
    for (const key of keys)
      expect(snapshot[key], key).not.toBeNull();
  });

  it('puts several tokens in one chunk under load, and the agent gives each token its own ITL', async () => {
    const agent = await testAgent();
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) => viaAgent(agent, `${requestPrefix('unique', 5, i, 0)} Tell a story.`, 64)),
    );
    for (const a of answers) {
      expect(a.record).toMatchObject({ outcome: 'completed', outputTokens: 64, outputTokenSource: 'usage' });
      expect(a.record.itlMs).toHaveLength(63);
    }
    // SGLang streams what its detokenizer has when the HTTP side gets to it: with 16 streams on one core, some
    // chunks carry more than one token.
    expect(answers.filter((a) => contentChunks(a) < a.record.outputTokens).length).toBeGreaterThan(0);
  }, 300_000);
});

// Before the bench below starts an SGLang of its own: two on two cores would slow both.
describe('stopping SGLang', () => {
  it('leaves no process of the server: HTTP server, scheduler and detokenizer all end', async () => {
    const { pgid } = server.group;
    expect(groupMembers(pgid).length, 'SGLang runs as several processes').toBeGreaterThan(2);
    await server.stop();
    expect(groupMembers(pgid)).toEqual([]);
    await expect(fetch(`${server.base}/health`)).rejects.toThrow();
  }, 60_000);
});

describe('npm run bench -- --target sglang', () => {
  const dir = tempDir('sglang-bench');
  const runDir = path.join(dir, 'sglang');
  let bench: Awaited<ReturnType<typeof runBenchCli>>;

  beforeAll(async () => {
    const plan = { sweep: { contexts: [1024, 4096], concurrencies: [1, 2], rounds: 1, outputTokens: 32 } };
    bench = await runBenchCli([
      '--target', 'sglang', '--plan', writePlan(dir, plan), '--scripts', 'sweep', '--results', dir,
      '--run-id', 'sglang',
    ]);
  }, 900_000);

  it('starts SGLang, runs the sweep on k6 with exact prompt and output lengths, and writes the report', () => {
    expectExactSweep(bench, runDir, 'sglang');
  });
});
