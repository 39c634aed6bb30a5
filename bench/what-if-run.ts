// The what-if benchmark's steps as a user runs them: `npm run bench` and `npm run fit` in their own processes, each
// timed, their output kept in a log beside the run. Runs in Node.

import { spawn } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { findProfile, type Profile } from '../sim/profiles';

export const REPO = resolve(import.meta.dirname, '..');

export interface Timed {
  readonly seconds: number;
  /** The last lines the command wrote to stdout: its tables. */
  readonly stdout: string;
}

/**
 * Runs one of the repository's scripts under tsx with these arguments; rejects with the last line of its stderr.
 * The log holds both streams, for a run that went wrong.
 */
export function runScript(script: string, args: readonly string[], log: string): Promise<Timed> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', join(REPO, script), ...args], {
    cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'],
  });
  const file = createWriteStream(log, { flags: 'a' });
  file.write(`$ ${script} ${args.join(' ')}\n`);
  let stdout = '';
  let lastErr = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    file.write(d);
  });
  child.stderr.on('data', (d: Buffer) => {
    const text = d.toString();
    lastErr = text.trim().split('\n').at(-1) ?? lastErr;
    file.write(d);
  });
  return new Promise((ok, fail) => {
    child.on('error', fail);
    child.on('close', (code) => {
      file.end();
      const seconds = (performance.now() - started) / 1000;
      if (code === 0) ok({ seconds, stdout });
      else fail(new Error(`${script} exited ${code}: ${lastErr} (log: ${log})`));
    });
  });
}

/** The built-in profile of a letter or name; a typo is an error naming the choices. */
export function builtInProfile(name: string): Profile {
  const p = findProfile(name);
  if (!p) throw new Error(`no simulator profile ${name} (A-E)`);
  return p;
}

/**
 * `npm run fit`'s flags for a model with this built-in profile's architecture and scheduler: what a user states from
 * their model's config.json and their server's start-up log. Null base: a dense model (--dense), whose limits come
 * from flags.
 */
export function fitFlags(base: Profile | null, limits: Profile['scheduler'] | null): string[] {
  const arch = base === null ? ['--dense'] : ['--base', base.letter];
  const sched = limits ?? base?.scheduler ?? null;
  if (sched === null) return arch;
  return [
    ...arch, '--kv-capacity-tokens', String(sched.kvCapacityTokens), '--max-num-seqs', String(sched.maxNumSeqs),
    '--policy', sched.policy,
  ];
}

/** `npm run bench` measuring a sweep plan against a target; skipped when --from left the run in place. */
export async function measureSweep(
  planArg: string, target: readonly string[], dir: string, runId: string, reuse: boolean,
): Promise<number | null> {
  if (reuse && existsSync(join(dir, runId, 'run.json'))) return null;
  const args = ['--plan', planArg, '--scripts', 'sweep', ...target, '--results', dir, '--run-id', runId];
  return (await runScript('scripts/bench.ts', args, join(dir, `${runId}.log`))).seconds;
}

/** `npm run fit` on a measured run, writing the fitted profile; its seconds. */
export async function fitRun(
  dir: string, runId: string, flags: readonly string[], out: string,
): Promise<number> {
  const args = [join(dir, runId), ...flags, '--out', out];
  return (await runScript('scripts/fit.ts', args, join(dir, `${runId}.fit.log`))).seconds;
}
