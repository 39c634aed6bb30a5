// The prompt lengths that fit a server's context window, and reading that window from the real simulator.
// Runs in Node (vitest).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { promptLengthsForWindow, readContextWindow } from '../../orchestrator/context-window';
import { startSim } from '../../sim/server';

describe('promptLengthsForWindow', () => {
  const cell = (contextTokens: number, outputTokens: number) => ({ contextTokens, outputTokens });

  it("shortens only the contexts that overflow, by their longest output: the published grids' 256K cells", () => {
    const cells = [cell(1024, 1024), cell(131_072, 1024), cell(262_144, 1024), cell(262_144, 256)];
    expect(promptLengthsForWindow(cells, 262_144)).toEqual([{ contextTokens: 262_144, promptTokens: 261_120 }]);
    expect(promptLengthsForWindow(cells, 300_000)).toEqual([]);
    // Exactly full fits: prompt + max_tokens may equal the window.
    expect(promptLengthsForWindow([cell(4096, 1024)], 5120)).toEqual([]);
    expect(promptLengthsForWindow([cell(4096, 1024)], 5119)).toEqual([{ contextTokens: 4096, promptTokens: 4095 }]);
  });

  it('refuses cells whose output leaves less than half their context for the prompt', () => {
    expect(() => promptLengthsForWindow([cell(8192, 6000)], 8192)).toThrow(
      /context 8192 ask 6000 output tokens, but the server's window is 8192 tokens/,
    );
  });
});

describe('readContextWindow', () => {
  let sim: Awaited<ReturnType<typeof startSim>>;
  beforeAll(async () => {
    sim = await startSim({ port: 0, profile: { maxModelLen: 32_768 } });
  });
  afterAll(async () => sim.close());

  it("reads max_model_len of the model from the server's /models", async () => {
    const models = (await (await fetch(`${sim.url}/models`)).json()) as { data: { id: string }[] };
    expect(await readContextWindow(sim.url, models.data[0]!.id, null)).toBe(32_768);
  });

  it('is null when the server cannot say', async () => {
    expect(await readContextWindow('http://127.0.0.1:9/v1', 'm', null)).toBeNull();
    expect(await readContextWindow(`${sim.url}/no-such-route`, 'm', null)).toBeNull();
  });
});
