// Deterministic generated text for the simulator: one common English word per token, chosen by a seeded PRNG.
// Runs in Node, pure.
//
// Every word of WORDS is a single Qwen3 token when preceded by a space (checked in test/sim/text.test.ts),
// so " word" x N tokenizes to exactly N tokens and a client that counts tokens agrees with usage.

import { mulberry32 } from '../lib/random';

export const WORDS: readonly string[] = (
  'the of and to in is that it for was on are as with his they at be this from have or by one had not but what all ' +
  'were when we there can an your which their said if do will each about how up out them then she many some so these ' +
  'would other into has more her two like him see time could no make than first been its who now people my made over ' +
  'did down only way find use may water long little very after words called just where most know get through back ' +
  'much go good new write our me man too any day same right look think also around another came come work three must ' +
  'because does part even place well such here take why help put different away again off went old number great tell ' +
  'men say small every found still between name should home big give air line set own under read last never us left ' +
  'end along while might next sound below saw something thought both few those always show large often together ' +
  'asked house world going want school important until form food keep children feet land side without boy once ' +
  'animal life enough took sometimes four head above kind began almost live page got earth need far hand high year ' +
  'mother light'
).split(' ');

/** An endless stream of tokens (" word") for a seed: the same seed always yields the same text. */
export class TokenText {
  private readonly next: () => number;

  constructor(readonly seed: number) {
    this.next = mulberry32(seed ^ 0x9e3779b9);
  }

  /** The next token's text, with its leading space. */
  token(): string {
    return ' ' + WORDS[this.nextIndex()]!;
  }

  /** The next token as its index in WORDS (the same draw as token()). */
  nextIndex(): number {
    return Math.floor(this.next() * WORDS.length);
  }

  /** The next n tokens joined. */
  tokens(n: number): string {
    let s = '';
    for (let i = 0; i < n; i++) s += this.token();
    return s;
  }
}

/**
 * The token ids of a seed's first n tokens, given the id of each word of WORDS (as " word"): what the
 * prefix cache hashes for a response's blocks, so a later prompt that repeats the response hits them.
 */
export function outputTokenIds(seed: number, n: number, wordIds: ArrayLike<number>): Uint32Array {
  const text = new TokenText(seed);
  const ids = new Uint32Array(Math.max(0, n));
  for (let i = 0; i < ids.length; i++) ids[i] = wordIds[text.nextIndex()]!;
  return ids;
}

/**
 * Where a model left alone would emit EOS, as a token count: from the seed, between 256 and 1023 tokens,
 * never below minTokens. Independent of the text stream so the text for a seed does not depend on it.
 */
export function naturalLength(seed: number, minTokens: number): number {
  const r = mulberry32(seed ^ 0x5bd1e995)();
  return Math.max(minTokens, 256 + Math.floor(r * 768));
}

export interface OutputPlan {
  /** Content tokens the stream will carry (equals usage.completion_tokens). */
  readonly contentTokens: number;
  readonly finishReason: 'length' | 'stop';
}

/**
 * Decides how many tokens a request generates: max_tokens, or an earlier natural EOS (unless ignore_eos),
 * or the token before the first stop string (stop strings apply after min_tokens, as vLLM does).
 * Scanning for stop strings regenerates the text from the seed, so it costs O(tokens) once per request.
 */
export function planOutput(opts: {
  seed: number; maxTokens: number; minTokens: number; ignoreEos: boolean; stop: readonly string[];
}): OutputPlan {
  let limit = opts.maxTokens;
  let reason: 'length' | 'stop' = 'length';
  if (!opts.ignoreEos) {
    const natural = naturalLength(opts.seed, opts.minTokens);
    if (natural < limit) {
      limit = natural;
      reason = 'stop';
    }
  }
  if (opts.stop.length > 0) {
    const text = new TokenText(opts.seed);
    const longest = Math.max(...opts.stop.map((s) => s.length));
    let tail = '';
    for (let i = 1; i <= limit; i++) {
      tail = (tail + text.token()).slice(-(longest + 16));
      if (i > opts.minTokens && opts.stop.some((s) => s !== '' && tail.includes(s)))
        return { contentTokens: i - 1, finishReason: 'stop' };
    }
  }
  return { contentTokens: limit, finishReason: reason };
}
