// Unit tests of the generated text: determinism, one token per word, output planning (max_tokens, EOS, stop,
// min_tokens).
// Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { naturalLength, planOutput, TokenText, WORDS } from '../../sim/text';
import { loadQwen3Tokenizer } from '../../tokenizer/qwen3';

describe('TokenText', () => {
  it('is deterministic per seed and differs across seeds', () => {
    expect(new TokenText(42).tokens(50)).toBe(new TokenText(42).tokens(50));
    expect(new TokenText(42).tokens(50)).not.toBe(new TokenText(43).tokens(50));
  });

  it('every word is one Qwen3 token with its leading space, so N generated tokens tokenize to N', () => {
    const tok = loadQwen3Tokenizer();
    for (const w of WORDS) expect(tok.encode(` ${w}`).length, w).toBe(1);
    expect(tok.countText(new TokenText(7).tokens(2000))).toBe(2000);
  });
});

describe('planOutput', () => {
  it('runs to max_tokens with ignore_eos', () => {
    expect(planOutput({ seed: 1, maxTokens: 5000, minTokens: 0, ignoreEos: true, stop: [] })).toEqual({
      contentTokens: 5000, finishReason: 'length',
    });
  });

  it('stops at the natural EOS (256..1023 tokens) without ignore_eos, never before min_tokens', () => {
    const n = naturalLength(9, 0);
    expect(n).toBeGreaterThanOrEqual(256);
    expect(n).toBeLessThan(1024);
    expect(planOutput({ seed: 9, maxTokens: 5000, minTokens: 0, ignoreEos: false, stop: [] })).toEqual({
      contentTokens: n, finishReason: 'stop',
    });
    expect(planOutput({ seed: 9, maxTokens: 5000, minTokens: 2000, ignoreEos: false, stop: [] })).toEqual({
      contentTokens: 2000, finishReason: 'stop',
    });
    expect(planOutput({ seed: 9, maxTokens: 10, minTokens: 0, ignoreEos: false, stop: [] })).toEqual({
      contentTokens: 10, finishReason: 'length',
    });
  });

  it('ends before the token that completes a stop string', () => {
    const text = new TokenText(5);
    const toks = Array.from({ length: 40 }, () => text.token());
    const stopWord = toks[20]!; // e.g. " water"
    const first = toks.findIndex((t) => t.includes(stopWord.trim()));
    const plan = planOutput({ seed: 5, maxTokens: 40, minTokens: 0, ignoreEos: true, stop: [stopWord.trim()] });
    expect(plan.finishReason).toBe('stop');
    // The content is every token before the first one containing the stop string.
    expect(plan.contentTokens).toBeLessThanOrEqual(first);
    expect(toks.slice(0, plan.contentTokens).join('')).not.toContain(stopWord.trim());
  });
});
