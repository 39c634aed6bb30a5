// Fault injection over loopback: per-request header faults and server-wide faults with a probability.
// Runs in Node (vitest).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSim, type SimServer } from '../../sim/server';
import { contentEvents, MODEL_A, postJson, postStream, usageOf } from './helpers';

let sim: SimServer;
beforeAll(async () => {
  sim = await startSim({ fixed: { ttftMs: 10, itlMs: 2 }, groundTruth: true, tokenizerWorkers: 1 });
});
afterAll(async () => {
  await sim.close();
});

const body = {
  model: MODEL_A, messages: [{ role: 'user', content: 'hi' }], max_tokens: 10, ignore_eos: true, stream: true,
  stream_options: { include_usage: true },
};
const withFault = (spec: string, extra: Record<string, string> = {}) =>
  postStream(`${sim.url}/chat/completions`, body, { 'x-sim-fault': spec, ...extra });

describe('per-request faults (x-sim-fault header)', () => {
  it('error-status answers the status with an OpenAI error body', async () => {
    const r = await postJson(`${sim.url}/chat/completions`, body, { 'x-sim-fault': 'error-status;status=503' });
    expect(r.status).toBe(503);
    expect((r.json as { error: { code: number } }).error.code).toBe(503);
  });

  it('reset-mid-stream cuts the connection after the given tokens, without [DONE]', async () => {
    const r = await withFault('reset-mid-stream;after=4', { 'x-request-id': 'reset-1' });
    expect(r.error).not.toBeNull();
    expect(contentEvents(r)).toHaveLength(4);
    expect(r.events.some((e) => e.data === '[DONE]')).toBe(false);
    const rec = sim.groundTruth().find((g) => g.requestId === 'reset-1')!;
    expect(rec.outcome).toBe('faulted');
    expect(rec.tokenEpochMs).toHaveLength(4);
  });

  it('stall holds the stream silent for the given time after the given tokens', async () => {
    const r = await withFault('stall;ms=300;after=3');
    const c = contentEvents(r);
    expect(c).toHaveLength(10);
    const gap = c[3]!.atMs - c[2]!.atMs;
    expect(gap).toBeGreaterThanOrEqual(290);
    expect(r.events.at(-1)!.data).toBe('[DONE]');
  });

  it('malformed-chunk writes one unparseable data line and carries on', async () => {
    const r = await withFault('malformed-chunk;after=2');
    const bad = r.events.filter((e) => {
      if (e.data === '[DONE]') return false;
      try {
        JSON.parse(e.data);
        return false;
      } catch {
        return true;
      }
    });
    expect(bad).toHaveLength(1);
    expect(contentEvents(r)).toHaveLength(10);
    expect(usageOf(r)!.completion_tokens).toBe(10);
  });

  it('no-done and no-usage leave out the [DONE] line and the usage chunk', async () => {
    const r = await withFault('no-done,no-usage');
    expect(contentEvents(r)).toHaveLength(10);
    expect(usageOf(r)).toBeNull();
    expect(r.events.some((e) => e.data === '[DONE]')).toBe(false);
    expect(r.error).toBeNull();
  });

  it('error-in-stream sends an error object inside the 200 stream', async () => {
    const r = await withFault('error-in-stream;after=5');
    expect(r.status).toBe(200);
    expect(contentEvents(r)).toHaveLength(5);
    const err = r.events.find((e) => e.data.includes('"error"'))!;
    expect(JSON.parse(err.data).error.message).toMatch(/Injected fault/);
  });

  it('a bad fault header is a 400', async () => {
    const r = await postJson(`${sim.url}/chat/completions`, body, { 'x-sim-fault': 'explode' });
    expect(r.status).toBe(400);
  });
});

describe('server-wide faults', () => {
  it('applies a fault with probability 1 to every request and with probability 0 to none', async () => {
    const always = await startSim({
      fixed: { ttftMs: 1, itlMs: 1 }, faults: 'error-status;status=500', tokenizerWorkers: 1,
    });
    const never = await startSim({
      fixed: { ttftMs: 1, itlMs: 1 }, faults: 'error-status;status=500;p=0', tokenizerWorkers: 1,
    });
    try {
      for (let i = 0; i < 3; i++) {
        expect((await postJson(`${always.url}/chat/completions`, body)).status).toBe(500);
        expect((await postJson(`${never.url}/chat/completions`, body)).status).toBe(200);
      }
    } finally {
      await Promise.all([always.close(), never.close()]);
    }
  });
});
