// The simulator's timing over loopback. Runs in Node (vitest).
// A client's measured decode speed and TTFT match the profile; fixed timing is exact; ground truth matches the client.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findProfile } from '../../sim/profiles';
import { startSim, type SimServer } from '../../sim/server';
import { runVirtualBatch } from '../../sim/virtual-run';
import { contentEvents, MODEL_A, postStream, usageOf, wordsPrompt } from './helpers';

describe('profile A physics, one stream', () => {
  let sim: SimServer;
  beforeAll(async () => {
    // Unique-prompt physics: without this the warm-up request would make the measured one a prefix-cache hit.
    sim = await startSim({
      profile: 'qwen3-coder-30b-a3b-h200-vllm', groundTruth: true, tokenizerWorkers: 1, prefixCache: false,
    });
  });
  afterAll(async () => {
    await sim.close();
  });

  it("decode speed is within 3% of the model and TTFT within 15%, as the server's record has them", async () => {
    const prompt = wordsPrompt(1000);
    const body = {
      model: MODEL_A, prompt, max_tokens: 300, ignore_eos: true, stream: true, stream_options: { include_usage: true },
    };
    // Warm the tokenizer cache so tokenizing does not count (o_req stands for it).
    await postStream(`${sim.url}/completions`, { ...body, max_tokens: 1 });
    const r = await postStream(`${sim.url}/completions`, body, { 'x-request-id': 'timing-1' });
    const c = contentEvents(r);
    const u = usageOf(r)!;
    expect(c).toHaveLength(300);
    // The simulator's physics against its model, from its own record of when it wrote each token (a busy machine
    // makes the client read late, which says nothing of the server).
    const rec = sim.groundTruth().find((g) => g.requestId === 'timing-1')!;
    expect(rec.tokenEpochMs).toHaveLength(300);
    const decodeTps = (299 * 1000) / (rec.tokenEpochMs.at(-1)! - rec.tokenEpochMs[0]!);
    const ttftMs = rec.tokenEpochMs[0]! - rec.arrivalEpochMs;
    const model = runVirtualBatch(findProfile('A')!, u.prompt_tokens, 300, 1).requests[0]!;
    expect(Math.abs(decodeTps / model.decodeTokensPerSecond! - 1)).toBeLessThan(0.03);
    expect(Math.abs(ttftMs / model.ttftMs - 1)).toBeLessThan(0.15);
    // The client read every token after the server wrote it (one process, one clock).
    const epoch = (t: number) => performance.timeOrigin + t;
    expect(c.every((e, i) => epoch(e.atMs) >= rec.tokenEpochMs[i]!)).toBe(true);
  });
});

describe('profile A, a long prompt the simulator has never tokenized', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSim({ profile: 'A', groundTruth: true, tokenizerWorkers: 1, prefixCache: false });
  });
  afterAll(async () => {
    await sim.close();
  });

  it('has the TTFT the model predicts: counting its 64K tokens (~200 ms here) hides inside o_req', async () => {
    // Any client's prompt, not one warmed through /tokenize: its TTFT must not depend on the simulator's tokenizer.
    const prompt = `A first line of its own ${Date.now()}\n${wordsPrompt(64_000)}`;
    const body = {
      model: MODEL_A, prompt, max_tokens: 2, ignore_eos: true, stream: true, stream_options: { include_usage: true },
    };
    const r = await postStream(`${sim.url}/completions`, body, { 'x-request-id': 'cold-64k' });
    expect(contentEvents(r)).toHaveLength(2);
    // From the server's own record: arrival (headers read) to the first token written.
    const rec = sim.groundTruth().find((g) => g.requestId === 'cold-64k')!;
    const ttftMs = rec.tokenEpochMs[0]! - rec.arrivalEpochMs;
    const model = runVirtualBatch(findProfile('A')!, usageOf(r)!.prompt_tokens, 2, 1).requests[0]!;
    // Before, the request queued only once counted: TTFT was the model's plus the tokenizing past o_req.
    expect(
      Math.abs(ttftMs - model.ttftMs), `server ${ttftMs.toFixed(1)} ms, model ${model.ttftMs.toFixed(1)} ms`,
    ).toBeLessThan(40);
  });
});

describe('fixed timing', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSim({ fixed: { ttftMs: 50, itlMs: 10 }, groundTruth: true, tokenizerWorkers: 1 });
  });
  afterAll(async () => {
    await sim.close();
  });

  it('gives 50 ms TTFT and 10 ms ITL over 20 tokens', async () => {
    const r = await postStream(
      `${sim.url}/chat/completions`,
      { model: MODEL_A, messages: [{ role: 'user', content: 'hi' }], max_tokens: 20, ignore_eos: true, stream: true },
      { 'x-request-id': 'fixed-1' },
    );
    const c = contentEvents(r);
    expect(c).toHaveLength(20);
    const rec = sim.groundTruth().find((g) => g.requestId === 'fixed-1')!;
    // Server truth: first token 50 ms after arrival, then exactly 10 ms apart on average (absolute deadlines).
    expect(rec.tokenEpochMs[0]! - rec.arrivalEpochMs).toBeGreaterThanOrEqual(49.5);
    expect(rec.tokenEpochMs[0]! - rec.arrivalEpochMs).toBeLessThan(60);
    expect((rec.tokenEpochMs[19]! - rec.tokenEpochMs[0]!) / 19).toBeCloseTo(10, 0);
    // The client against the server's own record, not against the nominal 50 ms (a busy machine reads late): it
    // started before the request arrived and read the first token after it was written, both on this process's
    // clock (the simulator runs in it: epoch ms = performance.timeOrigin + performance.now()).
    const epoch = (t: number) => performance.timeOrigin + t;
    expect(epoch(r.startMs)).toBeLessThanOrEqual(rec.arrivalEpochMs);
    expect(epoch(c[0]!.atMs)).toBeGreaterThanOrEqual(rec.tokenEpochMs[0]!);
    expect(c[0]!.atMs - r.startMs).toBeGreaterThanOrEqual(rec.tokenEpochMs[0]! - rec.arrivalEpochMs);
  });

  it('keeps the schedule for 100 concurrent streams (no accumulated lateness)', async () => {
    const body = {
      model: MODEL_A, messages: [{ role: 'user', content: 'hi' }], max_tokens: 20, ignore_eos: true, stream: true,
    };
    sim.clearGroundTruth();
    const rs = await Promise.all(Array.from({ length: 100 }, () => postStream(`${sim.url}/chat/completions`, body)));
    expect(rs.every((r) => contentEvents(r).length === 20)).toBe(true);
    for (const rec of sim.groundTruth()) {
      const last = rec.tokenEpochMs[19]! - rec.arrivalEpochMs;
      // Token 20 is due at 50 + 19*10 = 240 ms; allow timer and CPU-contention jitter, but no drift
      // (a relative schedule would add each token's lateness to the next).
      expect(last).toBeGreaterThanOrEqual(239.5);
      expect(last).toBeLessThan(340);
    }
  });
});
