// Unit tests of KV block accounting. Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { chainedBlockHashes, KvCache } from '../../sim/kv-cache';

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

/** Ids 0..n-1 offset by `base`, so prompts with the same base share every prefix. */
function ids(n: number, base = 0, diffAt = -1): Uint32Array {
  const a = new Uint32Array(n);
  for (let i = 0; i < n; i++) a[i] = base + i + (i >= diffAt && diffAt >= 0 ? 100_000 : 0);
  return a;
}

describe('chainedBlockHashes', () => {
  it('hashes full blocks only, chained: a difference changes that block and every later one', () => {
    const a = chainedBlockHashes([ids(50)], 16);
    expect(a).toHaveLength(3);
    const b = chainedBlockHashes([ids(50, 0, 20)], 16);
    expect(b[0]).toBe(a[0]);
    expect(b[1]).not.toBe(a[1]);
    expect(b[2]).not.toBe(a[2]);
    // Same block content after a different first block: still a different hash (chained).
    const c = chainedBlockHashes([ids(50, 0, 0).map((x, i) => (i < 16 ? x : i))], 16);
    expect(c[1]).not.toBe(a[1]);
    // Parts hash as their concatenation, whatever the split.
    const all = ids(100);
    expect(chainedBlockHashes([all.subarray(0, 7), all.subarray(7)], 16)).toEqual(chainedBlockHashes([all], 16));
    expect(new Set(chainedBlockHashes([ids(160_000)], 16)).size).toBe(10_000);
  });
});

describe('KvCache prefix caching', () => {
  const H = chainedBlockHashes([ids(64)], 16); // 4 blocks

  function run(kv: KvCache, id: string, tokens: number, hashes: number[]): number {
    const hit = kv.lookup(hashes, Math.floor((tokens - 1) / 16));
    kv.acquire(id, hit);
    expect(kv.tryAllocate(id, tokens)).toBe(true);
    kv.commit(id, hashes, tokens);
    return hit.blocks.length;
  }

  it('finds the blocks of a finished sequence while they stay in the free pool, and shares held ones', () => {
    const kv = new KvCache(20, 16, 0, true);
    expect(run(kv, 'a', 64, H)).toBe(0);
    expect(kv.cachedBlocks).toBe(4);
    // Held by a: a twin shares 3 blocks (the 4th is recomputed: at most floor((64-1)/16) = 3), costs 1 new.
    expect(kv.lookup(H, 3)).toMatchObject({ shared: 3 });
    expect(run(kv, 'b', 64, H)).toBe(3);
    expect(kv.usedBlocks).toBe(5);
    kv.free('a');
    kv.free('b');
    expect(kv.usedBlocks).toBe(0);
    expect(kv.freeBlocks).toBe(20);
    // Still resident: a later prompt of 70 tokens with the same first 64 hits all 4.
    expect(kv.lookup(H, 4).blocks).toHaveLength(4);
    expect(kv.lookup(H, 4).shared).toBe(0);
  });

  it('evicts least recently freed blocks first, a sequence\'s last blocks before its first', () => {
    const kv = new KvCache(8, 16, 0, true);
    run(kv, 'a', 64, H);
    kv.free('a');
    // 4 never-used blocks go first; the 5th and 6th evict a's blocks 4 and 3.
    expect(kv.tryAllocate('x', 16 * 6)).toBe(true);
    expect(kv.evictedBlocks).toBe(2);
    expect(kv.lookup(H, 4).blocks).toHaveLength(2);
    kv.tryAllocate('x', 16 * 8);
    expect(kv.lookup(H, 4).blocks).toHaveLength(0);
    expect(kv.cachedBlocks).toBe(0);
  });

  it('counts unreferenced hit blocks against the free blocks when checking a fit', () => {
    const kv = new KvCache(6, 16, 0, true);
    run(kv, 'a', 64, H);
    const hit = kv.lookup(H, 3);
    // a holds 4 of 6: a twin of 64 tokens needs 4 - 3 shared = 1 block.
    expect(kv.fits(64, hit)).toBe(true);
    expect(kv.fits(64 + 3 * 16, hit)).toBe(false);
    kv.free('a');
    expect(kv.fits(96, kv.lookup(H, 3))).toBe(true);
  });

  it('without prefix caching never finds anything', () => {
    const kv = new KvCache(20, 16, 0, false);
    expect(run(kv, 'a', 64, H)).toBe(0);
    kv.free('a');
    expect(run(kv, 'b', 64, H)).toBe(0);
    expect(kv.cachedBlocks).toBe(0);
  });

  it('allocates state blocks for a sequence started on a hit', () => {
    const kv = new KvCache(40, 16, 3, true);
    run(kv, 'a', 64, H);
    kv.free('a');
    expect(run(kv, 'b', 64, H)).toBe(3);
    expect(kv.blocksOf('b')).toBe(7);
    expect(kv.usedBlocks).toBe(7);
  });
});
