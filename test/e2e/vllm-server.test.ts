// End to end against vLLM's CPU build with the tiny Qwen3 model (Hugging Face format): its streams and errors, the
// gate, the suite against vLLM's own histograms, its prefix cache, abandoned and killed requests. Runs in Node
// (vitest).
//
// The server is the one `npm run bench -- --target vllm` starts (orchestrator/built-in-server.ts). What the bench does
// around a server it starts (keep what it measured on Ctrl-C, stop the server) is the same code for every target, and
// is tested on llama-server (test/e2e/llama-server.test.ts), which starts in a second, not in half a minute.
//
// The install (scripts/ensure-vllm.sh, about 3 GB, minutes) happens here when `npm run vllm:build` has not run.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requestPrefix } from '../../lib/prompt-text';
import { builtInVllm } from '../../orchestrator/built-in-server';
import { ensureVllmArtefacts, startVllmServer, type VllmServerSettings } from '../../orchestrator/vllm-server';
import { preparePrompts } from '../../tokenizer/prepare-prompts';
import { expectAgenticOnServer, expectToolSessionsOnApi } from './agentic-real';
import { testAgent } from './helpers';
import { expectServerRowsLive } from './real-server-grafana';
import {
  cachedTokensRun, clockSweep, expectAbandonedFreed, expectClockAgreement, expectGate, expectApiSweep,
  expectKilledMidStream, expectOnLastCore, expectSearchClocks, streamChat,
} from './real-server';
import { takeStartedServer, type StartedServer } from './started-server';

let server: StartedServer<VllmServerSettings>;
let v1: string;

beforeAll(async () => {
  // Started as the run began (test/e2e/real-servers-setup.ts), unless this run did not.
  server = await takeStartedServer<VllmServerSettings>('vllm', 1_200_000) ??
    await startVllmServer(await ensureVllmArtefacts(() => {}));
  v1 = `${server.base}/v1`;
}, 1_800_000);

afterAll(async () => {
  await server?.stop();
});

// Before the tests that kill and stop the server.
describe("vLLM's Responses and Messages APIs", () => {
  for (const api of ['responses', 'messages'] as const) {
    it(`npm run bench --api ${api}: every request completes with its planned lengths by vLLM's usage`, async () => {
      await expectApiSweep(server, api);
    }, 180_000);
  }
});

// The agentic script on the same server (test/e2e/agentic-real.ts): tool-call sessions accepted, a replayed agent
// trace at its exact prompt lengths by vLLM's count, and the Responses and Messages shapes (function_call /
// function_call_output items, tool_use / tool_result blocks) with every tool result read by vLLM's prompt count.
describe('k6 run dist/agentic.js against vLLM', () => {
  it('runs tool-call sessions, and replays an agent trace at its exact prompt lengths', async () => {
    await expectAgenticOnServer(v1, server.model);
  }, 600_000);
  for (const api of ['responses', 'messages'] as const) {
    it(`runs tool-call sessions on ${api} in the API's own shape, every call accepted`, async () => {
      await expectToolSessionsOnApi(v1, server.model, api);
    }, 600_000);
  }
});

describe('vLLM (CPU build), a real inference server', () => {
  it('counts prompt tokens as the suite does, the chat template included, and streams usage last', async () => {
    const prompts = await preparePrompts({
      model: server.model, api: 'chat', contexts: [1024, 4096], tokenizer: 'auto', baseUrl: v1, apiKey: null,
    });
    expect(prompts.exact).toBe(true);
    expect(prompts.tokenizer).toMatch(/qwen3/i);
    for (const set of prompts.prompts) {
      const { status, chunks, body } = await streamChat(server, requestPrefix('unique', 123_456, 7, 89) + set.body, 16);
      expect(status, body.slice(0, 500)).toBe(200);
      const last = chunks.at(-1)!;
      // vLLM's usage chunk has no choices; the suite reads usage from it.
      expect(last.choices).toEqual([]);
      expect(last.usage?.prompt_tokens, `${set.contextTokens}-token prompt as vLLM counts it`).toBe(set.contextTokens);
      expect(last.usage?.completion_tokens).toBe(16);
    }
  }, 120_000);

  it('answers an over-long prompt with 400', async () => {
    const { status, body } = await streamChat(server, 'word '.repeat(server.settings.maxModelLen + 100), 8);
    expect(status).toBe(400);
    expect(body).toMatch(/context|length|tokens/i);
  }, 60_000);

  it('is named and described as `npm run bench -- --target vllm` logs it and run.json records it', () => {
    const target = builtInVllm(server);
    expect(target).toMatchObject({ name: 'vllm', base: server.base, contextWindow: server.settings.maxModelLen });
    expect(target.description).toBe('vLLM, CPU build (max-model-len 16384, 1 GiB KV cache, 1 thread on 1 core)');
  });

  it("keeps every process of vLLM on the machine's last core, away from k6 and the agent", () => {
    expectOnLastCore(server);
  });

  it('gates a deploy on k6: exit 0 within the limits, 99 when a limit breaks', async () => {
    await expectGate(v1, server.model);
  }, 180_000);

  it("agrees with vLLM's own clock per cell (TTFT, e2e never below; ITL within 5%); Grafana shows it", async () => {
    // A real Prometheus scrapes the server meanwhile: the dashboard's server lines must show it.
    let sweep: Awaited<ReturnType<typeof clockSweep>> | null = null;
    const grafana = await expectServerRowsLive({
      job: 'vllm', base: server.base, drive: async () => void (sweep = await clockSweep(server)),
    });
    console.log(grafana.lines.join('\n'));
    expect(grafana.live.length).toBeGreaterThanOrEqual(7);
    const { clocks, md } = sweep!;
    expectClockAgreement('vLLM', clocks);
    expect(md).toMatch(/## The Server's Own Clock\n/);
    expect(md).toMatch(/The KV cache was at most \*\*\d+\.\d%\*\* full/);
  }, 240_000);

  it("a capacity search climbing and dropping: vLLM's clock over each step's own requests, or none", async () => {
    console.log((await expectSearchClocks(server)).join('\n'));
  }, 240_000);

  it("finds the repeated prompt cached: llm_cached_tokens are the hits vLLM's own counter adds", async () => {
    const { before, after, cached, requests } = await cachedTokensRun(server);
    expect(requests).toBe(2);
    // vLLM 0.32 states cached tokens even when there are none (older vLLM left the field out; the simulator states
    // it as 0.32 does): the first request finds none, the second all of the first's full blocks.
    expect(cached).toHaveLength(2);
    expect(cached[0]).toBe(0);
    expect(cached[1]).toBeGreaterThanOrEqual(768);
    expect(after.prefixCacheHitsTotal! - before.prefixCacheHitsTotal!).toBe(cached[1]);
  }, 120_000);

  it('stops running a request the client gives up on (timeout; its running gauge back to 0)', async () => {
    await expectAbandonedFreed(await testAgent(), server);
  }, 60_000);

  // Last: it kills the server.
  it('killed mid-stream: a stream failure, and stopping vLLM leaves none of its processes', async () => {
    await expectKilledMidStream(await testAgent(), server, 2);
  }, 120_000);
});
