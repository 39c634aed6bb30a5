// Integration: the runner against the simulator in fixed-timing mode (50 ms TTFT, 10 ms ITL, 20 tokens). Runs in Node.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSim, type SimServer } from '../../sim/server';
import { consoleMessages, FIXTURES, runCli, tempDir } from './helpers';

let sim: SimServer;
let model = '';

beforeAll(async () => {
  sim = await startSim({ port: 0, fixed: { ttftMs: 50, itlMs: 10 }, tokenizerWorkers: 1 });
  model = ((await (await fetch(`${sim.url}/models`)).json()) as { data: { id: string }[] }).data[0]!.id;
});

afterAll(async () => {
  await sim?.close();
});

describe('runner timing against the simulator', () => {
  it('measures TTFT ~50 ms and ITL ~10 ms for every stream', async () => {
    const r = await runCli(['run', '-q', '-e', `BASE_URL=${sim.url}`, '-e', `MODEL=${model}`, join(FIXTURES, 'sim-timing.js')], { cwd: tempDir() });
    expect(r.code).toBe(0);
    const streams = consoleMessages(r.stderr).map((m) => JSON.parse(m) as { status: number; start: number; times: number[] });
    expect(streams).toHaveLength(8);
    const gaps: number[] = [];
    for (const s of streams) {
      expect(s.status).toBe(200);
      expect(s.times).toHaveLength(20);
      const ttft = s.times[0]! - s.start;
      expect(ttft).toBeGreaterThan(49);
      // Generous upper bounds: the machine is shared, and a late first token is a scheduling delay, not a runner bug.
      expect(ttft).toBeLessThan(150);
      for (let i = 1; i < s.times.length; i++) gaps.push(s.times[i]! - s.times[i - 1]!);
    }
    gaps.sort((a, b) => a - b);
    const median = gaps[Math.floor(gaps.length / 2)]!;
    expect(median).toBeGreaterThan(9);
    expect(median).toBeLessThan(11.5);
    // 19 gaps per stream sum to ~190 ms; a delayed first token shortens the span, so allow for that.
    for (const s of streams) expect(s.times[19]! - s.times[0]!).toBeGreaterThan(140);
  });
});
