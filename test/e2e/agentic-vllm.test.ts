// End to end: the agentic script against vLLM's CPU build with the tiny Qwen3 model: tool-call sessions accepted,
// and a replayed agent trace of exact prompt lengths by vLLM's count (test/e2e/agentic-real.ts). Runs in Node (vitest).

import { afterAll, beforeAll, describe, it } from 'vitest';
import { ensureVllmArtefacts, startVllmServer, type VllmServer } from '../../orchestrator/vllm-server';
import { expectAgenticOnServer } from './agentic-real';

let server: VllmServer;

beforeAll(async () => {
  server = await startVllmServer(await ensureVllmArtefacts(() => {}));
}, 1_800_000);

afterAll(async () => {
  await server?.stop();
});

describe('k6 run dist/agentic.js against vLLM', () => {
  it('runs tool-call sessions, and replays an agent trace at its exact prompt lengths', async () => {
    await expectAgenticOnServer(`${server.base}/v1`, server.model);
  }, 600_000);
});
