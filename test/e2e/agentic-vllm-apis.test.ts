// End to end: the agentic script's tool-call sessions on vLLM's Responses and Messages APIs (its CPU build with the
// tiny Qwen3 model): function_call / function_call_output items and tool_use / tool_result blocks all accepted
// (test/e2e/agentic-real.ts). Runs in Node (vitest).

import { afterAll, beforeAll, describe, it } from 'vitest';
import { ensureVllmArtefacts, startVllmServer, type VllmServer } from '../../orchestrator/vllm-server';
import { expectToolSessionsOnApi } from './agentic-real';

let server: VllmServer;

beforeAll(async () => {
  server = await startVllmServer(await ensureVllmArtefacts(() => {}));
}, 1_800_000);

afterAll(async () => {
  await server?.stop();
});

describe.each(['responses', 'messages'] as const)('k6 run dist/agentic.js against vLLM on %s', (api) => {
  it('runs tool-call sessions in the API\'s own shape, every call accepted', async () => {
    await expectToolSessionsOnApi(`${server.base}/v1`, server.model, api);
  }, 600_000);
});
