// The prompts of a k6 process: the prepared set, shared by its VUs, and each request's prompt. Runs in k6 (bundled).

import { SharedArray } from 'k6/data';
import {
  planPromptForm, PlanError, promptForm, takesPreparedPrompt, usesBlockPrompts, type Cell, type Plan,
} from '../plan';
import {
  approximatePromptSet, findFollowUp, findPrompt, preparedLength, promptText, readPromptSet, requestPrefix,
  type PreparedPrompt,
} from '../prompt-set';
import {
  approximateVocabulary, cellSalt, createBlockPrompter, groupPromptText, type BlockPrompter, type BlockVocabulary,
} from '../block-prompt';
import { FILLER_WORDS } from '../prompt-text';
import { readJsonFile } from './plan-load';

export interface PromptStore {
  readonly tokenizer: string;
  readonly exact: boolean;
  /** The prompt for a context length; SharedArray hands out a copy per access, so only the one needed is copied. */
  get(contextTokens: number): PreparedPrompt;
  /** The follow-up message of a length (the sessions script's later turns). */
  followUp(tokens: number): PreparedPrompt;
  /**
   * Builds prompts of one-token words (trace replay, prefix groups: lib/block-prompt.ts) from the prepared vocabulary,
   * approximate when the set has none; null when the plan builds none. Its pool is drawn in init (about 0.1 s), so an
   * open-loop cell's first request is not late by it.
   */
  readonly blockPrompt: BlockPrompter | null;
  /** The words block prompts are made of, and the template's tokens around them; null when the plan builds none. */
  readonly vocabulary: BlockVocabulary | null;
}


export function loadPrompts(plan: Plan): PromptStore {
  const contexts = Array.from(new Set(plan.cells.filter(takesPreparedPrompt).map((c) => c.contextTokens)));
  const followUps = Array.from(new Set(Object.values(plan.sessions?.models ?? {}).map((m) => m.growthTokens)));
  const file = plan.prompts.file;
  // Element 0 describes the set; elements 1.. are the prompts in `contexts` order, then the follow-ups in
  // `followUps` order. VUs share one copy of the (large) bodies, and a request copies only the element it reads.
  const shared = new SharedArray('prompts', () => {
    // Chat prompts are counted with the chat template around them: the other form would be off by its length.
    // An embed plan's inputs are raw text whatever its API (lib/plan.ts planPromptForm).
    const form = planPromptForm(plan);
    const api = form === promptForm(plan.target.api) ? plan.target.api : 'completions';
    const set = file
      ? readPromptSet(readJsonFile(file, 'PROMPTS'), file)
      : approximatePromptSet(plan.target.model, api, contexts, followUps);
    if (promptForm(set.api) !== form)
      throw new PlanError(
        `PROMPTS "${file}" were prepared for the ${set.api} API but the plan uses ${api}; run npm run ` +
        `prepare-prompts -- --api ${api}`,
      );
    const chat = form === 'chat';
    const vocabulary = set.blockVocabulary ?? approximateVocabulary(FILLER_WORDS, chat);
    // Without a prepared vocabulary block prompts' lengths are approximate: say so as for any approximate prompt.
    const exact = set.exact && (!usesBlockPrompts(plan) || set.blockVocabulary !== undefined);
    const info = { tokenizer: set.tokenizer, exact, vocabulary };
    const found = contexts.map((c) => findPrompt(set, c));
    const groups = plan.prompts.prefixGroups;
    // A prompt fitted to the server's window may have left no room for a suffix behind the group's prefix.
    const short = groups ? found.find((p) => preparedLength(p) <= groups.prefixTokens) : undefined;
    if (short)
      throw new PlanError(
        `plan field "prompts.prefixGroups.prefixTokens" ${groups!.prefixTokens} leaves no suffix in the ` +
        `${preparedLength(short)}-token prompts of context ${short.contextTokens}, fitted to the server's window`,
      );
    return [info, ...found, ...followUps.map((f) => findFollowUp(set, f))];
  });
  const info = shared[0] as { tokenizer: string; exact: boolean; vocabulary: BlockVocabulary };
  return {
    tokenizer: info.tokenizer,
    exact: info.exact,
    blockPrompt: usesBlockPrompts(plan) ? createBlockPrompter(info.vocabulary) : null,
    vocabulary: usesBlockPrompts(plan) ? info.vocabulary : null,
    get(contextTokens: number): PreparedPrompt {
      return shared[contexts.indexOf(contextTokens) + 1] as PreparedPrompt;
    },
    followUp(tokens: number): PreparedPrompt {
      return shared[contexts.length + followUps.indexOf(tokens) + 1] as PreparedPrompt;
    },
  };
}


/** Who sends a request: the run's nonce, the user and its iteration (its prefix line), and its number in the cell. */
export interface RequestIds {
  readonly runNonce: number;
  readonly vu: number;
  readonly iteration: number;
  /** Unique within the cell, in the order its requests are sent: a prefix group's request n goes to group n mod N. */
  readonly n: number;
}


/**
 * A request's prompt, of the prepared length: the prepared body behind its prefix line, or with prefix groups its
 * group's prefix and a suffix of its own (lib/block-prompt.ts groupPromptText).
 */
export function requestPrompt(
  plan: Plan, prompts: PromptStore, cell: Pick<Cell, 'id' | 'contextTokens'>, ids: RequestIds,
): string {
  const prompt = prompts.get(cell.contextTokens);
  const groups = plan.prompts.prefixGroups;
  if (groups === null) return promptText(prompt, requestPrefix(plan.prompts.mode, ids.runNonce, ids.vu, ids.iteration));
  return groupPromptText(groups, ids.n, preparedLength(prompt), cellSalt(ids.runNonce, cell.id), prompts.blockPrompt!);
}
