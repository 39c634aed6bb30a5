// Which k6 runs the bundles, and the command line for it. Runs in Node.
//
// k6 is the only engine, stock and unmodified (any k6 >= 1.0); the measuring agent beside it is ours
// (agent-process.ts). Order: K6_BIN when set; else a k6 on PATH; else the cached upstream build
// (k6-install.ts), built there on first use when Go is installed; else the bench stops with one line
// saying how to get one. A k6 older than 1.0 is refused, not skipped: the user chose it.

import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { UserError } from '../lib/exit-codes';
import {
  ensureUpstreamK6, findOnPath, HOW_TO_GET_K6, isSupportedK6, MIN_K6_MAJOR, probeK6, type BuildProgress,
} from './k6-install';


const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface Engine {
  /** Program and leading arguments; `run ...` follows. */
  readonly command: readonly string[];
  /** k6's own `k6 version` line. */
  readonly version: string;
  /** How it was found, for the log and run.json: "K6_BIN", "PATH", "cached upstream build". */
  readonly source: string;
}

/** The bundle of an entry script. */
export function bundlePath(script: string, distDir = path.join(root, 'dist')): string {
  return path.join(distDir, `${script}.js`);
}

/** The engine of a k6 binary after checking that it runs and is k6 >= 1.0; a one-line UserError otherwise. */
export function k6Engine(bin: string, source: string): Engine {
  const probe = probeK6(bin);
  const what = `${source} k6 "${bin}"`;
  if (!probe) throw new UserError(`${what} does not run (\`${bin} version\` failed)`);
  if (!probe.parsed) throw new UserError(`${what} does not name a k6 version (\`${bin} version\`: "${probe.version}")`);
  if (!isSupportedK6(probe.parsed))
    throw new UserError(`${what} is ${probe.parsed.tag}; k6 >= ${MIN_K6_MAJOR}.0 is needed: ${HOW_TO_GET_K6}`);
  return { command: [bin], version: probe.version, source };
}

export async function chooseEngine(log: BuildProgress, env: NodeJS.ProcessEnv = process.env): Promise<Engine> {
  if (env.K6_BIN) return k6Engine(env.K6_BIN, 'K6_BIN');
  const onPath = findOnPath('k6', env);
  if (onPath) return k6Engine(onPath, 'PATH');
  return k6Engine(await ensureUpstreamK6(log, env), 'cached upstream build');
}

export interface PartInvocation {
  readonly bundle: string;
  readonly partDir: string;
  /** -e values; never the API key, which goes through the child's environment. */
  readonly env: Readonly<Record<string, string>>;
  readonly tags: Readonly<Record<string, string>>;
}

/** Arguments of `k6 run` for one part. */
export function runArguments(part: PartInvocation): string[] {
  const args = ['run', '--quiet'];
  for (const [k, v] of Object.entries(part.env)) args.push('-e', `${k}=${v}`);
  for (const [k, v] of Object.entries(part.tags)) args.push('--tag', `${k}=${v}`);
  args.push('--out', `csv=fileName=${path.join(part.partDir, 'samples.csv')},timeFormat=unix_milli`);
  args.push('--summary-export', path.join(part.partDir, 'summary-export.json'));
  args.push(part.bundle);
  return args;
}
