// The KV cache keeps as objects only the blocks a prompt's hashes can name and counts the rest (sim/kv-cache.ts).
// Counting must not change what the cache does: the same random workload run on a cache told each prompt's hash
// count and on one that keeps every block as an object (hashable left at its default) holds the same blocks, finds
// the same hits, evicts the same number of blocks and refuses the same allocations, step by step. Runs in Node.
import { describe, expect, it } from 'vitest';
import { KvCache } from '../../sim/kv-cache';
import { mulberry32 } from '../../lib/random';

interface Live {
  readonly hashes: number[] | undefined;
  tokens: number;
}

/** The figures a caller sees of a cache. */
function seen(kv: KvCache, live: ReadonlyMap<string, Live>): number[] {
  return [kv.usedBlocks, kv.cachedBlocks, kv.evictedBlocks, ...[...live.keys()].map((id) => kv.blocksOf(id))];
}

/** A random workload on both caches: starts (with prefix hits), growth and frees, compared after every operation. */
function workload(seed: number): number {
  const random = mulberry32(seed);
  const draw = (n: number) => Math.floor(random() * n);
  const blockSize = 1 + draw(8);
  const args = [8 + draw(120), blockSize, draw(3), random() < 0.8] as const;
  const counted = new KvCache(...args);
  const objects = new KvCache(...args);
  // Prompts from four families, so they share prefixes; some have no hashes at all.
  const families = Array.from({ length: 4 }, () => Array.from({ length: 40 }, () => draw(1e9)));
  const live = new Map<string, Live>();
  for (let op = 0; op < 200; op++) {
    const x = random();
    if (x < 0.4 || live.size === 0) {
      const family = families[draw(4)]!;
      const hashCount = random() < 0.2 ? 0 : draw(12);
      const hashes = hashCount === 0 && random() < 0.5 ? undefined : family.slice(0, hashCount);
      const tokens = 1 + draw(blockSize * 16);
      const maxBlocks = Math.floor((tokens - 1) / blockSize);
      const [hit, hitObjects] = [counted.lookup(hashes, maxBlocks), objects.lookup(hashes, maxBlocks)];
      expect([hit.blocks.length, hit.shared]).toEqual([hitObjects.blocks.length, hitObjects.shared]);
      if (!counted.fits(tokens, hit)) continue;
      const id = `s${op}`;
      counted.acquire(id, hit, hashes?.length ?? 0);
      objects.acquire(id, hitObjects);
      const first = Math.min(tokens, hit.blocks.length * blockSize + 1 + draw(tokens));
      expect(counted.tryAllocate(id, first, hashes?.length ?? 0)).toBe(objects.tryAllocate(id, first));
      counted.commit(id, hashes, first);
      objects.commit(id, hashes, first);
      live.set(id, { hashes, tokens: first });
    } else if (x < 0.8) {
      const id = [...live.keys()][draw(live.size)]!;
      const seq = live.get(id)!;
      const tokens = seq.tokens + 1 + draw(blockSize * 4);
      const grew = counted.tryAllocate(id, tokens, seq.hashes?.length ?? 0);
      expect(objects.tryAllocate(id, tokens)).toBe(grew);
      if (grew) {
        counted.commit(id, seq.hashes, tokens);
        objects.commit(id, seq.hashes, tokens);
        seq.tokens = tokens;
      }
    } else {
      const id = [...live.keys()][draw(live.size)]!;
      counted.free(id);
      objects.free(id);
      live.delete(id);
    }
    expect(seen(counted, live)).toEqual(seen(objects, live));
  }
  return counted.evictedBlocks;
}

describe('KvCache, counting the blocks no hash names', () => {
  it('does what keeping every block as an object does, on 300 random workloads', () => {
    let evicted = 0;
    for (let seed = 0; seed < 300; seed++) evicted += workload(seed);
    // The workloads reached eviction, where the order of the free queue decides.
    expect(evicted).toBeGreaterThan(1000);
  });
});
