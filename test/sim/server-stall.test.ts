// The server-wide stall (POST /debug/stall): judged by the simulator's own record of when it wrote each token, since
// a busy machine makes a client read late, which says nothing of what the server wrote when. Runs in Node (vitest).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSim, type GroundTruthRecord, type SimServer } from '../../sim/server';
import type { SimOptions } from '../../sim/server-options';
import { contentEvents, MODEL_A, postJson, postStream, type StreamResult } from './helpers';

const TOKENS = 400;
const STALL_MS = 400;
/** The first token after the stall comes this soon after its end at most (a timer, or one step, late). */
const RESUME_WITHIN_MS = 250;

interface StallWindow {
  readonly startEpochMs: number;
  readonly endEpochMs: number;
}

const body = (n: number) => ({
  model: MODEL_A, messages: [{ role: 'user', content: 'hi' }], max_tokens: n, ignore_eos: true, stream: true,
});

async function postStall(sim: SimServer, query: string): Promise<{ status: number; json: unknown }> {
  return postJson(`${sim.url.replace(/\/v1$/, '')}/debug/stall${query}`, '');
}

/** Streams under way, a stall, a request arriving during it; the records of all of them once every stream ended. */
async function stallMidStream(sim: SimServer): Promise<{ window: StallWindow; records: GroundTruthRecord[] }> {
  const ids = ['s1', 's2', 's3'];
  const streams: Promise<StreamResult>[] = ids.map((id) =>
    postStream(`${sim.url}/chat/completions`, body(TOKENS), { 'x-request-id': id }));
  // Every stream is under way: the server has written some of its tokens.
  await vi.waitFor(() => {
    const written = sim.groundTruth().filter((r) => ids.includes(r.requestId) && r.tokenEpochMs.length >= 5);
    expect(written).toHaveLength(ids.length);
  }, { timeout: 10_000, interval: 5 });
  const stall = await postStall(sim, `?ms=${STALL_MS}`);
  expect(stall.status).toBe(200);
  const late = postStream(`${sim.url}/chat/completions`, body(20), { 'x-request-id': 'late' });
  const results = await Promise.all([...streams, late]);
  expect(results.map((r) => contentEvents(r).length)).toEqual([TOKENS, TOKENS, TOKENS, 20]);
  return { window: stall.json as StallWindow, records: sim.groundTruth() };
}

/** What every scheduler must do: silence inside the window, everything resumed after it. */
function checkStall(window: StallWindow, records: readonly GroundTruthRecord[]): void {
  expect(window.endEpochMs - window.startEpochMs).toBeCloseTo(STALL_MS, 0);
  expect(records).toHaveLength(4);
  for (const r of records) {
    expect(r.outcome).toBe('completed');
    // No token of any stream was written inside the stall.
    const inside = r.tokenEpochMs.filter((t) => t > window.startEpochMs && t < window.endEpochMs);
    expect(inside, r.requestId).toEqual([]);
    const after = r.tokenEpochMs.filter((t) => t >= window.endEpochMs);
    expect(after.length, r.requestId).toBeGreaterThan(0);
    expect(after[0]! - window.endEpochMs, r.requestId).toBeLessThan(RESUME_WITHIN_MS);
  }
  for (const id of ['s1', 's2', 's3']) {
    const r = records.find((g) => g.requestId === id)!;
    expect(r.tokenEpochMs.filter((t) => t <= window.startEpochMs).length, id).toBeGreaterThanOrEqual(5);
    expect(r.tokenEpochMs).toHaveLength(TOKENS);
  }
  // The request that came during the stall was accepted then, and got its first token only after it.
  const late = records.find((g) => g.requestId === 'late')!;
  expect(late.arrivalEpochMs).toBeGreaterThan(window.startEpochMs);
  expect(late.arrivalEpochMs).toBeLessThan(window.endEpochMs);
  expect(late.tokenEpochMs[0]!).toBeGreaterThanOrEqual(window.endEpochMs);
}

const SCHEDULERS: [string, SimOptions][] = [
  ['fixed timing', { fixed: { ttftMs: 20, itlMs: 5 } }],
  ['the performance model (profile A)', { profile: 'A', prefixCache: false }],
];

describe.each(SCHEDULERS)('POST /debug/stall, %s', (_name, options) => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSim({ ...options, groundTruth: true, tokenizerWorkers: 1 });
  });
  afterAll(async () => {
    await sim.close();
  });

  it('writes no token of any stream inside the stall, then resumes every stream and the new arrival', async () => {
    sim.clearGroundTruth();
    const { window, records } = await stallMidStream(sim);
    checkStall(window, records);
  });
});

describe('POST /debug/stall, fixed timing: held tokens', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSim({ fixed: { ttftMs: 20, itlMs: 5 }, groundTruth: true, tokenizerWorkers: 1 });
  });
  afterAll(async () => {
    await sim.close();
  });

  it('sends the tokens due during the stall at its end, then keeps the schedule', async () => {
    const { window, records } = await stallMidStream(sim);
    for (const id of ['s1', 's2', 's3']) {
      const t = records.find((g) => g.requestId === id)!.tokenEpochMs;
      const arrival = records.find((g) => g.requestId === id)!.arrivalEpochMs;
      // The tokens the schedule put inside the stall (the server's own arrival and window) all go out once it ends,
      // within the resume bound: judged on the record, not on how fast a loaded machine writes them one by one.
      const due = Array.from({ length: TOKENS }, (_, k) => arrival + 20 + k * 5)
        .filter((x) => x > window.startEpochMs && x < window.endEpochMs).length;
      const held = t.filter((x) => x >= window.endEpochMs && x - window.endEpochMs < RESUME_WITHIN_MS).length;
      expect(due, id).toBeGreaterThan(0);
      expect(held, id).toBeGreaterThanOrEqual(due);
      // Later tokens keep their own times: the last one is due at arrival + TTFT + (TOKENS - 1) x ITL, long after.
      const lastDue = arrival + 20 + (TOKENS - 1) * 5;
      expect(t.at(-1)! - lastDue, id).toBeGreaterThanOrEqual(-0.5);
      expect(t.at(-1)! - lastDue, id).toBeLessThan(RESUME_WITHIN_MS);
    }
  });
});

describe('POST /debug/stall, errors', () => {
  let sim: SimServer;
  let plain: SimServer;
  beforeAll(async () => {
    [sim, plain] = await Promise.all([
      startSim({ fixed: { ttftMs: 1, itlMs: 1 }, groundTruth: true, tokenizerWorkers: 1 }),
      startSim({ fixed: { ttftMs: 1, itlMs: 1 }, tokenizerWorkers: 1 }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([sim.close(), plain.close()]);
  });

  it('is not found without --ground-truth, nor for another method', async () => {
    expect((await postStall(plain, '?ms=10')).status).toBe(404);
    const get = await fetch(`${sim.url.replace(/\/v1$/, '')}/debug/stall?ms=10`);
    expect(get.status).toBe(404);
  });

  it.each(['', '?ms=0', '?ms=-5', '?ms=abc', '?ms=600001'])('refuses %j with a 400 naming ms', async (query) => {
    const r = await postStall(sim, query);
    expect(r.status).toBe(400);
    expect((r.json as { error: { param: string } }).error.param).toBe('ms');
  });
});
