// KV-cache block accounting of the simulated engine (paged attention blocks; no prefix caching). Runs in Node, pure.
//
// A sequence of t tokens holds ceil(t / blockSize) blocks, plus a fixed number of blocks for the
// recurrent state of hybrid-attention models, held from admission to finish.

export class KvCache {
  private readonly held = new Map<string, number>();
  private used = 0;

  constructor(
    readonly totalBlocks: number,
    readonly blockSize: number,
    /** Blocks a sequence holds for its recurrent state (0 for pure-attention models). */
    readonly stateBlocksPerSeq = 0,
  ) {
    if (totalBlocks < 1 || blockSize < 1) throw new Error('KV cache needs at least one block of at least one token');
  }

  /** Blocks a sequence of this many tokens needs, state included. */
  blocksFor(tokens: number): number {
    return Math.ceil(tokens / this.blockSize) + this.stateBlocksPerSeq;
  }

  get usedBlocks(): number {
    return this.used;
  }

  get freeBlocks(): number {
    return this.totalBlocks - this.used;
  }

  /** Fraction of blocks in use, 0..1 (vllm:kv_cache_usage_perc). */
  get usage(): number {
    return this.used / this.totalBlocks;
  }

  blocksOf(id: string): number {
    return this.held.get(id) ?? 0;
  }

  /** True when a new sequence of this many tokens would fit in the free blocks now. */
  fits(tokens: number): boolean {
    return this.blocksFor(tokens) <= this.freeBlocks;
  }

  /** Grows the sequence's allocation to cover `tokens`; returns false (and changes nothing) when blocks run out. */
  tryAllocate(id: string, tokens: number): boolean {
    const have = this.held.get(id) ?? 0;
    const need = this.blocksFor(tokens);
    if (need <= have) return true;
    if (need - have > this.freeBlocks) return false;
    this.held.set(id, need);
    this.used += need - have;
    return true;
  }

  /** Frees every block of the sequence (finish, abort or preemption). */
  free(id: string): void {
    const have = this.held.get(id);
    if (have === undefined) return;
    this.used -= have;
    this.held.delete(id);
  }
}
