// Prompts built from blocks of single-token words: a replayed trace row's prompt of exactly its input length whose
// blocks repeat wherever the row's hash ids repeat, so a server's prefix cache sees the reuse production saw, and a
// prefix group's request, its group's prefix then its own suffix. Runs in k6 and Node (pure).
//
// Every word of the vocabulary is one token after a space, and a space starts a new pre-token in the BPE tokenizers
// of the served models (Qwen, Llama), so " w1 w2 ... wn" is exactly n tokens and blocks join without merging: a
// prompt's length is its words plus the request's fixed tokens (the chat template), by construction, with no
// tokenizer in k6. prepare-prompts keeps only the words the target's tokenizer counts as one token.

import { fnv1a } from './random';

/** Words that are one token each for the target's tokenizer, and the tokens a request adds around them. */
export interface BlockVocabulary {
  readonly words: readonly string[];
  /** Prompt tokens besides the words: the chat template's (ChatML: 8), 0 for a bare completions prompt. */
  readonly fixedTokens: number;
  /** Of fixedTokens, those before the words (ChatML: 3), so blocks line up with the trace's token positions. */
  readonly leadingTokens: number;
}

/** One prompt to build: its blocks' keys (equal keys give equal text), block length and exact length. */
export interface BlockPromptSpec {
  /** One key per block of the prompt, in order; missing keys past the end are made unique to this prompt. */
  readonly keys: readonly number[];
  readonly blockTokens: number;
  /** The prompt's length as the server counts it, fixed tokens included. */
  readonly inputTokens: number;
  /**
   * Mixed into every block's text: a replay repeated with another salt shares no block with the first, so each
   * cell of a run meets a prefix cache that holds only what the cell itself sent.
   */
  readonly salt: number;
  /** Distinguishes this prompt's own filler blocks (keys it lacks) from every other prompt's: its row index. */
  readonly uniqueId: number;
}

/**
 * A vocabulary for when no tokenizer is at hand (prompts are approximate anyway): common words, and ChatML's fixed
 * tokens for the chat API.
 */
export function approximateVocabulary(words: readonly string[], chat: boolean): BlockVocabulary {
  return { words, fixedTokens: chat ? 8 : 0, leadingTokens: chat ? 3 : 0 };
}

/** Words each block holds: the first less the leading fixed tokens, the last less the rest, so the total is exact. */
export function blockWordCounts(
  spec: Pick<BlockPromptSpec, 'blockTokens' | 'inputTokens'>, v: BlockVocabulary,
): number[] {
  const words = Math.max(1, spec.inputTokens - v.fixedTokens);
  const counts: number[] = [];
  let left = words;
  let room = Math.max(1, spec.blockTokens - v.leadingTokens);
  while (left > 0) {
    const n = Math.min(left, room);
    counts.push(n);
    left -= n;
    room = spec.blockTokens;
  }
  return counts;
}

/** Words of the pool that block texts are cut from: long enough that two blocks rarely start at one place. */
const POOL_WORDS = 65_536;
/** Words drawn per block before its cut of the pool, so that two blocks cut at one place still differ. */
const LEAD_WORDS = 3;

/** Builds prompt texts; made once per vocabulary (its pool takes about 0.1 s to draw in k6). */
export type BlockPrompter = (spec: BlockPromptSpec) => string;

/**
 * A prompter over a pool of words drawn once: a block's text is a few words drawn from its seed, then a cut of the pool
 * at an offset from its seed. Drawing every word of every prompt took k6 about 2 us a word (19 ms for an 8K prompt);
 * a cut is one substring. Equal keys give equal text; two keys give the same text only when both their lead words and
 * their cut agree (1 in about 2 x 10^11 for 143 words).
 */
export function createBlockPrompter(v: BlockVocabulary): BlockPrompter {
  if (v.words.length === 0) throw new Error('a block vocabulary needs at least one word');
  const parts: string[] = [];
  const starts = new Int32Array(POOL_WORDS + 1);
  let state = 1;
  let at = 0;
  for (let i = 0; i < POOL_WORDS; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    const word = ' ' + v.words[Math.floor((state / 4294967296) * v.words.length)]!;
    starts[i] = at;
    at += word.length;
    parts.push(word);
  }
  starts[POOL_WORDS] = at;
  const pool = parts.join('');
  const cut = (from: number, words: number): string => pool.substring(starts[from]!, starts[from + words]!);
  // Pieces are collected and joined once: k6's JavaScript copies a string on every +=.
  const addBlock = (out: string[], seed: number, count: number): void => {
    let h = seed;
    for (let i = 0; i < Math.min(count, LEAD_WORDS); i++) {
      h = mix(h + i + 1);
      out.push(' ' + v.words[h % v.words.length]!);
    }
    // Cuts of at most half the pool, each from its own offset, for blocks longer than the pool.
    for (let left = count - LEAD_WORDS; left > 0;) {
      const n = Math.min(left, POOL_WORDS / 2);
      h = mix(h + 0x632be5ab);
      out.push(cut(h % (POOL_WORDS - n + 1), n));
      left -= n;
    }
  };
  return (spec) => {
    const out: string[] = [];
    blockWordCounts(spec, v).forEach((count, i) => {
      const seed = i < spec.keys.length
        ? blockSeed(spec.keys[i]!, spec.salt, 0)
        : blockSeed(spec.uniqueId, spec.salt, i + 1);
      addBlock(out, seed, count);
    });
    return out.join('');
  };
}

/** N prompt groups of P shared tokens each (plan prompts.prefixGroups, docs/guides/prefix-groups.md). */
export interface PromptGroups {
  readonly groups: number;
  readonly prefixTokens: number;
}

/**
 * The prompt of request `n` of a prefix-groups cell, `inputTokens` long: group n mod N's prefix, one block of exactly P
 * tokens keyed by the group (the chat template's leading tokens count in it, as a server's cache sees them), then
 * blocks of its own. Round robin, so the cell's first N requests are its misses and its groups are equal to within one
 * request.
 */
export function groupPromptText(
  g: PromptGroups, n: number, inputTokens: number, salt: number, prompter: BlockPrompter,
): string {
  return prompter({ keys: [n % g.groups], blockTokens: g.prefixTokens, inputTokens, salt, uniqueId: n });
}

/**
 * The salt of a cell's block prompts: the run's nonce and the cell's id (FNV-1a), so no block is shared across runs,
 * nor across the cells of a run: each cell meets a prefix cache that holds only what the cell itself sent.
 */
export function cellSalt(runNonce: number, cellId: string): number {
  return fnv1a(cellId, Math.floor(runNonce) >>> 0);
}

/**
 * A 32-bit seed from a key, the salt and a lane (0 for shared keys, block position + 1 for a prompt's own blocks),
 * mixed so nearby keys start far apart.
 */
function blockSeed(key: number, salt: number, lane: number): number {
  return mix((Math.floor(key) ^ Math.imul(Math.floor(salt) + 1, 0x9e3779b1) ^ Math.imul(lane, 0x85ebca6b)) >>> 0);
}

/** murmur3's 32-bit finaliser. */
function mix(x: number): number {
  let h = x >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}
