// `npm run prepare-prompts`: writes a prompt set of exact token lengths for the k6 scripts (PROMPTS=...). Runs in Node.

import { Command, Option } from 'commander';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  API_STYLES, SCRIPT_NAMES, resolvePlan, takesPreparedPrompt, usesBlockPrompts, type ApiStyle, type ScriptName,
} from '../lib/plan';
import { applyEnvToPlan } from '../lib/env';
import { preparePrompts, type TokenizerChoice } from '../tokenizer/prepare-prompts';
import { EXIT } from '../lib/exit-codes';
import { promptLengthsForWindow, readContextWindow } from '../orchestrator/context-window';
import { parseTokenList, runMain, UserError } from './cli';

/** One token length ("262144" or "256k"). */
function parseTokens(text: string, flag: string): number {
  const list = parseTokenList(text, flag);
  if (list.length !== 1) throw new UserError(`${flag} takes one length, not "${text}"`, EXIT.usage);
  return list[0]!;
}

/**
 * Contexts a plan file needs over the given scripts, the follow-up lengths of its conversations (sessions), its
 * cells' context and output lengths (to fit a server's window), and whether it builds prompts of one-token words.
 */
export function lengthsOfPlan(planFile: string | undefined, scripts: readonly ScriptName[]): {
  contexts: number[]; followUps: number[]; cells: { contextTokens: number; outputTokens: number }[];
  blockVocabulary: boolean;
} {
  let input: unknown = {};
  if (planFile) {
    try {
      input = JSON.parse(readFileSync(planFile, 'utf8'));
    } catch (e) {
      throw new UserError(`--plan ${planFile}: ${(e as Error).message}`);
    }
  }
  const contexts = new Set<number>();
  const followUps = new Set<number>();
  const cells: { contextTokens: number; outputTokens: number }[] = [];
  let blockVocabulary = false;
  for (const script of scripts) {
    const plan = resolvePlan(applyEnvToPlan(input as object, {}), script, (file) => readFileSync(file, 'utf8'));
    blockVocabulary ||= usesBlockPrompts(plan);
    // A trace or agentic cell's prompts are built from the block vocabulary, not prepared by context.
    const prepared = plan.cells.filter(takesPreparedPrompt);
    for (const c of prepared) contexts.add(c.contextTokens);
    cells.push(...prepared.map(({ contextTokens, outputTokens }) => ({ contextTokens, outputTokens })));
    for (const m of Object.values(plan.sessions?.models ?? {})) followUps.add(m.growthTokens);
  }
  const sorted = (x: Set<number>) => [...x].sort((a, b) => a - b);
  return { contexts: sorted(contexts), followUps: sorted(followUps), cells, blockVocabulary };
}

runMain('prepare-prompts', async () => {
  const program = new Command('prepare-prompts')
    .description(
      'Build prompts of exact token lengths (one per context) for the k6 scripts; pass the file as PROMPTS=...',
    )
    .requiredOption('--out <file>', 'where to write the prompt set (JSON)')
    .option('--contexts <list>', 'context lengths, e.g. 1k,8k,32k (default: those of --plan)')
    .option('--follow-ups <list>',
      "follow-up message lengths of conversations, e.g. 64,256 (default: --plan's sessions)")
    .option('--plan <file>', 'a plan JSON file whose cells give the contexts')
    .option('--scripts <list>', 'entry scripts of the plan to cover (trace: the block vocabulary its replay needs)',
      'sweep,capacity')
    .option('--model <name>', 'model name (selects the tokenizer; sent to /tokenize)',
      'Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8')
    .addOption(new Option('--api <style>', 'API style').choices([...API_STYLES]).default('chat'))
    .addOption(new Option('--tokenizer <kind>', 'how to count tokens')
      .choices(['auto', 'qwen3', 'server', 'approximate']).default('auto'))
    .option('--url <baseUrl>', 'server base URL (/v1) whose /tokenize counts tokens')
    .option('--window <tokens>',
      "the server's context window: longer prompts are fitted to it (default: --url's max_model_len)")
    .option('--output-tokens <n>', 'output tokens asked with --contexts, to fit the window', '1024')
    .exitOverride()
    .configureOutput({ writeErr: () => {} });
  program.parse();
  const o = program.opts<{
    out: string; contexts?: string; followUps?: string; plan?: string; scripts: string; model: string; api: ApiStyle;
    tokenizer: TokenizerChoice; url?: string; window?: string; outputTokens: string;
  }>();
  const scripts = o.scripts.split(',').map((s) => s.trim()) as ScriptName[];
  for (const s of scripts) {
    if (!SCRIPT_NAMES.includes(s)) throw new UserError(`--scripts: "${s}" is not one of ${SCRIPT_NAMES.join(', ')}`);
  }
  const ofPlan = o.contexts && o.followUps && !o.plan ? null : lengthsOfPlan(o.plan, scripts);
  const contexts = o.contexts ? parseTokenList(o.contexts, '--contexts') : ofPlan!.contexts;
  const followUps = o.followUps ? parseTokenList(o.followUps, '--follow-ups') : ofPlan!.followUps;
  const apiKey = process.env.API_KEY ?? null;
  const outputTokens = parseTokens(o.outputTokens, '--output-tokens');
  const cells = o.contexts ? contexts.map((contextTokens) => ({ contextTokens, outputTokens })) : ofPlan!.cells;
  const window = o.window
    ? parseTokens(o.window, '--window')
    : o.url ? await readContextWindow(o.url, o.model, apiKey) : null;
  const fitted = window !== null ? promptLengthsForWindow(cells, window) : [];
  for (const f of fitted) {
    process.stderr.write(`prepare-prompts: context ${f.contextTokens} fitted to ${f.promptTokens} tokens\n`);
  }
  const set = await preparePrompts({
    model: o.model, api: o.api, contexts, followUps, tokenizer: o.tokenizer, baseUrl: o.url, apiKey,
    fitted: new Map(fitted.map((f) => [f.contextTokens, f.promptTokens])), blockVocabulary: ofPlan?.blockVocabulary,
  });
  mkdirSync(path.dirname(path.resolve(o.out)), { recursive: true });
  writeFileSync(o.out, JSON.stringify(set));
  process.stderr.write(
    `prepare-prompts: ${set.prompts.length} prompts${contexts.length > 0 ? ` (${contexts.join(', ')} tokens)` : ''}` +
    `${followUps.length > 0 ? ` and ${followUps.length} follow-ups (${followUps.join(', ')} tokens)` : ''}` +
    `${set.blockVocabulary ? `, ${set.blockVocabulary.words.length} one-token words for block prompts` : ''} with ` +
    `${set.tokenizer}${set.exact ? ', exact' : ', NOT exact'} -> ${o.out}\n`,
  );
});
