// The prepared prompt set (prompts.json): prompt bodies of exact token lengths per context. Runs in k6 and Node.
// `npm run prepare-prompts` writes it; the k6 scripts read it in init.

import type { BlockVocabulary } from './block-prompt';
import { PlanError, type ApiStyle } from './plan';
import { approximateWordsForTokens, fillerText, requestPrefix } from './prompt-text';

export const PROMPT_SET_SCHEMA_VERSION = 1;

export interface PreparedPrompt {
  /**
   * The context length of the cells this prompt is for: prompt tokens as the server counts them (chat template
   * included).
   */
  readonly contextTokens: number;
  /**
   * The prompt's length when it was shortened to fit the server's context window (the window less the cells' output
   * tokens: a 256K cell asking 1,024 tokens of a 262,144-token window sends 261,120); absent when contextTokens.
   */
  readonly promptTokens?: number;
  /** The body after the per-request prefix line. */
  readonly body: string;
  /** Prompt tokens counted for prefix + body at preparation time; equals the prompt's length when exact. */
  readonly measuredTokens: number;
}

/** The length a prepared prompt was built to: its context, or less when fitted to the server's window. */
export function preparedLength(prompt: PreparedPrompt): number {
  return prompt.promptTokens ?? prompt.contextTokens;
}

export interface PromptSet {
  readonly schemaVersion: typeof PROMPT_SET_SCHEMA_VERSION;
  readonly model: string;
  readonly api: ApiStyle;
  /** How tokens were counted: a tokenizer package, the server's /tokenize, or "approximate". */
  readonly tokenizer: string;
  readonly exact: boolean;
  readonly prompts: readonly PreparedPrompt[];
  /**
   * Follow-up messages for conversations (the sessions script): `contextTokens` is what one adds to a turn's prompt
   * besides the previous answer (lib/chat-template.ts followUpText), `body` the message. Absent in older sets.
   */
  readonly followUps?: readonly PreparedPrompt[];
  /** One-token words and the fixed tokens around them, for trace replay's prompts (lib/block-prompt.ts). */
  readonly blockVocabulary?: BlockVocabulary;
}

/** Reads prompts.json content, checking its shape once; throws with a message naming the problem. */
export function readPromptSet(raw: unknown, source: string): PromptSet {
  const o = raw as Partial<PromptSet> | null;
  if (!o || o.schemaVersion !== PROMPT_SET_SCHEMA_VERSION || !Array.isArray(o.prompts)) {
    throw new PlanError(
      `${source}: not a prompt set of schema version ${PROMPT_SET_SCHEMA_VERSION}; run npm run prepare-prompts`,
    );
  }
  for (const p of [...o.prompts, ...(Array.isArray(o.followUps) ? o.followUps : [])]) {
    if (!p || typeof p.contextTokens !== 'number' || typeof p.body !== 'string')
      throw new PlanError(`${source}: a prompt lacks contextTokens or body`);
  }
  return o as PromptSet;
}

/** The prepared follow-up message of `tokens` tokens; throws when the set has none of that length. */
export function findFollowUp(set: PromptSet, tokens: number): PreparedPrompt {
  const p = (set.followUps ?? []).find((x) => x.contextTokens === tokens);
  if (!p) {
    const prepared = (set.followUps ?? []).map((x) => x.contextTokens).join(', ') || 'none';
    throw new PlanError(
      `no prepared follow-up message of ${tokens} tokens (prepared: ${prepared}); ` +
      'run npm run prepare-prompts for this plan',
    );
  }
  return p;
}

/** The prepared body for a context length; throws when the set was prepared for other lengths. */
export function findPrompt(set: PromptSet, contextTokens: number): PreparedPrompt {
  const p = set.prompts.find((x) => x.contextTokens === contextTokens);
  if (!p) {
    throw new PlanError(
      `no prepared prompt of ${contextTokens} tokens (prepared: ` +
      `${set.prompts.map((x) => x.contextTokens).join(', ')}); run npm run prepare-prompts for this plan`,
    );
  }
  return p;
}

/**
 * A prompt set built without a tokenizer: lengths are approximate and every record says so. `fitted` maps a context to
 * the shorter prompt length that fits the server's window (orchestrator/context-window.ts).
 */
export function approximatePromptSet(
  model: string, api: ApiStyle, contexts: readonly number[], followUps: readonly number[] = [],
  fitted: ReadonlyMap<number, number> = new Map(),
): PromptSet {
  return {
    schemaVersion: PROMPT_SET_SCHEMA_VERSION,
    model,
    api,
    tokenizer: 'approximate (about one token per word; no tokenizer)',
    exact: false,
    prompts: contexts.map((contextTokens, i) => {
      const promptTokens = fitted.get(contextTokens);
      const length = promptTokens ?? contextTokens;
      const body = fillerText(approximateWordsForTokens(length) - 20, 1000 + i);
      return { contextTokens, ...(promptTokens !== undefined ? { promptTokens } : {}), body, measuredTokens: length };
    }),
    // About ten tokens of each follow-up are the chat template around it.
    followUps: followUps.map((tokens, i) => ({
      contextTokens: tokens,
      body: fillerText(Math.max(1, approximateWordsForTokens(tokens) - 10), 2000 + i),
      measuredTokens: tokens,
    })),
  };
}

/** The full prompt text of one request. */
export function promptText(prompt: PreparedPrompt, prefix: string): string {
  return prefix + prompt.body;
}

export { requestPrefix };
