// Builds prompt sets of exact token lengths. Runs in Node.
// It uses the Qwen3 tokenizer for Qwen models, else the server's /tokenize, else counts approximately.

import type { ApiStyle } from '../lib/plan';
import { approximatePromptSet, PROMPT_SET_SCHEMA_VERSION, requestPrefix, type PreparedPrompt, type PromptSet } from '../lib/prompt-set';
import { approximateWordsForTokens, fillerText } from '../lib/prompt-text';
import { loadQwen3Tokenizer, QWEN3_TOKENIZER_NAME } from './qwen3';

export type TokenizerChoice = 'auto' | 'qwen3' | 'server' | 'approximate';

export interface PrepareOptions {
  readonly model: string;
  readonly api: ApiStyle;
  readonly contexts: readonly number[];
  readonly tokenizer: TokenizerChoice;
  /** Base URL ending in /v1; its origin serves /tokenize (vLLM, SGLang, the simulator). */
  readonly baseUrl?: string;
  readonly apiKey?: string | null;
}

/** Counts the prompt tokens of a full prompt text as the server will for this API style. */
type Counter = (text: string) => Promise<number>;

const PREFIX_SAMPLES = [
  requestPrefix('unique', 0, 0, 0), requestPrefix('unique', 999_999, 99_999, 999_999),
  requestPrefix('shared-prefix', 0, 0, 0),
];

function qwenCounter(api: ApiStyle): Counter {
  const tok = loadQwen3Tokenizer();
  return async (text) => (api === 'chat' ? tok.countChat([{ role: 'user', content: text }]) : tok.countText(text));
}

function serverCounter(baseUrl: string, model: string, api: ApiStyle, apiKey: string | null | undefined): Counter {
  const origin = /^https?:\/\/[^/]+/.exec(baseUrl)?.[0];
  if (!origin) throw new Error(`--url "${baseUrl}" is not an http(s) URL`);
  return async (text) => {
    const body =
      api === 'chat'
        ? { model, messages: [{ role: 'user', content: text }], add_generation_prompt: true }
        : { model, prompt: text };
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (apiKey) headers.authorization = `Bearer ${apiKey}`;
    const res = await fetch(`${origin}/tokenize`, { method: 'POST', headers, body: JSON.stringify(body) });
    if (!res.ok)
      throw new Error(
        `${origin}/tokenize answered HTTP ${res.status}; use --tokenizer approximate for a server without /tokenize`,
      );
    const json = (await res.json()) as { count?: number; tokens?: unknown[] };
    const count = typeof json.count === 'number' ? json.count : Array.isArray(json.tokens) ? json.tokens.length : NaN;
    if (!Number.isFinite(count)) throw new Error(`${origin}/tokenize answered without a token count`);
    return count;
  };
}

/** Whether a model name belongs to the Qwen3 family, whose tokenizer ships with the suite. */
export function isQwen3Model(model: string): boolean {
  return /qwen3/i.test(model);
}

/**
 * Finds a body text whose full prompt (prefix line + body, with the chat template where it applies)
 * counts exactly `target` tokens. Starts from a word-count estimate and corrects by the measured
 * difference; ends within a few rounds because counts move almost one for one with words.
 */
async function fitBody(target: number, count: Counter, textForWords: (words: number) => string): Promise<PreparedPrompt> {
  const prefix = PREFIX_SAMPLES[0]!;
  let words = approximateWordsForTokens(target) - 25;
  let best: PreparedPrompt | null = null;
  for (let round = 0; round < 12; round++) {
    words = Math.max(1, words);
    const body = textForWords(words);
    const measured = await count(prefix + body);
    if (!best || Math.abs(measured - target) < Math.abs(best.measuredTokens - target))
      best = { contextTokens: target, body, measuredTokens: measured };
    if (measured === target) break;
    const diff = target - measured;
    // Counts grow about one token per word; step at least one word towards the target.
    words += diff > 0 ? Math.max(1, Math.round(diff * 0.9)) : Math.min(-1, Math.round(diff * 0.9));
  }
  if (best && best.measuredTokens !== target) {
    // A word can add two tokens: finish with single-token endings around the closest length.
    const base = best.body.split(' ');
    for (const cut of [0, 1, 2]) {
      for (const ending of ['', '.', ',', ' a', ' the', ' of the']) {
        const body = base.slice(0, base.length - cut).join(' ') + ending;
        const measured = await count(prefix + body);
        if (measured === target) return { contextTokens: target, body, measuredTokens: measured };
      }
    }
  }
  return best!;
}

/**
 * Builds a prompt set for the given contexts. Every prefix line (unique or shared) has the same token
 * count, which is checked, so any request's prompt is exactly as long as the one measured here.
 */
export async function preparePrompts(opts: PrepareOptions): Promise<PromptSet> {
  let choice = opts.tokenizer;
  if (choice === 'auto') choice = isQwen3Model(opts.model) ? 'qwen3' : opts.baseUrl ? 'server' : 'approximate';
  if (choice === 'approximate') return approximatePromptSet(opts.model, opts.api, opts.contexts);
  const count = choice === 'qwen3' ? qwenCounter(opts.api) : serverCounter(opts.baseUrl ?? '', opts.model, opts.api, opts.apiKey);
  const tokenizerName = choice === 'qwen3' ? QWEN3_TOKENIZER_NAME : `server /tokenize of ${opts.model}`;

  const prefixCounts = await Promise.all(PREFIX_SAMPLES.map((p) => count(p + 'x')));
  if (new Set(prefixCounts).size !== 1)
    throw new Error(
      `prefix lines tokenize to different lengths (${prefixCounts.join(', ')}); exact lengths are impossible with this tokenizer`,
    );

  // One long deterministic text, cut to length: the shorter prompts are prefixes of the longer ones' text.
  const maxContext = Math.max(...opts.contexts);
  const allWords = fillerText(Math.ceil(maxContext * 1.2) + 100, 7).split(' ');
  const textForWords = (words: number) => allWords.slice(0, Math.min(words, allWords.length)).join(' ');
  const prompts: PreparedPrompt[] = [];
  for (const target of [...opts.contexts].sort((a, b) => a - b)) {
    const minimum = await count(PREFIX_SAMPLES[0]! + 'x');
    if (target < minimum) throw new Error(`context ${target} is shorter than the prompt's fixed part (${minimum} tokens)`);
    prompts.push(await fitBody(target, count, textForWords));
  }
  return {
    schemaVersion: PROMPT_SET_SCHEMA_VERSION,
    model: opts.model,
    api: opts.api,
    tokenizer: tokenizerName,
    exact: prompts.every((p) => p.measuredTokens === p.contextTokens),
    prompts,
  };
}

