// CLI: npm run fit -- results/<run> [--out profile.json] [--base NAME | --experts E --top-k K | --dense]
// [--kv-capacity-tokens N]
// [--max-num-seqs N] [--chunk-tokens N] [--policy mixed|prefill-first] [--resamples N] [--seed N]
// — fits a simulator profile to a measured sweep (npm run bench -- --plan fit) and writes it with its fit record.
// Runs in Node.
//
// Thin by design: flags into options, whatif/ does the work. Errors are one line on stderr, never a stack trace.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, Option } from 'commander';
import { EXIT } from '../lib/exit-codes';
import { findProfile, PROFILES, type Profile, type SchedulerConfig } from '../sim/profiles';
import { readFitInput } from '../whatif/fit-cells';
import { fitProfile } from '../whatif/fit';
import { architectureCandidates, fitChoosingArchitecture, statedArchitecture } from '../whatif/fit-architecture';
import { fitBaseHardware } from '../whatif/fit-parameters';
import { fittedProfileFile, type SchedulerSources } from '../whatif/fit-record';
import { renderFitSummary } from '../whatif/fit-summary';
import { numberArg, parseCommandLine, runMain, UserError } from './cli';

interface Flags {
  out?: string;
  base?: string;
  experts?: number;
  topK?: number;
  dense?: boolean;
  kvCapacityTokens?: number;
  maxNumSeqs?: number;
  chunkTokens?: number;
  policy?: SchedulerConfig['policy'];
  resamples: number;
  seed: number;
  name?: string;
}

const whole = (n: number): boolean => Number.isInteger(n) && n >= 1;

function program(): Command {
  const count = (flag: string) => numberArg(flag, whole, 'a whole number >= 1');
  return new Command()
    .name('fit')
    .description('Fit a simulator profile to a measured sweep (npm run bench -- --plan fit) and write it')
    .argument('<run>', 'the run folder (results/<run-id>) holding a sweep part')
    .option('--out <file>', 'where to write the profile (default: <run>/fitted-profile.json)')
    .option('--base <profile>', 'the architecture to keep: a built-in profile ' +
      `(${PROFILES.map((p) => p.letter).join(', ')} or its name); default a dense model`)
    .option('--experts <n>', 'experts of a mixture-of-experts model (its config.json num_experts)', count('--experts'))
    .option('--top-k <n>', 'experts per token (num_experts_per_tok)', count('--top-k'))
    .option('--dense', 'a dense model (no experts); without --base, --experts or --dense the fit tries each ' +
      'built-in architecture and keeps the one that misses the run least')
    .option('--kv-capacity-tokens <n>', "the server's KV cache size in tokens (vLLM logs it at start)",
      count('--kv-capacity-tokens'))
    .option('--max-num-seqs <n>', "the server's limit on sequences in a batch", count('--max-num-seqs'))
    .option('--chunk-tokens <n>', "the server's token budget per step (max_num_batched_tokens)",
      count('--chunk-tokens'))
    .addOption(new Option('--policy <p>', "the server's scheduling: vLLM's mixed, or SGLang's prefill-first")
      .choices(['mixed', 'prefill-first']))
    .option('--resamples <n>', 'refits on resampled requests, for the spread', count('--resamples'), 200)
    .option('--seed <n>', 'seed of the resampling', numberArg('--seed', (n) => Number.isInteger(n) && n >= 0,
      'a whole number >= 0'), 1)
    .option('--name <name>', "the profile's name (default fitted-<run-id>)")
    .exitOverride();
}

/** The base profile with the architecture and scheduler limits the flags state, and where each limit came from. */
function baseOf(flags: Flags): { base: Profile; baseName: string; sources: SchedulerSources; stated: boolean } {
  const found = flags.base === undefined ? PROFILES[0]! : findProfile(flags.base);
  if (!found) {
    throw new UserError(`--base: "${flags.base}" is not one of ${PROFILES.map((p) => p.name).join(', ')}`, EXIT.usage);
  }
  if ((flags.experts === undefined) !== (flags.topK === undefined)) {
    throw new UserError('--experts and --top-k go together', EXIT.usage);
  }
  if (flags.experts !== undefined && flags.topK! > flags.experts) {
    throw new UserError('--top-k must not exceed --experts', EXIT.usage);
  }
  if (flags.dense && (flags.base !== undefined || flags.experts !== undefined)) {
    throw new UserError('--dense states the architecture: leave out --base and --experts', EXIT.usage);
  }
  const dense = flags.base === undefined && flags.experts === undefined;
  const stated = flags.dense === true || !dense;
  const shape = flags.experts === undefined ? {} : { experts: flags.experts, topK: flags.topK! };
  const statedBy = (flag: string, v: number | string | undefined) => (v === undefined ? null : `stated with ${flag}`);
  const sources: SchedulerSources = {
    kvCapacityTokens: statedBy('--kv-capacity-tokens', flags.kvCapacityTokens),
    maxNumSeqs: statedBy('--max-num-seqs', flags.maxNumSeqs),
    chunkTokens: statedBy('--chunk-tokens', flags.chunkTokens),
    blockSize: null,
    policy: statedBy('--policy', flags.policy),
  };
  const scheduler: SchedulerConfig = {
    ...found.scheduler,
    ...(flags.kvCapacityTokens ? { kvCapacityTokens: flags.kvCapacityTokens } : {}),
    ...(flags.maxNumSeqs ? { maxNumSeqs: flags.maxNumSeqs } : {}),
    ...(flags.chunkTokens ? { chunkTokens: flags.chunkTokens } : {}),
    ...(flags.policy ? { policy: flags.policy } : {}),
  };
  const hardware = { ...fitBaseHardware(found.hardware, dense), ...shape };
  return { base: { ...found, hardware, scheduler }, baseName: found.name, sources, stated };
}

async function main(): Promise<void> {
  const cli = program();
  if (!parseCommandLine(cli)) return;
  const flags = cli.opts<Flags>();
  const folder = cli.args[0]!;
  const { base, baseName, sources, stated } = baseOf(flags);
  const input = await readFitInput(folder);
  process.stderr.write(`fit: ${input.cells.length} cells of ${folder}, ${flags.resamples} resamples...\n`);
  const options = { base, resamples: flags.resamples, seed: flags.seed };
  const { outcome, choice } = stated
    ? { outcome: fitProfile(input.cells, options), choice: statedArchitecture(base.hardware) }
    : fitChoosingArchitecture(input.cells, options, architectureCandidates(base),
      (l) => process.stderr.write(`${l}\n`));
  const runId = input.dir.split(/[\\/]/).pop()!;
  const file = fittedProfileFile(outcome, {
    input, baseName, name: flags.name ?? `fitted-${runId}`, schedulerSources: sources,
    fittedAt: new Date().toISOString(), architecture: choice,
  });
  const out = flags.out ?? join(input.dir, 'fitted-profile.json');
  writeFileSync(out, JSON.stringify(file, null, 2) + '\n');
  process.stdout.write(renderFitSummary(file) + `\nwrote ${out}\nnext: npm run bench -- --predict ${out}\n`);
}

runMain('fit', main);
