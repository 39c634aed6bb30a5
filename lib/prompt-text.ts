// Deterministic prompt text and per-request unique prefixes. Runs in k6 and Node.
// Prompts get exact lengths, and prefix caching cannot hide prefill.

import type { PromptMode } from './plan';

/** Common English words: about one token each for BPE tokenizers, so text length tracks token count. */
const WORDS = (
  'the of and to in is was that for on as with by at from his her they this which are be or an had not but what all ' +
  'were when we there can been has more if will one no other would their time so about out up into them some could ' +
  'its than two then first only new these may any each after most also made over did many before must through back ' +
  'years where much your way well down should because long just used such people state world between both life being ' +
  'under never day same another know while last might us great old year off come since against go came right take ' +
  'three small large next early young important few public bad same able system program question during work play ' +
  'government point hand part child eye woman place week case'
).split(' ');

/** The filler's distinct words: candidates for a block vocabulary (lib/block-prompt.ts), which keeps one-token ones. */
export const FILLER_WORDS: readonly string[] = [...new Set(WORDS)];

/** A small linear congruential generator: deterministic across k6 and Node for a seed. */
function lcg(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
}

/** About `words` words of deterministic filler text, in sentences, for a seed. */
export function fillerText(words: number, seed = 1): string {
  const next = lcg(seed);
  const parts: string[] = [];
  let sentence = 0;
  for (let i = 0; i < words; i++) {
    let w = WORDS[Math.floor(next() * WORDS.length)]!;
    if (sentence === 0) w = w.charAt(0).toUpperCase() + w.slice(1);
    sentence++;
    if (sentence > 8 && next() < 0.15) {
      w += '.';
      sentence = 0;
    }
    parts.push(w);
  }
  return parts.join(' ');
}

function pad(n: number, width: number): string {
  const s = String(Math.abs(Math.floor(n)) % Math.pow(10, width));
  return s.length >= width ? s : '0'.repeat(width - s.length) + s;
}

/**
 * The first line of a prompt. In "unique" mode it differs for every request of a run but always has
 * the same token count (fixed-width digits), so the exact length holds; in "shared-prefix" mode it
 * is the same for every request, so a server with prefix caching can reuse the whole prompt.
 *
 * A prefix cache matches whole blocks from the start (vLLM: 16 tokens), and Qwen's tokenizer makes
 * each digit a token, so what tells requests apart must sit in the first few tokens: the first
 * field mixes user and iteration (unique within a run: vu x 10^6 + iteration, shifted by a per-run
 * constant modulo 10^11, which is one-to-one) and the run nonce follows. With the chat template's
 * three tokens, "[" and 11 digits fill the first block, so no two requests of a run share a block.
 */
export function requestPrefix(mode: PromptMode, runNonce: number, vu: number, iteration: number): string {
  if (mode === 'shared-prefix') return `[${pad(0, 11)}-${pad(0, 6)}] Read the text and continue it.\n`;
  const request = (Math.floor(vu) % 100_000) * 1_000_000 + (Math.floor(iteration) % 1_000_000);
  const mixed = (request + (Math.floor(runNonce) % 1_000_000) * 7_654_321) % 100_000_000_000;
  return `[${pad(mixed, 11)}-${pad(runNonce, 6)}] Read the text and continue it.\n`;
}

/**
 * The user and iteration a "unique" prefix line was made for (requestPrefix's inverse, modulo its 10^5 users and 10^6
 * iterations); null for any other line, a shared-prefix line included. The accuracy benchmark pairs a request the
 * server recorded with the client's record of it by this.
 */
export function parseRequestPrefix(line: string): { vu: number; iteration: number } | null {
  const m = /^\[(\d{11})-(\d{6})\] Read the text and continue it\.$/.exec(line.replace(/\n$/, ''));
  if (m === null || (/^0+$/.test(m[1]!) && /^0+$/.test(m[2]!))) return null;
  const modulus = 100_000_000_000;
  const request = (((Number(m[1]) - Number(m[2]) * 7_654_321) % modulus) + modulus) % modulus;
  return { vu: Math.floor(request / 1_000_000), iteration: request % 1_000_000 };
}

/** Rough word count for a token target when no tokenizer is at hand (about 1.0 token per word here). */
export function approximateWordsForTokens(tokens: number): number {
  return Math.max(1, Math.round(tokens * 0.95));
}
