// End to end: the agentic script's tool-call sessions on llama.cpp's llama-server (the tiny Qwen3 model) over its
// Responses and Messages APIs: function_call / function_call_output items and tool_use / tool_result blocks all
// accepted, every tool result read by the server's own prompt count (test/e2e/agentic-real.ts). Runs in Node (vitest).

import { afterAll, beforeAll, describe, it } from 'vitest';
import { ensureLlamaArtefacts, startLlamaServer, type LlamaServer } from '../../orchestrator/llama-server';
import { expectToolSessionsOnApi } from './agentic-real';

let server: LlamaServer;

beforeAll(async () => {
  server = await startLlamaServer(await ensureLlamaArtefacts(() => {}), { slots: 1, contextPerSlot: 4096, threads: 1 });
}, 900_000);

afterAll(async () => {
  await server?.stop();
});

describe.each(['responses', 'messages'] as const)('k6 run dist/agentic.js against llama-server on %s', (api) => {
  it('runs tool-call sessions in the API\'s own shape, every call accepted', async () => {
    await expectToolSessionsOnApi(`${server.base}/v1`, server.model, api);
  }, 600_000);
});
