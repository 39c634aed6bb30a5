// End to end against SGLang on the CPU with the tiny Qwen3 model (Hugging Face format): its streams and errors, the
// gate, the suite against SGLang's own histograms, its prefix cache, several tokens per chunk, abandoned and killed
// requests. Runs in Node (vitest). The sgl_kernel stand-in is checked against SGLang's kernel in
// test/e2e/sglang-standin.test.ts, which needs no server.
//
// The server is the one `npm run bench -- --target sglang` starts (orchestrator/built-in-server.ts). What the bench
// does around a server it starts (keep what it measured on Ctrl-C, stop the server) is the same code for every target,
// and is tested on llama-server (test/e2e/llama-server.test.ts), which starts in a second, not in 40.
//
// The install (scripts/ensure-sglang.sh, about 3.2 GB, minutes) happens here when `npm run sglang:build` has not
// run. SGLang's sgl_kernel is the project's CPU stand-in (scripts/sglang-cpu/sgl_kernel): see ensure-sglang.sh.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePrometheusText, readServerSnapshot } from '../../lib/prometheus';
import { requestPrefix } from '../../lib/prompt-text';
import { builtInSglang } from '../../orchestrator/built-in-server';
import {
  ensureSglangArtefacts, startSglangServer, type SglangServerSettings,
} from '../../orchestrator/sglang-server';
import { preparePrompts } from '../../tokenizer/prepare-prompts';
import { expectAgenticOnServer, expectToolSessionsOnApi } from './agentic-real';
import { testAgent } from './helpers';
import { expectServerRowsLive } from './real-server-grafana';
import {
  cachedTokensRun, clockSweep, expectAbandonedFreed, expectClockAgreement, expectGate, expectApiSweep,
  expectKilledMidStream, expectOnLastCore, expectSearchClocks, streamChat, viaAgent,
  type AgentAnswer, type Chunk,
} from './real-server';
import { takeStartedServer, type StartedServer } from './started-server';

let server: StartedServer<SglangServerSettings>;
let v1: string;

beforeAll(async () => {
  // Started as the run began (test/e2e/real-servers-setup.ts), unless this run did not.
  server = await takeStartedServer<SglangServerSettings>('sglang', 1_200_000) ??
    await startSglangServer(await ensureSglangArtefacts(() => {}));
  v1 = `${server.base}/v1`;
}, 1_800_000);

afterAll(async () => {
  await server?.stop();
});

/** The events of an answer that carry generated text. */
function contentChunks(answer: AgentAnswer): number {
  const carriesText = (data: string) =>
    data.startsWith('{') && !!(JSON.parse(data) as Chunk).choices[0]?.delta?.content;
  return answer.events!.filter((e) => carriesText(e.data)).length;
}

// Before the tests that kill and stop the server.
describe("SGLang's Responses and Messages APIs", () => {
  for (const api of ['responses', 'messages'] as const) {
    it(`npm run bench --api ${api}: every request completes with its planned lengths by SGLang's usage`, async () => {
      // SGLang's Responses API generates max_output_tokens - 2 ("headroom for BOS/EOS", ResponsesRequest.
      // to_sampling_params in sglang/srt/entrypoints/openai/protocol.py, 0.5.23); its Messages API does not.
      await expectApiSweep(server, api, api === 'responses' ? 2 : 0);
    }, 180_000);
  }
});

// The agentic script on the same server (test/e2e/agentic-real.ts): tool-call sessions accepted, a replayed agent
// trace at its exact prompt lengths by SGLang's count, and the Responses and Messages shapes (function_call /
// function_call_output items, tool_use / tool_result blocks) with every tool result read by SGLang's prompt count.
describe('k6 run dist/agentic.js against SGLang', () => {
  it('runs tool-call sessions, and replays an agent trace at its exact prompt lengths', async () => {
    await expectAgenticOnServer(v1, server.model);
  }, 600_000);
  for (const api of ['responses', 'messages'] as const) {
    it(`runs tool-call sessions on ${api} in the API's own shape, every call accepted`, async () => {
      await expectToolSessionsOnApi(v1, server.model, api);
    }, 600_000);
  }
});

describe('SGLang (CPU), a real inference server: its tokens, window, metrics and chunks', () => {
  it('counts prompt tokens as the suite does, the chat template included, and streams usage last', async () => {
    const prompts = await preparePrompts({
      model: server.model, api: 'chat', contexts: [1024, 4096], tokenizer: 'auto', baseUrl: v1, apiKey: null,
    });
    expect(prompts.exact).toBe(true);
    for (const set of prompts.prompts) {
      const { status, chunks, body } = await streamChat(server, requestPrefix('unique', 123_456, 7, 89) + set.body, 16);
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
    const { status, body } = await streamChat(server, 'word '.repeat(server.settings.contextLength + 100), 8);
    expect(status).toBe(400);
    expect(body).toMatch(/context|length|tokens/i);
  }, 60_000);

  it('states its window in /v1/models, where `npm run bench -- --target sglang` reads it', async () => {
    const models = (await (await fetch(`${v1}/models`)).json()) as { data: { id: string; max_model_len?: number }[] };
    expect(models.data[0]).toMatchObject({ id: server.model, max_model_len: server.settings.contextLength });
    expect(builtInSglang(server)).toMatchObject({ name: 'sglang', base: server.base, contextWindow: null });
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
    const story = (i: number) => `${requestPrefix('unique', 5, i, 0)} Tell a story.`;
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) => viaAgent(agent, server, story(i), 64, { events: true })),
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

describe('SGLang (CPU) under the bench: its core, the gate, its own clock, its cache, timeouts and a kill', () => {
  it("keeps every process of SGLang on the machine's last core, away from k6 and the agent", () => {
    expectOnLastCore(server);
  });

  it('gates a deploy on k6: exit 0 within the limits, 99 when a limit breaks', async () => {
    await expectGate(v1, server.model);
  }, 180_000);

  it("agrees with SGLang's own clock per cell (TTFT, e2e never below; ITL within 5%); Grafana shows it", async () => {
    // A real Prometheus scrapes the server meanwhile: the dashboard's server lines must show it.
    let sweep: Awaited<ReturnType<typeof clockSweep>> | null = null;
    const grafana = await expectServerRowsLive({
      job: 'sglang', base: server.base, drive: async () => void (sweep = await clockSweep(server)),
    });
    console.log(grafana.lines.join('\n'));
    expect(grafana.live.length).toBeGreaterThanOrEqual(7);
    const { clocks, md } = sweep!;
    expectClockAgreement('SGLang', clocks);
    expect(md).toMatch(/## The Server's Own Clock\n/);
    expect(md).toMatch(/The KV cache was at most \*\*\d+\.\d%\*\* full/);
  }, 240_000);

  it("a capacity search climbing and dropping: SGLang's clock over each step's own requests, or none", async () => {
    console.log((await expectSearchClocks(server)).join('\n'));
  }, 240_000);

  it("finds the repeated prompt cached: llm_cached_tokens add up to SGLang's own cached-token counter", async () => {
    const { before, after, cached, requests } = await cachedTokensRun(server);
    expect(requests).toBe(2);
    // Its radix cache matches token by token: the second request finds all of the first's prompt but its last token
    // (the first may find the chat template's first tokens, cached by earlier requests).
    expect(Math.max(...cached)).toBeGreaterThanOrEqual(1000);
    const sum = cached.reduce((a, b) => a + b, 0);
    expect(after.prefixCacheHitsTotal! - (before.prefixCacheHitsTotal ?? 0)).toBe(sum);
  }, 120_000);

  it('stops running a request the client gives up on (timeout; its running gauge back to 0)', async () => {
    await expectAbandonedFreed(await testAgent(), server);
  }, 60_000);

  // Last: it kills the server.
  it('killed mid-stream: a stream failure, and stopping SGLang leaves none of its processes', async () => {
    await expectKilledMidStream(await testAgent(), server, 3);
  }, 120_000);
});
