// End to end: the agentic script's tool-call sessions on SGLang's Responses and Messages APIs (its CPU stand-in with
// the tiny Qwen3 model): function_call / function_call_output items and tool_use / tool_result blocks all accepted,
// every tool result read (test/e2e/agentic-real.ts). Runs in Node (vitest).

import { afterAll, beforeAll, describe, it } from 'vitest';
import { ensureSglangArtefacts, startSglangServer, type SglangServer } from '../../orchestrator/sglang-server';
import { expectToolSessionsOnApi } from './agentic-real';

let server: SglangServer;

beforeAll(async () => {
  server = await startSglangServer(await ensureSglangArtefacts(() => {}));
}, 1_800_000);

afterAll(async () => {
  await server?.stop();
});

describe.each(['responses', 'messages'] as const)('k6 run dist/agentic.js against SGLang on %s', (api) => {
  it('runs tool-call sessions in the API\'s own shape, every call accepted', async () => {
    await expectToolSessionsOnApi(`${server.base}/v1`, server.model, api);
  }, 600_000);
});
