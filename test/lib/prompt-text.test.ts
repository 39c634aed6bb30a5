// Tests for lib/prompt-text.ts: deterministic filler and fixed-width per-request prefixes. Runs in Node (vitest).

import { describe, expect, it } from 'vitest';
import { approximateWordsForTokens, fillerText, parseRequestPrefix, requestPrefix } from '../../lib/prompt-text';

describe('fillerText', () => {
  it('is the same text for the same seed and word count', () => {
    expect(fillerText(200, 7)).toBe(fillerText(200, 7));
    expect(fillerText(50, 1)).toBe(fillerText(50));
  });

  it('differs between seeds', () => {
    expect(fillerText(50, 1)).not.toBe(fillerText(50, 2));
  });

  it('has exactly the asked number of words, starting with a capital', () => {
    for (const n of [1, 9, 100, 1000]) {
      const text = fillerText(n, 3);
      expect(text.split(' ')).toHaveLength(n);
      expect(text[0]).toMatch(/[A-Z]/);
    }
    expect(fillerText(0)).toBe('');
  });

  it('is plain words, spaces and full stops, with no sentence shorter than nine words', () => {
    const text = fillerText(2000, 11);
    expect(text).toMatch(/^[A-Za-z. ]+$/);
    const sentences = text.split('. ').slice(0, -1);
    expect(sentences.length).toBeGreaterThan(10);
    for (const s of sentences) expect(s.split(' ').length).toBeGreaterThanOrEqual(9);
  });

  it('does not depend on the seed being a positive integer (0 behaves as 1)', () => {
    expect(fillerText(30, 0)).toBe(fillerText(30, 1));
  });
});

describe('requestPrefix', () => {
  it('unique mode: user and iteration mixed with the run nonce into the first 11 digits, then the nonce', () => {
    // 3 x 10^6 + 7 + 42 x 7,654,321 = 324,481,489
    expect(requestPrefix('unique', 42, 3, 7)).toBe('[00324481489-000042] Read the text and continue it.\n');
  });

  it('unique mode: the same width for any numbers (wrapping past the width), so the token count holds', () => {
    const widths = [
      requestPrefix('unique', 0, 0, 0), requestPrefix('unique', 999999, 99999, 999999),
      requestPrefix('unique', 1234567, 123456, 1234567),
    ].map((p) => p.length);
    expect(new Set(widths).size).toBe(1);
    expect(requestPrefix('unique', 1, 2, 3)).not.toBe(requestPrefix('unique', 1, 2, 4));
  });

  it('unique mode: no two requests of a run share the first 12 characters (the first prefix-cache block)', () => {
    const seen = new Set<string>();
    for (let vu = 1; vu <= 300; vu++)
      for (let it = 0; it < 40; it++) seen.add(requestPrefix('unique', 987654, vu, it).slice(0, 12));
    expect(seen.size).toBe(300 * 40);
  });

  it('shared-prefix mode: identical for every request and as wide as unique mode', () => {
    const a = requestPrefix('shared-prefix', 42, 3, 7);
    expect(a).toBe('[00000000000-000000] Read the text and continue it.\n');
    expect(requestPrefix('shared-prefix', 1, 99, 5)).toBe(a);
    expect(a.length).toBe(requestPrefix('unique', 42, 3, 7).length);
  });
});

describe('parseRequestPrefix', () => {
  it('gives back the user and iteration of a unique line, for any nonce', () => {
    for (const [nonce, vu, iteration] of [[0, 1, 0], [42, 7, 3], [999_999, 99_999, 999_999], [123_456, 1024, 17]]) {
      expect(parseRequestPrefix(requestPrefix('unique', nonce!, vu!, iteration!))).toEqual({ vu, iteration });
    }
  });

  it('reads the line without its newline, and worked by hand: [00007654322-000001] is user 0, iteration 1', () => {
    expect(parseRequestPrefix('[00007654322-000001] Read the text and continue it.')).toEqual({ vu: 0, iteration: 1 });
  });

  it('is null for a shared-prefix line and for any other text', () => {
    expect(parseRequestPrefix(requestPrefix('shared-prefix', 5, 1, 1))).toBeNull();
    expect(parseRequestPrefix('Explain continuous batching in two paragraphs.')).toBeNull();
    expect(parseRequestPrefix('[0000000123-000001] Read the text and continue it.')).toBeNull();
  });
});

describe('approximateWordsForTokens', () => {
  it('is 0.95 words per token, at least one', () => {
    expect(approximateWordsForTokens(1000)).toBe(950);
    expect(approximateWordsForTokens(1024)).toBe(973);
    expect(approximateWordsForTokens(0)).toBe(1);
  });
});
