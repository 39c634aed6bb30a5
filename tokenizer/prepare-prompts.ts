// Builds prompt sets of exact token lengths. Runs in Node.
// It uses the Qwen3 tokenizer for Qwen models, else the server's /tokenize, else counts approximately.

import { promptForm, type ApiStyle } from '../lib/plan';
import { followUpText } from '../lib/chat-template';
import {
  approximatePromptSet, preparedLength, PROMPT_SET_SCHEMA_VERSION, requestPrefix, type PreparedPrompt, type PromptSet,
} from '../lib/prompt-set';
import { approximateVocabulary, type BlockVocabulary } from '../lib/block-prompt';
import { approximateWordsForTokens, FILLER_WORDS, fillerText } from '../lib/prompt-text';
import { loadQwen3Tokenizer, QWEN3_TOKENIZER_NAME } from './qwen3';

export type TokenizerChoice = 'auto' | 'qwen3' | 'server' | 'approximate';

export interface PrepareOptions {
  readonly model: string;
  readonly api: ApiStyle;
  readonly contexts: readonly number[];
  /** Contexts whose prompts must be shorter to fit the server's window, mapped to that length (context-window.ts). */
  readonly fitted?: ReadonlyMap<number, number>;
  /** Lengths of follow-up messages for conversations (the sessions script), as each adds to a turn's prompt. */
  readonly followUps?: readonly number[];
  readonly tokenizer: TokenizerChoice;
  /** Base URL ending in /v1; its origin serves /tokenize (vLLM, SGLang, the simulator). */
  readonly baseUrl?: string;
  readonly apiKey?: string | null;
  /** Also find the one-token words that trace replay builds its prompts of (lib/block-prompt.ts). */
  readonly blockVocabulary?: boolean;
}

/** Counts the prompt tokens of a full prompt text as the server will for this API style. */
type Counter = (text: string) => Promise<number>;

/** Counts what a follow-up message adds to a turn's prompt besides the previous answer (followUpText). */
type FollowUpCounter = (message: string) => Promise<number>;

const PREFIX_SAMPLES = [
  requestPrefix('unique', 0, 0, 0), requestPrefix('unique', 999_999, 99_999, 999_999),
  requestPrefix('shared-prefix', 0, 0, 0),
];

function qwenCounter(api: ApiStyle): Counter {
  const tok = loadQwen3Tokenizer();
  return async (text) =>
    (promptForm(api) === 'chat' ? tok.countChat([{ role: 'user', content: text }]) : tok.countText(text));
}

/** ChatML's special tokens split the text before anything else, so the follow-up's own tokens are exactly its count. */
function qwenFollowUpCounter(): FollowUpCounter {
  const tok = loadQwen3Tokenizer();
  return async (message) => tok.countText(followUpText(message));
}

/**
 * Through the server's /tokenize: a conversation with and without the follow-up after a one-word answer, less that
 * word counted alone (the server's template may differ from ChatML, so only differences of its counts are used).
 */
function serverFollowUpCounter(count: (body: object) => Promise<number>, model: string): FollowUpCounter {
  const first = { role: 'user', content: 'Hello.' };
  return async (message) => {
    const messages = [first, { role: 'assistant', content: 'Yes' }, { role: 'user', content: message }];
    const [withIt, without, answer] = await Promise.all([
      count({ model, messages, add_generation_prompt: true }),
      count({ model, messages: [first], add_generation_prompt: true }),
      count({ model, prompt: 'Yes' }),
    ]);
    return withIt - without - answer;
  };
}

/** POSTs a body to the server's /tokenize and returns its token count. */
function tokenizeCount(baseUrl: string, apiKey: string | null | undefined): (body: object) => Promise<number> {
  const origin = /^https?:\/\/[^/]+/.exec(baseUrl)?.[0];
  if (!origin) throw new Error(`--url "${baseUrl}" is not an http(s) URL`);
  return async (body) => {
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

function serverCounter(count: (body: object) => Promise<number>, model: string, api: ApiStyle): Counter {
  return (text) =>
    count(promptForm(api) === 'chat'
      ? { model, messages: [{ role: 'user', content: text }], add_generation_prompt: true }
      : { model, prompt: text });
}

/** Whether a model name belongs to the Qwen3 family, whose tokenizer ships with the suite. */
export function isQwen3Model(model: string): boolean {
  return /qwen3/i.test(model);
}

/**
 * Finds a body text whose count (`countBody`: the full prompt, prefix line and chat template included, or what a
 * follow-up adds) is exactly `target` tokens. Starts from a word-count estimate less the fixed part (`slack`) and
 * corrects by the measured difference; ends within a few rounds because counts move almost one for one with words.
 */
async function fitBody(
  target: number, countBody: (body: string) => Promise<number>, textForWords: (words: number) => string, slack: number,
): Promise<PreparedPrompt> {
  let words = approximateWordsForTokens(target) - slack;
  let best: PreparedPrompt | null = null;
  for (let round = 0; round < 12; round++) {
    words = Math.max(1, words);
    const body = textForWords(words);
    const measured = await countBody(body);
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
        const measured = await countBody(body);
        if (measured === target) return { contextTokens: target, body, measuredTokens: measured };
      }
    }
  }
  return best!;
}

/** Follow-up messages of exact lengths (what each adds to a turn's prompt), from their own deterministic text. */
async function prepareFollowUps(lengths: readonly number[], count: FollowUpCounter): Promise<PreparedPrompt[]> {
  const minimum = await count('x');
  const words = fillerText(Math.ceil(Math.max(0, ...lengths) * 1.2) + 50, 23).split(' ');
  const textForWords = (n: number) => `Go on, and also take this into account:\n${words.slice(0, n).join(' ')}`;
  const out: PreparedPrompt[] = [];
  for (const target of [...new Set(lengths)].sort((a, b) => a - b)) {
    if (target < minimum + 10) {
      throw new Error(
        `a follow-up of ${target} tokens is shorter than its fixed part and first line (${minimum + 10} tokens)`,
      );
    }
    out.push(await fitBody(target, count, textForWords, 20));
  }
  return out;
}

/**
 * The filler words the counter takes as one token after a space, and the request's fixed tokens around them. A word
 * is kept when adding it to a one-word prompt adds exactly one token (differences of counts only, so a server's own
 * template and special tokens cancel out); then a 200-word prompt is checked to be its words plus the fixed tokens.
 * `leading`: the fixed tokens before the words when the tokenizer is known, else all of them (blocks then line up
 * with the server's cache blocks a few tokens late, which costs a shared prefix less than one cache block).
 */
async function blockVocabulary(count: Counter, leading: number | null): Promise<BlockVocabulary> {
  const base = await count(' the');
  const oneToken = await Promise.all(FILLER_WORDS.map(async (w) => (await count(` the ${w}`)) - base === 1));
  const words = FILLER_WORDS.filter((_, i) => oneToken[i]);
  if (words.length < 16) {
    throw new Error(
      `the tokenizer counts only ${words.length} filler words as one token; trace prompts need 16 or more`,
    );
  }
  const fixedTokens = base - 1;
  const sample = Array.from({ length: 200 }, (_, i) => words[(i * 7) % words.length]!);
  const measured = await count(' ' + sample.join(' '));
  if (measured !== fixedTokens + sample.length) {
    throw new Error(
      `200 one-token words counted ${measured} tokens, not ${fixedTokens + 200}: words merge in this tokenizer`,
    );
  }
  return { words, fixedTokens, leadingTokens: leading ?? fixedTokens };
}

/**
 * Builds a prompt set for the given contexts. Every prefix line (unique or shared) has the same token
 * count, which is checked, so any request's prompt is exactly as long as the one measured here.
 */
export async function preparePrompts(opts: PrepareOptions): Promise<PromptSet> {
  let choice = opts.tokenizer;
  if (choice === 'auto') choice = isQwen3Model(opts.model) ? 'qwen3' : opts.baseUrl ? 'server' : 'approximate';
  const followUps = opts.followUps ?? [];
  const fitted = opts.fitted ?? new Map<number, number>();
  if (followUps.length > 0 && promptForm(opts.api) !== 'chat')
    throw new Error('follow-up messages are for the conversation APIs (--api chat, responses or messages)');
  if (choice === 'approximate') {
    const set = approximatePromptSet(opts.model, opts.api, opts.contexts, followUps, fitted);
    return opts.blockVocabulary
      ? { ...set, blockVocabulary: approximateVocabulary(FILLER_WORDS, promptForm(opts.api) === 'chat') }
      : set;
  }
  const tokenize = choice === 'qwen3' ? null : tokenizeCount(opts.baseUrl ?? '', opts.apiKey);
  const count = tokenize ? serverCounter(tokenize, opts.model, opts.api) : qwenCounter(opts.api);
  const followUpCount = tokenize ? serverFollowUpCounter(tokenize, opts.model) : qwenFollowUpCounter();
  const tokenizerName = choice === 'qwen3' ? QWEN3_TOKENIZER_NAME : `server /tokenize of ${opts.model}`;

  const prefixCounts = await Promise.all(PREFIX_SAMPLES.map((p) => count(p + 'x')));
  if (new Set(prefixCounts).size !== 1)
    throw new Error(
      `prefix lines tokenize to different lengths (${prefixCounts.join(', ')}); ` +
      'exact lengths are impossible with this tokenizer',
    );

  // One long deterministic text, cut to length: the shorter prompts are prefixes of the longer ones' text.
  const maxContext = Math.max(...opts.contexts);
  const allWords = fillerText(Math.ceil(maxContext * 1.2) + 100, 7).split(' ');
  const textForWords = (words: number) => allWords.slice(0, Math.min(words, allWords.length)).join(' ');
  const prompts: PreparedPrompt[] = [];
  for (const contextTokens of [...opts.contexts].sort((a, b) => a - b)) {
    const target = fitted.get(contextTokens) ?? contextTokens;
    const minimum = await count(PREFIX_SAMPLES[0]! + 'x');
    if (target < minimum) {
      throw new Error(`context ${target} is shorter than the prompt's fixed part (${minimum} tokens)`);
    }
    const prompt = await fitBody(target, (body) => count(PREFIX_SAMPLES[0]! + body), textForWords, 25);
    prompts.push(target === contextTokens ? prompt : { ...prompt, contextTokens, promptTokens: target });
  }
  const followUpPrompts = followUps.length > 0 ? await prepareFollowUps(followUps, followUpCount) : [];
  // ChatML puts "<|im_start|>user\n" (3 tokens) before the message; a server's template is not known here.
  const leading = choice === 'qwen3' ? (promptForm(opts.api) === 'chat' ? 3 : 0) : null;
  const vocabulary = opts.blockVocabulary ? await blockVocabulary(count, leading) : null;
  return {
    schemaVersion: PROMPT_SET_SCHEMA_VERSION,
    model: opts.model,
    api: opts.api,
    tokenizer: tokenizerName,
    exact: [...prompts, ...followUpPrompts].every((p) => p.measuredTokens === preparedLength(p)),
    prompts,
    ...(followUpPrompts.length > 0 ? { followUps: followUpPrompts } : {}),
    ...(vocabulary ? { blockVocabulary: vocabulary } : {}),
  };
}

