// Tests sim/noise.ts and the batcher with it: exact step times without noise; with noise the stated mean, spread and
// stall rate, one sequence per seed; profiles and options that turn it on. Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { Batcher, type StepPlan } from '../../sim/batcher';
import { DEFAULT_NOISE, resolveNoise, StepNoise, type NoiseModel, type NoiseSettings } from '../../sim/noise';
import { findProfile, parseProfile, PROFILES } from '../../sim/profiles';
import { runVirtualBatch, runVirtualClosedLoop } from '../../sim/virtual-run';

const A = findProfile('A')!;

function sampleMean(xs: readonly number[]): number {
  return xs.reduce((s, x) => s + x, 0) / xs.length;
}

function sampleSd(xs: readonly number[]): number {
  const m = sampleMean(xs);
  return Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1));
}

/** Every step of one request of `prompt` tokens decoding `output` tokens alone, as the batcher plans them. */
function soloSteps(noise: NoiseSettings | undefined, prompt = 1024, output = 4000): StepPlan[] {
  const batcher = new Batcher(A, { noise });
  batcher.add({
    id: 'r', promptTokens: prompt, outputTokens: output, finishReason: 'length', arrivalMs: 0, queuedMs: 0,
  });
  const plans: StepPlan[] = [];
  let now = 0;
  while (batcher.hasWork()) {
    const plan = batcher.beginStep(now)!;
    plans.push(plan);
    now = batcher.endStep().endMs;
  }
  return plans;
}

describe('without noise', () => {
  it('every step lasts exactly its modelled time, with no stall', () => {
    for (const p of soloSteps(undefined, 1024, 300)) {
      expect(p.endMs).toBe(p.startMs + p.time.totalMs);
      expect(p.stallMs).toBe(0);
    }
  });

  it('virtual runs give the figures they gave before noise existed (main at dc60ba4)', () => {
    const b = runVirtualBatch(A, 8192, 256, 64);
    expect(b.wallMs).toBe(16404.42464775077);
    expect(b.requests[0]!.ttftMs).toBe(202.66885302278482);
    // The closed loop's figures since its requests wait out the per-request overhead as the server's do (E: 338 ms
    // each; before, 128 requests, last end 22666.99 ms, e2e sum 362671.76 ms, without it).
    const c = runVirtualClosedLoop(findProfile('E')!, 2048, 128, [{ users: 16, seconds: 20 }]);
    expect(c).toHaveLength(112);
    expect(c[c.length - 1]!.endMs).toBe(22199.611954074404);
    expect(c.reduce((s, r) => s + r.e2eMs, 0)).toBe(355193.7912651899);
  });

  it('no built-in profile has noise', () => {
    for (const p of PROFILES) expect(p.noise, p.name).toBeNull();
  });
});

describe('StepNoise', () => {
  const N = 200_000;
  const draw = (model: NoiseModel, seed: number, n = N): number[] => {
    const noise = new StepNoise({ model, seed });
    return Array.from({ length: n }, () => noise.step(10, () => 10).totalMs);
  };

  it('jitters a 10 ms step with mean 10 ms and the stated SD, never beyond 3 SD', () => {
    const xs = draw({ stepJitterPercent: 3, stallProbability: 0, stallSteps: 0 }, 1);
    // Standard error of the mean: 0.3 / sqrt(200000) = 0.00067 ms; of the SD about 0.3 / sqrt(400000) = 0.0005 ms.
    expect(sampleMean(xs)).toBeCloseTo(10, 2);
    expect(sampleSd(xs)).toBeGreaterThan(0.3 * 0.99);
    expect(sampleSd(xs)).toBeLessThan(0.3 * 1.01);
    expect(xs.reduce((a, b) => Math.min(a, b))).toBeGreaterThanOrEqual(10 * (1 - (3 * 0.03) / 0.986578) - 1e-9);
    expect(xs.reduce((a, b) => Math.max(a, b))).toBeLessThanOrEqual(10 * (1 + (3 * 0.03) / 0.986578) + 1e-9);
  });

  it('stalls after the stated share of steps, each stallSteps decode steps long, ' +
    'and the mean grows by p x stallSteps', () => {
    const xs = draw(DEFAULT_NOISE, 2);
    // Jitter stays within +-9.2%, so a step over 1.5x its time is a stalled one (3 extra steps: about 4x).
    const stalled = xs.filter((x) => x > 15);
    // Binomial SD of the share: sqrt(0.005 x 0.995 / 200000) = 0.00016; the bounds are 4 SD.
    expect(stalled.length / N).toBeGreaterThan(0.005 - 0.00064);
    expect(stalled.length / N).toBeLessThan(0.005 + 0.00064);
    for (const x of stalled) expect(x - 30).toBeGreaterThan(10 * 0.9);
    // Mean = 10 x (1 + 0.005 x 3) = 10.15 ms; SD of the mean about 0.02 ms.
    expect(sampleMean(xs)).toBeGreaterThan(10.15 - 0.06);
    expect(sampleMean(xs)).toBeLessThan(10.15 + 0.06);
  });

  it('repeats its draws for one seed, and two seeds differ', () => {
    expect(draw(DEFAULT_NOISE, 42, 1000)).toEqual(draw(DEFAULT_NOISE, 42, 1000));
    const a = draw(DEFAULT_NOISE, 42, 1000);
    const b = draw(DEFAULT_NOISE, 43, 1000);
    expect(a.filter((x, i) => x !== b[i]).length).toBeGreaterThan(990);
  });

  it('with a zero model leaves every step as it is', () => {
    expect(new Set(draw({ stepJitterPercent: 0, stallProbability: 0, stallSteps: 3 }, 5, 1000))).toEqual(new Set([10]));
  });
});

describe('the batcher with noise', () => {
  const noise: NoiseSettings = { model: DEFAULT_NOISE, seed: 11 };

  it('jitters decode steps around their modelled time and stalls stallSteps of them at the stated rate', () => {
    const decode = soloSteps(noise).slice(1);
    const ratios = decode.map((p) => (p.endMs - p.startMs - p.stallMs) / p.time.totalMs);
    expect(sampleMean(ratios)).toBeCloseTo(1, 2);
    expect(sampleSd(ratios)).toBeGreaterThan(0.03 * 0.9);
    expect(sampleSd(ratios)).toBeLessThan(0.03 * 1.1);
    const stalls = decode.filter((p) => p.stallMs > 0);
    // 4000 steps at 0.5%: 20 expected, Poisson SD 4.5.
    expect(stalls.length).toBeGreaterThanOrEqual(7);
    expect(stalls.length).toBeLessThanOrEqual(36);
    // A decode-only step's stall is stallSteps of that very step.
    for (const p of stalls) expect(p.stallMs).toBeCloseTo(3 * p.time.totalMs, 9);
  });

  it('repeats a virtual run for one seed; another seed gives another run, slower than none by about p x ' +
    'stallSteps', () => {
    const steps = [{ users: 8, seconds: 30 }];
    const one = runVirtualClosedLoop(A, 1024, 256, steps, { noise });
    expect(runVirtualClosedLoop(A, 1024, 256, steps, { noise })).toEqual(one);
    const other = runVirtualClosedLoop(A, 1024, 256, steps, { noise: { ...noise, seed: 12 } });
    expect(other).not.toEqual(one);
    const speed = (rs: typeof one) => sampleMean(rs.map((r) => r.decodeTokensPerSecond!));
    const slowdown = 1 - speed(one) / speed(runVirtualClosedLoop(A, 1024, 256, steps));
    expect(slowdown).toBeGreaterThan(0.003);
    expect(slowdown).toBeLessThan(0.04);
    const batch = runVirtualBatch(A, 8192, 256, 64, { noise });
    expect(runVirtualBatch(A, 8192, 256, 64, { noise })).toEqual(batch);
    expect(batch.wallMs).not.toBe(16404.42464775077);
  });
});

describe('turning noise on', () => {
  it('resolveNoise: off unless asked for (flag, seed or profile); the profile model or the defaults, ' +
    'fields over them', () => {
    expect(resolveNoise(null, undefined, undefined)).toBeNull();
    expect(resolveNoise(DEFAULT_NOISE, false, 3)).toBeNull();
    expect(resolveNoise(null, true, 3)).toEqual({ model: DEFAULT_NOISE, seed: 3 });
    expect(resolveNoise(null, undefined, 3)).toEqual({ model: DEFAULT_NOISE, seed: 3 });
    const own = { stepJitterPercent: 5, stallProbability: 0.01, stallSteps: 2 };
    expect(resolveNoise(own, undefined, 4)).toEqual({ model: own, seed: 4 });
    expect(resolveNoise(own, { stallSteps: 6 }, 4)).toEqual({ model: { ...own, stallSteps: 6 }, seed: 4 });
    const random = resolveNoise(null, true, undefined)!;
    expect(Number.isInteger(random.seed) && random.seed >= 0 && random.seed < 2 ** 32).toBe(true);
    expect(() => resolveNoise(null, true, -1)).toThrow(/noise seed/);
    expect(() => resolveNoise(null, { stepJitterPercent: 40 }, 1)).toThrow(
      /stepJitterPercent: must be a number within 0..30/,
    );
  });

  it('a custom profile opts in with `noise` (missing fields from the defaults), null turns it off; ' +
    'bad fields are named', () => {
    expect(parseProfile({ base: 'A', noise: {} }, 'p').noise).toEqual(DEFAULT_NOISE);
    expect(parseProfile({ base: 'A', noise: { stallSteps: 8 } }, 'p').noise).toEqual({
      ...DEFAULT_NOISE, stallSteps: 8,
    });
    expect(parseProfile({ base: 'A' }, 'p').noise).toBeNull();
    expect(parseProfile({ base: 'A', noise: null }, 'p').noise).toBeNull();
    expect(() => parseProfile({ noise: { jitter: 3 } }, 'p')).toThrow(/p.noise: unknown field "jitter"/);
    expect(() => parseProfile({ noise: { stallProbability: 2 } }, 'p')).toThrow(
      /p.noise.stallProbability: must be a number within 0..1/,
    );
    expect(() => parseProfile({ noise: 3 }, 'p')).toThrow(/p.noise: must be an object/);
  });
});
