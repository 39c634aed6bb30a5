// End to end: the agentic script against SGLang (its CPU stand-in) with the tiny Qwen3 model: tool-call sessions
// accepted, and a replayed agent trace of exact prompt lengths by SGLang's count (test/e2e/agentic-real.ts). Runs in
// Node (vitest).

import { afterAll, beforeAll, describe, it } from 'vitest';
import { ensureSglangArtefacts, startSglangServer, type SglangServer } from '../../orchestrator/sglang-server';
import { expectAgenticOnServer } from './agentic-real';

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
