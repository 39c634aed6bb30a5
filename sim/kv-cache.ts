// KV-cache block accounting of the simulated batcher: paged-attention blocks with vLLM's automatic prefix cache.
// Runs in Node, pure.
//
// A sequence of t tokens holds ceil(t / blockSize) blocks, plus a fixed number of blocks for the
// recurrent state of hybrid-attention models, held from admission to finish.
//
// Prefix caching (vLLM v1 KVCacheManager): a block full of computed prompt tokens is registered
// under its chained hash (the hash of every token up to the block's end), so a later prompt with the
// same prefix reuses it. Blocks are reference counted; a block no sequence holds goes to the tail of
// one free queue (a sequence's blocks in reverse order, so its last blocks are evicted first) and
// keeps its hash until allocation takes it from the head of the queue: least recently freed first,
// never-used blocks before any. "Resident" = referenced, or in the free queue and not yet reused.

// Only a block that can be found by its hash needs to be an object: one of a sequence's leading blocks, which its
// prompt's hashes cover. The others (the rest of a prompt, the answer, the recurrent state, and every block without
// prefix caching) are counted: a 128K-token prompt holds 8K blocks, and objects for each made the virtual engine
// spend most of its time allocating and collecting them. The free queue keeps the hashed blocks in order, each with
// the count of unhashed blocks queued just before it, so "least recently freed first" stays exact.

interface Block {
  /** Chained hash it is registered under, or -1. */
  hash: number;
  ref: number;
  /** While it waits in the free queue: unhashed free blocks queued just ahead of it. */
  unhashedBefore: number;
  prev: Block | null;
  next: Block | null;
}

interface SeqBlocks {
  /** Leading token blocks, in sequence order, that a hash of the prompt can name: objects. */
  readonly blocks: Block[];
  /** How many leading token blocks may be objects: the prompt's hashes (0 without prefix caching). */
  readonly hashable: number;
  /** Token blocks after them: counted. */
  unhashed: number;
  /** Recurrent-state blocks (hybrid models), never cached: counted. */
  state: number;
  /** Leading token blocks already registered (or found) in the cache. */
  registered: number;
}

/** Result of a prefix lookup: the leading blocks of a prompt found resident. */
export interface PrefixHit {
  /** Matched blocks (cache hit tokens = blocks.length * blockSize). */
  readonly blocks: readonly unknown[];
  /** How many of them some running sequence already holds (they cost no free block). */
  readonly shared: number;
}

const NO_HIT: PrefixHit = { blocks: [], shared: 0 };

const newBlock = (): Block => ({ hash: -1, ref: 1, unhashedBefore: 0, prev: null, next: null });

export class KvCache {
  private readonly seqs = new Map<string, SeqBlocks>();
  /** Blocks referenced by at least one sequence. */
  private used = 0;
  /** Blocks never allocated yet: they sit at the head of the free queue. */
  private pristine: number;
  /** The free queue's hashed blocks, oldest first. */
  private head: Block | null = null;
  private tail: Block | null = null;
  /** Unhashed free blocks queued after the last hashed one. */
  private unhashedAtTail = 0;
  private readonly index = new Map<number, Block>();
  /** Cached blocks dropped from the index to be reused (evictions). */
  evictedBlocks = 0;

  constructor(
    readonly totalBlocks: number,
    readonly blockSize: number,
    /** Blocks a sequence holds for its recurrent state (0 for pure-attention models). */
    readonly stateBlocksPerSeq = 0,
    /** Automatic prefix caching (vLLM --enable-prefix-caching). */
    readonly prefixCaching = false,
  ) {
    if (totalBlocks < 1 || blockSize < 1) throw new Error('KV cache needs at least one block of at least one token');
    this.pristine = totalBlocks;
  }

  /** Blocks a sequence of this many tokens needs, state included. */
  blocksFor(tokens: number): number {
    return Math.ceil(tokens / this.blockSize) + this.stateBlocksPerSeq;
  }

  get usedBlocks(): number {
    return this.used;
  }

  /** Blocks no sequence holds (cached-but-unreferenced blocks included: they are evictable). */
  get freeBlocks(): number {
    return this.totalBlocks - this.used;
  }

  /** Fraction of blocks in use, 0..1 (vllm:kv_cache_usage_perc; cached free blocks count as free, as in vLLM). */
  get usage(): number {
    return this.used / this.totalBlocks;
  }

  /** Blocks registered in the prefix cache (held or free, not yet evicted). */
  get cachedBlocks(): number {
    return this.index.size;
  }

  blocksOf(id: string): number {
    const s = this.seqs.get(id);
    return s ? s.blocks.length + s.unhashed + s.state : 0;
  }

  /** True when a new sequence of this many tokens would fit in the free blocks now. */
  fits(tokens: number, hit: PrefixHit = NO_HIT): boolean {
    return this.blocksFor(tokens) - hit.shared <= this.freeBlocks;
  }

  /**
   * Longest run of leading blocks of `hashes` (chained block hashes of a prompt) that are resident,
   * at most maxBlocks (vLLM: the last prompt token is always recomputed, so max = floor((n - 1) / blockSize)).
   */
  lookup(hashes: readonly number[] | undefined, maxBlocks: number): PrefixHit {
    if (!this.prefixCaching || !hashes || hashes.length === 0 || maxBlocks <= 0) return NO_HIT;
    const blocks: Block[] = [];
    let shared = 0;
    const n = Math.min(hashes.length, maxBlocks);
    for (let i = 0; i < n; i++) {
      const b = this.index.get(hashes[i]!);
      if (!b) break;
      blocks.push(b);
      if (b.ref > 0) shared++;
    }
    return blocks.length === 0 ? NO_HIT : { blocks, shared };
  }

  /**
   * Starts a sequence on the blocks of a prefix hit (taken out of the free queue if unreferenced). Call before
   * tryAllocate. `hashable`: how many block hashes its prompt has.
   */
  acquire(id: string, hit: PrefixHit, hashable = Infinity): void {
    if (hit.blocks.length === 0) return;
    if (this.seqs.has(id)) throw new Error(`sequence ${id} already holds blocks`);
    const s = this.newSeq(hashable);
    s.registered = hit.blocks.length;
    for (const x of hit.blocks) {
      const b = x as Block;
      if (b.ref === 0) {
        this.unlink(b);
        this.used++;
      }
      b.ref++;
      s.blocks.push(b);
    }
    this.seqs.set(id, s);
  }

  /**
   * Grows the sequence's allocation to cover `tokens`; returns false (and changes nothing) when blocks run out.
   * `hashable`, read when the sequence starts: how many block hashes its prompt has (commit registers no more).
   */
  tryAllocate(id: string, tokens: number, hashable = Infinity): boolean {
    const s = this.seqs.get(id);
    const haveTokenBlocks = s ? s.blocks.length + s.unhashed : 0;
    const needTokenBlocks = Math.ceil(tokens / this.blockSize);
    const needState = s && s.state > 0 ? 0 : this.stateBlocksPerSeq;
    const more = Math.max(0, needTokenBlocks - haveTokenBlocks) + needState;
    if (s && more === 0) return true;
    if (more > this.freeBlocks) return false;
    const seq = s ?? this.newSeq(hashable);
    if (!s) this.seqs.set(id, seq);
    this.takeUnhashed(needState);
    seq.state += needState;
    const objects = Math.max(0, Math.min(needTokenBlocks, seq.hashable) - haveTokenBlocks);
    for (let i = 0; i < objects; i++) seq.blocks.push(this.takeObject());
    const counted = Math.max(0, needTokenBlocks - haveTokenBlocks - objects);
    this.takeUnhashed(counted);
    seq.unhashed += counted;
    return true;
  }

  /**
   * Registers the sequence's blocks that are full of computed prompt tokens under their hashes
   * (vLLM caches a block once it is full). A hash already registered (a twin block) stays with its
   * first block; the newcomer is not cached.
   */
  commit(id: string, hashes: readonly number[] | undefined, computedTokens: number): void {
    if (!this.prefixCaching || !hashes) return;
    const s = this.seqs.get(id);
    if (!s) return;
    const upTo = Math.min(hashes.length, Math.floor(computedTokens / this.blockSize), s.blocks.length);
    for (let i = s.registered; i < upTo; i++) {
      const b = s.blocks[i]!;
      const h = hashes[i]!;
      if (b.hash === -1 && !this.index.has(h)) {
        b.hash = h;
        this.index.set(h, b);
      }
    }
    if (upTo > s.registered) s.registered = upTo;
  }

  /**
   * Releases every block of the sequence (finish, abort or preemption), its last blocks first, so they are the
   * first evicted; cached blocks stay resident until evicted.
   */
  free(id: string): void {
    const s = this.seqs.get(id);
    if (!s) return;
    this.seqs.delete(id);
    this.releaseUnhashed(s.unhashed);
    for (let i = s.blocks.length - 1; i >= 0; i--) this.release(s.blocks[i]!);
    this.releaseUnhashed(s.state);
  }

  private newSeq(hashable: number): SeqBlocks {
    return { blocks: [], hashable: this.prefixCaching ? hashable : 0, unhashed: 0, state: 0, registered: 0 };
  }

  private release(b: Block): void {
    if (--b.ref > 0) return;
    if (b.hash === -1) {
      this.releaseUnhashed(1); // nothing can find it again: counted from now on
      return;
    }
    this.used--;
    b.unhashedBefore = this.unhashedAtTail;
    this.unhashedAtTail = 0;
    b.prev = this.tail;
    b.next = null;
    if (this.tail) this.tail.next = b;
    else this.head = b;
    this.tail = b;
  }

  /** n blocks without a hash back to the free queue's tail; without prefix caching, back among the never used. */
  private releaseUnhashed(n: number): void {
    this.used -= n;
    if (this.prefixCaching) this.unhashedAtTail += n;
    else this.pristine += n;
  }

  /** n blocks from the head of the free queue, counted, evicting the cached blocks among them. */
  private takeUnhashed(n: number): void {
    this.used += n;
    while (n > 0) {
      const k = Math.min(n, this.takeableAtHead());
      if (k > 0) {
        this.takeCounted(k);
        n -= k;
      } else {
        this.evict(this.head!);
        n--;
      }
    }
  }

  /** A block object from the head of the free queue (an evicted one is reused). */
  private takeObject(): Block {
    this.used++;
    if (this.takeableAtHead() > 0) {
      this.takeCounted(1);
      return newBlock();
    }
    const b = this.head!;
    this.evict(b);
    b.ref = 1;
    return b;
  }

  /** Blocks at the head of the free queue that carry nothing to evict: never used, or unhashed. */
  private takeableAtHead(): number {
    if (this.pristine > 0) return this.pristine;
    return this.head ? this.head.unhashedBefore : this.unhashedAtTail;
  }

  /** Takes k of takeableAtHead(). */
  private takeCounted(k: number): void {
    if (this.pristine > 0) this.pristine -= k;
    else if (this.head) this.head.unhashedBefore -= k;
    else this.unhashedAtTail -= k;
  }

  /** The head block out of the queue and out of the index. */
  private evict(b: Block): void {
    this.unlink(b);
    if (this.index.get(b.hash) === b) this.index.delete(b.hash);
    b.hash = -1;
    this.evictedBlocks++;
  }

  /** Out of the free queue; the unhashed blocks queued before it keep their place, before the next one. */
  private unlink(b: Block): void {
    if (b.next) b.next.unhashedBefore += b.unhashedBefore;
    else this.unhashedAtTail += b.unhashedBefore;
    b.unhashedBefore = 0;
    if (b.prev) b.prev.next = b.next;
    else this.head = b.next;
    if (b.next) b.next.prev = b.prev;
    else this.tail = b.prev;
    b.prev = null;
    b.next = null;
  }
}

/**
 * Chained hashes of the full blocks of a token-id sequence given in parts (their concatenation):
 * hash i covers ids 0..(i+1)*blockSize, so two prompts share hash i exactly when they share that
 * whole prefix (up to collisions: 53-bit values from two independent 32-bit lanes). A trailing
 * partial block gets no hash (vLLM caches full blocks only).
 */
export function chainedBlockHashes(parts: readonly ArrayLike<number>[], blockSize: number): number[] {
  const out: number[] = [];
  // Lanes start from a fixed "no parent" seed; each block starts from its parent's hash.
  let a = 0x3c6ef372;
  let b = 0x6a09e667;
  let n = 0;
  for (const ids of parts) {
    for (let i = 0; i < ids.length; i++) {
      const t = ids[i]! | 0;
      // murmur3 body, one lane per constant set.
      let k = Math.imul(t, 0xcc9e2d51);
      k = Math.imul((k << 15) | (k >>> 17), 0x1b873593);
      a ^= k;
      a = (Math.imul((a << 13) | (a >>> 19), 5) + 0xe6546b64) | 0;
      let m = Math.imul(t ^ 0x5bd1e995, 0x85ebca6b);
      m = Math.imul((m << 16) | (m >>> 16), 0xc2b2ae35);
      b ^= m;
      b = (Math.imul((b << 11) | (b >>> 21), 9) + 0x7feb352d) | 0;
      if (++n === blockSize) {
        a = fmix32(a ^ blockSize);
        b = fmix32(b ^ Math.imul(blockSize, 0x9e3779b1) ^ a);
        out.push((a >>> 0) * 0x200000 + (b >>> 11));
        n = 0;
      }
    }
  }
  return out;
}

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}
