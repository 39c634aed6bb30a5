// Profile lookup and custom profile parsing. Runs in Node (vitest).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_PROFILE_NAME, findProfile, PROFILES, resolveProfile } from '../../sim/profiles';

describe('profiles', () => {
  it('has A-E with names that say model, GPU and serving software; A is the default', () => {
    expect(PROFILES.map((p) => p.letter)).toEqual(['A', 'B', 'C', 'D', 'E']);
    expect(DEFAULT_PROFILE_NAME).toBe('qwen3-coder-30b-a3b-h200-vllm');
    expect(resolveProfile(undefined).name).toBe(DEFAULT_PROFILE_NAME);
    expect(findProfile('d')!.flavour).toBe('sglang');
    expect(findProfile('qwen3-coder-next-h200-sglang')!.hardware.experts).toBe(512);
  });

  it('reads a custom profile from JSON, overriding a base field by field', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sim-profile-'));
    const file = join(dir, 'p.json');
    writeFileSync(
      file, JSON.stringify({ base: 'B', name: 'mine', scheduler: { kvCapacityTokens: 4096 }, hardware: { t0Ms: 1 } }),
    );
    const p = resolveProfile(file);
    expect(p.name).toBe('mine');
    expect(p.scheduler.kvCapacityTokens).toBe(4096);
    expect(p.scheduler.chunkTokens).toBe(8192);
    expect(p.hardware.t0Ms).toBe(1);
    expect(p.hardware.bandwidthBytesPerSecond).toBe(2.0e12);
  });

  it('E is D\'s model split over two GPUs in tensor parallel, prefill-first as SGLang schedules', () => {
    const e = findProfile('E')!;
    expect(e.name).toBe('qwen3-coder-next-2xrtxpro6000-sglang');
    expect(e.hardware.tensorParallel).toBe(2);
    expect(e.hardware.allReducesPerStep).toBe(96);
    expect(e.scheduler.policy).toBe('prefill-first');
    for (const p of PROFILES.filter((x) => x.letter !== 'E')) {
      expect(p.hardware.tensorParallel, p.letter).toBe(1);
      expect(p.scheduler.policy, p.letter).toBe('mixed');
    }
  });

  it('refuses a tensor-parallel profile without a link, and a fractional GPU count', () => {
    expect(() => resolveProfile({ hardware: { tensorParallel: 2 } })).toThrow(
      /linkBandwidthBytesPerSecond: must be > 0/,
    );
    expect(() => resolveProfile({ hardware: { tensorParallel: 1.5 } })).toThrow(/tensorParallel: must be an integer/);
    expect(() => resolveProfile({ scheduler: { policy: 'fifo' as never } })).toThrow(
      /policy: must be "mixed" or "prefill-first"/,
    );
  });

  it('names what is wrong in a bad profile', () => {
    expect(() => resolveProfile('nope')).toThrow(/is not one of/);
    expect(() => resolveProfile({ hardware: { t0Ms: -1 } })).toThrow(/hardware\.t0Ms/);
    expect(() => resolveProfile({ scheduler: { bogus: 1 } } as never)).toThrow(/unknown field "bogus"/);
    expect(() => resolveProfile({ flavour: 'tgi' } as never)).toThrow(/flavour/);
  });
});
