// The measuring agent's stall meter on the real agent: a process stopped mid-request (SIGSTOP, as a paused VM stops
// everything) answers with the stop as its stall, and a request nothing stopped with a short one. Judged against the
// stop as this test made it, never against a nominal time. Runs in Node (vitest).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAgent, type AgentProcess } from '../../orchestrator/agent-process';
import { agentsStallMs, stepClientLimit } from '../../orchestrator/machine-stall';
import { startSimChild, type SimChild } from '../../sim/child';

/** How long the test stops the agent: far over the meter's 5 ms tick, far under the stream. */
const STOP_MS = 300;
/** The stop can read this much shorter at the agent: its meter wakes at most a tick late into it. */
const TICK_MS = 5;
/**
 * And this share shorter: after SIGCONT the meter's thread may wait for a core, which the meter counts as a busy
 * machine, not a stopped one (a 303 ms stop read 295.1 ms on a loaded 2-core CI machine, 2026-12-07).
 */
const RUN_QUEUE_SHARE = 0.05;

/** A stall the agent reported is the stop the test made: not longer, and shorter only by a tick and a core's wait. */
function expectTheStop(stallMs: number | null | undefined, stoppedMs: number): void {
  expect(stallMs).toBeGreaterThanOrEqual(stoppedMs * (1 - RUN_QUEUE_SHARE) - TICK_MS);
  expect(stallMs).toBeLessThanOrEqual(stoppedMs + TICK_MS);
}

let sim: SimChild;
let agent: AgentProcess;

beforeAll(async () => {
  // 80 tokens 10 ms apart: a stream of about 0.9 s, long enough to stop the agent inside it.
  sim = await startSimChild(['--fixed-ttft-ms', '40', '--fixed-itl-ms', '10']);
  agent = await startAgent({});
}, 60_000);

afterAll(async () => {
  await agent?.stop();
  await sim?.stop();
});

interface StallAnswer {
  readonly record: { readonly outcome: string; readonly errorMessage?: string };
  readonly health: { readonly stallMs: number | null };
}

/** One streamed chat request through the agent; `during` runs while it streams. */
async function streamed(during: () => Promise<void>): Promise<StallAnswer> {
  const body = JSON.stringify({
    model: 'Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8', stream: true, max_tokens: 80,
    messages: [{ role: 'user', content: 'stall meter' }],
  });
  const answer = fetch(`${agent.url}/stream`, {
    method: 'POST',
    body: JSON.stringify({
      url: `${sim.base}/v1/chat/completions`, headers: { 'Content-Type': 'application/json' }, body,
    }),
  }).then(async (r) => (await r.json()) as StallAnswer);
  await during();
  return answer;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("the agent's stall meter", () => {
  it('answers a request the agent was stopped in with the stop as its stall, and a quiet one with little', async () => {
    const quiet = await streamed(async () => undefined);
    let stoppedMs = 0;
    const fromMs = Date.now();
    const stopped = await streamed(async () => {
      await sleep(200);
      const from = performance.now();
      process.kill(agent.pid, 'SIGSTOP');
      await sleep(STOP_MS);
      process.kill(agent.pid, 'SIGCONT');
      stoppedMs = performance.now() - from;
    });
    expect([quiet.record.outcome, stopped.record.outcome], JSON.stringify(quiet.record))
      .toEqual(['completed', 'completed']);
    expectTheStop(stopped.health.stallMs, stoppedMs);
    expect(quiet.health.stallMs!).toBeGreaterThanOrEqual(0);
    expect(quiet.health.stallMs!).toBeLessThan(stoppedMs / 2);
    // Asked afterwards, as the bench asks after a part: the same stop, whether or not a record carried it; an agent
    // that cannot answer says nothing rather than failing the run.
    const asked = await agentsStallMs([agent.url, 'http://127.0.0.1:9'], fromMs, Date.now());
    expectTheStop(asked, stoppedMs);
    expect(await agentsStallMs(['http://127.0.0.1:9'], fromMs, Date.now())).toBeNull();
    expect(stepClientLimit(null, asked)).toMatch(/^the machine stopped running the measuring agent for \d+ ms during/);
  }, 30_000);
});

describe('stepClientLimit', () => {
  it("keeps a step's own verdict, and calls it limited by a stall of 50 ms or more, not by a shorter one", () => {
    expect(stepClientLimit('sender achieved 3.8 of 4 requests/s', 6000)).toBe('sender achieved 3.8 of 4 requests/s');
    expect(stepClientLimit(null, 49.9)).toBeNull();
    expect(stepClientLimit(null, null)).toBeNull();
    expect(stepClientLimit(null, 6047)).toBe(
      'the machine stopped running the measuring agent for 6.0 s during the step (a paused or starved VM, a stopped ' +
      'process)',
    );
  });
});
