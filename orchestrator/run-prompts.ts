// A bench run's prompt sets: exact lengths for every context its plans use, fitted to the server's window, and the
// plans pointed at them. Runs in Node.

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  planPromptForm, promptForm, takesPreparedPrompt, usesBlockPrompts, type ApiStyle, type Plan,
} from '../lib/plan';
import type { PromptSet } from '../lib/prompt-set';
import { preparePrompts, type TokenizerChoice } from '../tokenizer/prepare-prompts';
import { promptLengthsForWindow, readContextWindow } from './context-window';

/** What the prompt sets are prepared with: the server, the run's API, tokenizer and key, and where they go. */
export interface PromptSetting {
  readonly baseUrl: string;
  readonly model: string;
  readonly api: ApiStyle;
  readonly tokenizer: TokenizerChoice;
  readonly apiKey: string | null;
  /** The server's context window when the bench started the server and knows it; else it is asked. */
  readonly knownContextWindow: number | null;
  readonly runDir: string;
  readonly log: (line: string) => void;
}

export interface RunPrompts {
  /** The plans, each pointed at its prompt set (prompts.file). */
  readonly plans: Plan[];
  /** The run's main prompt set (the API's form), else the raw one: what run.json describes. */
  readonly prompts: PromptSet;
  readonly contextWindow: number | null;
}

/**
 * Prompts of exact lengths for every context the plans use, written to prompts.json; a context whose cells would
 * overflow the server's window gets the longest prompt that fits (context-window.ts). The embed script's inputs are
 * raw text whatever the API (lib/plan.ts planPromptForm): when the run's API counts prompts in the chat template,
 * they get a set of their own, prompts-raw.json.
 */
export async function prepareRunPrompts(plans: readonly Plan[], setting: PromptSetting): Promise<RunPrompts> {
  const contextWindow = setting.knownContextWindow ??
    await readContextWindow(setting.baseUrl, setting.model, setting.apiKey);
  const form = promptForm(setting.api);
  const own = plans.filter((plan) => planPromptForm(plan) === form);
  const raw = plans.filter((plan) => planPromptForm(plan) !== form);
  const main = own.length > 0
    ? await preparePromptFile(own, setting.api, contextWindow, 'prompts.json', setting)
    : null;
  const rawSet = raw.length > 0
    ? await preparePromptFile(raw, 'completions', contextWindow, 'prompts-raw.json', setting)
    : null;
  const fileOf = (plan: Plan): string => (planPromptForm(plan) === form ? main : rawSet)!.file;
  return {
    plans: plans.map((plan) => ({ ...plan, prompts: { ...plan.prompts, file: fileOf(plan) } })),
    prompts: (main ?? rawSet)!.prompts,
    contextWindow,
  };
}

/** One prompt set for `plans`, counted for `api`, written to runDir/name. */
async function preparePromptFile(
  plans: readonly Plan[], api: ApiStyle, contextWindow: number | null, name: string, setting: PromptSetting,
): Promise<{ prompts: PromptSet; file: string }> {
  const { log } = setting;
  // A trace or agentic cell builds its prompts from one-token words (lib/block-prompt.ts): it needs none prepared.
  // Prefix groups build theirs from the same words, to the length of their context's prompt.
  const cells = plans.flatMap((plan) => plan.cells).filter(takesPreparedPrompt);
  const blockVocabulary = plans.some(usesBlockPrompts);
  const contexts = [...new Set(cells.map((cell) => cell.contextTokens))].sort((a, b) => a - b);
  // A conversation's later turns add follow-up messages of the plan's growth lengths (the sessions script).
  const growth = plans.flatMap((plan) => Object.values(plan.sessions?.models ?? {}).map((m) => m.growthTokens));
  const followUps = [...new Set(growth)].sort((a, b) => a - b);
  const fittedContexts = contextWindow !== null ? promptLengthsForWindow(cells, contextWindow) : [];
  for (const f of fittedContexts) {
    log(
      `context ${f.contextTokens}: prompts of ${f.promptTokens} tokens, to fit the server's ` +
      `${contextWindow}-token window with the cells' output`,
    );
  }
  const fitted = new Map(fittedContexts.map((f) => [f.contextTokens, f.promptTokens]));
  log(contexts.length > 0
    ? `preparing ${name} for ${contexts.length} context lengths (${contexts.join(', ')} tokens)`
    : `preparing ${name}: one-token words for prompts built in k6`);
  const { model, tokenizer, baseUrl, apiKey } = setting;
  const prompts = await preparePrompts({
    model, api, contexts, fitted, followUps, tokenizer, baseUrl, apiKey, blockVocabulary,
  });
  const file = path.join(setting.runDir, name);
  writeFileSync(file, JSON.stringify(prompts));
  log(`prompts: ${prompts.tokenizer}${prompts.exact ? ' (exact lengths)' : ' (approximate lengths)'}`);
  return { prompts, file };
}
