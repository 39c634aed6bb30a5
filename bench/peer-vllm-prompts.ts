// What each level of bench/peer-vllm-bench.ts sends: its rounds and requests, the suite's own prompts (fitted to
// ShareGPT's cap when vllm bench serve sends them too) and the ShareGPT file that carries them. Runs in Node.

import { approximatePromptSet, findPrompt, promptText, requestPrefix } from '../lib/prompt-set';
import { loadQwen3Tokenizer } from '../tokenizer/qwen3';
import { DEFAULT_PROFILE_NAME, findProfile } from '../sim/profiles';

/** The model the simulator serves (its default profile): both clients name it. */
export const MODEL = findProfile(DEFAULT_PROFILE_NAME)!.model;

/** Rounds per user and requests of one level: `numPrompts` (default 4 x users, at least 16) in whole rounds. */
export function levelShape(users: number, numPrompts: number | null): { rounds: number; requests: number } {
  const wanted = numPrompts ?? Math.max(16, 4 * users);
  const rounds = Math.max(1, Math.ceil(wanted / users));
  return { rounds, requests: rounds * users };
}

/** ShareGPT's longest prompt in tokens (is_valid_sequence): vllm bench serve drops longer ones. */
export const SHAREGPT_MAX_PROMPT_TOKENS = 1024;
/** ShareGPT's cap, counted as vllm bench serve counts it: Qwen3's tokenizer (the tiny model's), no template. */
export const SHAREGPT: PromptFit = {
  maxTokens: SHAREGPT_MAX_PROMPT_TOKENS, countText: (text) => loadQwen3Tokenizer().countText(text),
};

/** A prompt length limit and the tokenizer that counts it (no template). */
export interface PromptFit {
  readonly maxTokens: number;
  readonly countText: (text: string) => number;
}

/**
 * The suite's own prompts: the sweep's body for the context (approximate lengths, as dist/sweep.js builds it without
 * a prompts file) behind a first line unique to each request (lib/prompt-text.ts requestPrefix; its digits are
 * fixed-width, so every prompt counts the same). With `fit`, the body loses its last words until the prompt fits.
 * The simulator counts such prompts from its cache (the body repeats); it tokenizes each of vllm's random prompts
 * whole.
 */
export function suitePrompts(context: number, count: number, nonce: number, fit: PromptFit | null): string[] {
  const prepared = findPrompt(approximatePromptSet(MODEL, 'chat', [context]), context);
  const text = (i: number, words: readonly string[]): string =>
    promptText({ ...prepared, body: words.join(' ') }, requestPrefix('unique', nonce, 1, i));
  const all = prepared.body.split(' ');
  const fits = (n: number): boolean => fit === null || fit.countText(text(0, all.slice(0, n))) <= fit.maxTokens;
  // The most words that fit (a bisection: a word more never makes a prompt shorter), at least one.
  let lo = 1;
  let hi = all.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  return Array.from({ length: count }, (_, i) => text(i, all.slice(0, lo)));
}

/** Prompts as a ShareGPT file for vllm bench serve (`--dataset-name sharegpt`), one conversation each. */
export function shareGptFile(prompts: readonly string[]): string {
  // The answer is never read: --sharegpt-output-len sets the output length.
  const entry = (value: string, i: number): unknown => ({
    id: `${i}`, conversations: [{ from: 'human', value }, { from: 'gpt', value: '' }],
  });
  return `${JSON.stringify(prompts.map(entry))}\n`;
}
