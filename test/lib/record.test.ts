// Tests for lib/record.ts: the measurement formulas against hand-worked numbers. Runs in Node (vitest).

import { describe, expect, it } from 'vitest';
import { decodeTokensPerSecond, distributeTokens, interTokenLatenciesMs, prefillTokensPerSecond, timePerOutputTokenMs } from '../../lib/record';

describe('timePerOutputTokenMs', () => {
  it('is (e2e - ttft) / (tokens - 1)', () => {
    // First token at 200 ms, last byte at 1190 ms, 100 tokens: 990 ms over 99 gaps.
    expect(timePerOutputTokenMs(1190, 200, 100)).toBe(10);
    expect(timePerOutputTokenMs(250, 100, 4)).toBe(50);
  });

  it('is undefined (null) for 0 and 1 tokens', () => {
    expect(timePerOutputTokenMs(500, 100, 1)).toBeNull();
    expect(timePerOutputTokenMs(500, 100, 0)).toBeNull();
  });
});

describe('decodeTokensPerSecond', () => {
  it('is (tokens - 1) / (e2e - ttft) in tokens per second', () => {
    expect(decodeTokensPerSecond(1190, 200, 100)).toBe(100); // 99 tokens in 0.99 s
    expect(decodeTokensPerSecond(1100, 100, 21)).toBe(20); // 20 tokens in 1 s
  });

  it('is null for 0 and 1 tokens, and when no time passed after the first token', () => {
    expect(decodeTokensPerSecond(500, 100, 1)).toBeNull();
    expect(decodeTokensPerSecond(500, 100, 0)).toBeNull();
    expect(decodeTokensPerSecond(100, 100, 5)).toBeNull();
  });
});

describe('prefillTokensPerSecond', () => {
  it('is input tokens / ttft in tokens per second', () => {
    expect(prefillTokensPerSecond(8192, 512)).toBe(16000);
    expect(prefillTokensPerSecond(1024, 100)).toBe(10240);
  });

  it('is null for no input or no time', () => {
    expect(prefillTokensPerSecond(0, 100)).toBeNull();
    expect(prefillTokensPerSecond(1024, 0)).toBeNull();
  });
});

describe('distributeTokens', () => {
  it('splits by largest remainder over text lengths, at least one per chunk', () => {
    // spare 5 tokens over weights 4, 8, 12: shares 0.83, 1.67, 2.5 -> 1+0, 1+1, 1+2 = 6; two more go to remainders .83 and .67.
    expect(distributeTokens(8, [4, 8, 12])).toEqual([2, 3, 3]);
    // spare 8 over 11, 10, 5, 2 (sum 28): shares 3.14, 2.86, 1.43, 0.57 -> 4, 3, 2, 1 = 10; +1 to .86 and .57.
    expect(distributeTokens(12, [11, 10, 5, 2])).toEqual([4, 4, 2, 2]);
    // spare 6 over 5, 15, 2, 8 (sum 30): shares 1, 3, 0.4, 1.6 -> 2, 4, 1, 2 = 9; +1 to .6.
    expect(distributeTokens(10, [5, 15, 2, 8])).toEqual([2, 4, 1, 3]);
  });

  it('breaks ties in remainder by chunk order', () => {
    // spare 1 over equal weights: shares 0.5, 0.5 -> the first chunk gets it.
    expect(distributeTokens(3, [1, 1])).toEqual([2, 1]);
  });

  it('one token per chunk when the total equals the chunk count; never below one per chunk', () => {
    expect(distributeTokens(3, [9, 1, 1])).toEqual([1, 1, 1]);
    expect(distributeTokens(2, [1, 1, 1])).toEqual([1, 1, 1]);
  });

  it('splits evenly when no chunk has text (or weights are not positive)', () => {
    expect(distributeTokens(7, [0, 0, 0])).toEqual([3, 2, 2]);
    expect(distributeTokens(5, [-3, 0])).toEqual([3, 2]);
  });

  it('returns nothing for no chunks and always sums to the total when total >= chunks', () => {
    expect(distributeTokens(5, [])).toEqual([]);
    for (const [total, weights] of [[100, [1, 2, 3, 4, 5, 6, 7]], [13, [3, 3, 3]], [1000, [1, 999]], [9, [0, 5, 0]]] as const) {
      const parts = distributeTokens(total, weights);
      expect(parts.reduce((a, b) => a + b, 0)).toBe(total);
      expect(Math.min(...parts)).toBeGreaterThanOrEqual(1);
    }
  });
});

describe('interTokenLatenciesMs', () => {
  it('one token per chunk: the gaps between chunks (the first gap is TTFT, not ITL)', () => {
    // Five timestamps: first token at 100, then 120, 150, 160, 200.
    expect(interTokenLatenciesMs([100, 120, 150, 160, 200], [1, 1, 1, 1, 1])).toEqual([20, 30, 10, 40]);
  });

  it('a chunk of k tokens spreads its gap over k samples', () => {
    expect(interTokenLatenciesMs([100, 130, 140], [1, 3, 2])).toEqual([10, 10, 10, 5, 5]);
  });

  it("the first chunk's extra tokens give 0 ms samples: one sample per token after the first", () => {
    const itl = interTokenLatenciesMs([200, 260], [3, 2]);
    expect(itl).toEqual([0, 0, 30, 30]);
    expect(itl).toHaveLength(3 + 2 - 1);
  });

  it('no samples for no chunks or a single one-token chunk; a missing count means one token', () => {
    expect(interTokenLatenciesMs([], [])).toEqual([]);
    expect(interTokenLatenciesMs([50], [1])).toEqual([]);
    expect(interTokenLatenciesMs([50, 75], [])).toEqual([25]);
  });
});
