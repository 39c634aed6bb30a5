// Unit tests of KV block accounting. Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { KvCache } from '../../sim/kv-cache';

describe('KvCache', () => {
  it('holds ceil(tokens/blockSize) blocks per sequence and grows only', () => {
    const kv = new KvCache(10, 16);
    expect(kv.tryAllocate('a', 17)).toBe(true);
    expect(kv.blocksOf('a')).toBe(2);
    expect(kv.tryAllocate('a', 10)).toBe(true);
    expect(kv.blocksOf('a')).toBe(2);
    expect(kv.usage).toBeCloseTo(0.2, 9);
  });

  it('refuses an allocation beyond the free blocks without changing anything', () => {
    const kv = new KvCache(4, 16);
    expect(kv.tryAllocate('a', 48)).toBe(true);
    expect(kv.tryAllocate('b', 32)).toBe(false);
    expect(kv.blocksOf('b')).toBe(0);
    expect(kv.freeBlocks).toBe(1);
    expect(kv.fits(16)).toBe(true);
    expect(kv.fits(17)).toBe(false);
  });

  it('frees every block of a sequence', () => {
    const kv = new KvCache(4, 16);
    kv.tryAllocate('a', 64);
    kv.free('a');
    expect(kv.usedBlocks).toBe(0);
    kv.free('a');
    expect(kv.usedBlocks).toBe(0);
  });

  it('charges state blocks per sequence for hybrid models', () => {
    const kv = new KvCache(100, 16, 3);
    expect(kv.blocksFor(1)).toBe(4);
    kv.tryAllocate('a', 16);
    expect(kv.usedBlocks).toBe(4);
  });
});
