// CLI: npm run examples -- [--check] [--import <run-folder> --name <name>] [--rerun <name>] [names...]
// Keeps the committed example reports (results/examples/) in step with the report code. Runs in Node.
//
// Without flags it remakes every example's report from its committed samples; --check writes nothing and exits 3
// when a committed report differs from what the current code renders; --import copies a finished run in as an
// example; --rerun runs an example's recorded bench command again (minutes to an hour) and imports the new run.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { EXIT } from '../lib/exit-codes';
import { parseCommandLine, runMain, UserError } from './cli';
import { checkExample, EXAMPLES_DIR, exampleNames, importRun, remakeExample } from './example-reports';

interface Options {
  readonly check?: boolean;
  readonly import?: string;
  readonly name?: string;
  readonly rerun?: string;
}

/** The bench flags an example was made with (run.json's command), without where it wrote. */
function recordedBenchArgs(name: string): string[] {
  const run = JSON.parse(readFileSync(join(EXAMPLES_DIR, name, 'run.json'), 'utf8')) as { command?: string[] };
  const args = (run.command ?? []).slice((run.command ?? []).indexOf('--') + 1);
  const kept: string[] = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--results' || args[i] === '--run-id') i++;
    else kept.push(args[i]!);
  }
  return kept;
}

async function rerun(name: string): Promise<void> {
  if (!exampleNames().includes(name)) throw new UserError(`no example "${name}" in ${EXAMPLES_DIR}`);
  const results = mkdtempSync(join(tmpdir(), 'k6llm-rerun-'));
  const args = ['run', 'bench', '--', ...recordedBenchArgs(name), '--results', results, '--run-id', name];
  process.stderr.write(`examples: npm ${args.join(' ')}\n`);
  const done = spawnSync('npm', args, { stdio: 'inherit' });
  if (done.status !== 0) throw new UserError(`the bench for ${name} exited ${done.status ?? done.signal}`);
  await importRun(join(results, name), name);
  rmSync(results, { recursive: true, force: true });
}

async function main(): Promise<number> {
  const program = new Command()
    .name('examples')
    .description('Remake, check, import or rerun the committed example reports (results/examples/)')
    .argument('[names...]', 'examples to remake or check (default: every one)')
    .option('--check', 'write nothing; exit 3 when a committed report differs from what the report code renders')
    .option('--import <run>', 'copy a finished run folder in as an example (with --name), then remake it')
    .option('--name <name>', 'the example name for --import')
    .option('--rerun <name>', "run the example's recorded bench command again and import the new run")
    .exitOverride();
  if (!parseCommandLine(program)) return EXIT.ok;
  const o = program.opts<Options>();
  let names = program.args.length > 0 ? program.args : exampleNames();
  if (o.import) {
    if (!o.name) throw new UserError('--import needs --name <name>');
    await importRun(o.import, o.name);
    names = [o.name];
  } else if (o.rerun) {
    await rerun(o.rerun);
    names = [o.rerun];
  }
  for (const name of names) if (!exampleNames().includes(name)) throw new UserError(`no example "${name}"`);
  if (o.check) {
    // One at a time: each render holds a whole run's samples in memory (sim-report-d's is 200 MB of CSV).
    const problems: string[] = [];
    for (const name of names) problems.push(...(await checkExample(name)));
    for (const line of problems) process.stderr.write(`examples: ${line}\n`);
    process.stderr.write(`examples: ${names.length} checked, ${problems.length} file(s) out of date\n`);
    return problems.length === 0 ? EXIT.ok : EXIT.badInput;
  }
  for (const name of names) process.stderr.write(`examples: ${name}: ${await remakeExample(name)} files written\n`);
  return EXIT.ok;
}

runMain('examples', main);
