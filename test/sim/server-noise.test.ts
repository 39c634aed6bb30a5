// The simulator with noise over real HTTP, as its own process: a stream's ITL varies, and its stalls fall on exactly
// the steps the seed draws. Runs in Node (vitest).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimChild, type SimChild } from '../../sim/child';
import { StepNoise, type NoiseModel } from '../../sim/noise';
import { contentEvents, MODEL_A, postStream, wordsPrompt } from './helpers';

// Louder than the defaults (a stall after 0.5% of steps would seldom show in one stream): 5% of steps stall for 6.
const MODEL: NoiseModel = { stepJitterPercent: 10, stallProbability: 0.05, stallSteps: 6 };
const SEED = 7;
const TOKENS = 300;

describe('sim --noise over HTTP', () => {
  let dir: string;
  let sim: SimChild;
  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'sim-noise-'));
    const profile = path.join(dir, 'noisy-a.json');
    writeFileSync(profile, JSON.stringify({ base: 'A', noise: MODEL }));
    sim = await startSimChild(['--profile', profile, '--noise-seed', String(SEED), '--tokenizer-workers', '1']);
  }, 60_000);
  afterAll(async () => {
    await sim?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('streams with stalls of stallSteps decode steps where the seed puts them, and varying ITL elsewhere', async () => {
    expect(sim.noiseSeed).toBe(SEED);
    const body = { model: MODEL_A, prompt: wordsPrompt(1000), max_tokens: TOKENS, ignore_eos: true, stream: true };
    const c = contentEvents(await postStream(`${sim.base}/v1/completions`, body));
    expect(c).toHaveLength(TOKENS);
    // The server ran nothing else: step 1 is this prompt's prefill (token 1), step k yields token k, and a stall drawn
    // at step k lengthens the gap between tokens k-1 and k. The same seed replays the server's draws.
    const noise = new StepNoise({ model: MODEL, seed: SEED });
    const stalled = Array.from({ length: TOKENS + 1 }, (_, k) => k > 0 && noise.step(1, () => 1).stallMs > 0);
    const gaps = c.slice(1).map((e, i) => ({ k: i + 2, ms: e.atMs - c[i]!.atMs }));
    const sorted = gaps.map((g) => g.ms).sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)]!;
    const expected = gaps.filter((g) => stalled[g.k]);
    expect(expected.length).toBeGreaterThan(5);
    // A stalled gap is about 1 + 6 = 7 decode steps; jitter alone stays within +-30%. A token the client reads late
    // (its own event loop busy) moves time from the next gap to its own, so each stalled gap is judged with the one
    // before it: about 8 steps where two ordinary gaps make 2.
    for (const g of expected)
      expect(g.ms + (gaps[g.k - 3]?.ms ?? median), `gaps before token ${g.k}`).toBeGreaterThan(4 * median);
    expect(expected.filter((g) => g.ms > 3 * median).length).toBeGreaterThanOrEqual(expected.length - 2);
    const others = gaps.filter((g) => !stalled[g.k]);
    // Timer lateness on a busy machine (other work on its cores) may stretch a few gaps; far fewer than the stalls
    // make.
    expect(others.filter((g) => g.ms > 3 * median).length).toBeLessThanOrEqual(Math.floor(expected.length / 3));
    const quiet = others.map((g) => g.ms).sort((a, b) => a - b);
    // 10% jitter: the middle 80% of the ordinary gaps spans at least +-1.28 SD x 0.8, about 20% of the median.
    expect(quiet[Math.floor(quiet.length * 0.9)]! - quiet[Math.floor(quiet.length * 0.1)]!).toBeGreaterThan(
      0.15 * median,
    );
  }, 60_000);
});
