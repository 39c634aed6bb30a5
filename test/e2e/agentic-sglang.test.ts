// End to end: the agentic script against SGLang (its CPU stand-in) with the tiny Qwen3 model: tool-call sessions
// accepted, and a replayed agent trace of exact prompt lengths by SGLang's count (test/e2e/agentic-real.ts). Runs in
// Node (vitest).

import { afterAll, beforeAll, describe, it } from 'vitest';
import { ensureSglangArtefacts, startSglangServer, type SglangServer } from '../../orchestrator/sglang-server';
import { expectAgenticOnServer, expectToolSessionsOnApi } from './agentic-real';

let server: SglangServer;

beforeAll(async () => {
  server = await startSglangServer(await ensureSglangArtefacts(() => {}));
}, 1_800_000);

afterAll(async () => {
  await server?.stop();
});

describe('k6 run dist/agentic.js against SGLang', () => {
  it('runs tool-call sessions, and replays an agent trace at its exact prompt lengths', async () => {
    await expectAgenticOnServer(`${server.base}/v1`, server.model);
  }, 600_000);
});

// The Responses and Messages shapes on the same server: function_call / function_call_output items and tool_use /
// tool_result blocks all accepted, every tool result read by the server's own prompt count.
describe.each(['responses', 'messages'] as const)('k6 run dist/agentic.js against SGLang on %s', (api) => {
  it('runs tool-call sessions in the API\'s own shape, every call accepted', async () => {
    await expectToolSessionsOnApi(`${server.base}/v1`, server.model, api);
  }, 600_000);
});
