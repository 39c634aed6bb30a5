// Which k6 runs the bundles, and the command line for it. Runs in Node.
//
// k6 is the only engine, and it must have k6/x/llm built in. Order: K6_BIN when set; else the
// project's k6 (built from xk6-llm/ on first use when Go is installed); else a k6 on PATH that has
// k6/x/llm; else the bench stops with one line saying how to get one.

import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { UserError } from '../lib/exit-codes';
import { builtProjectK6, ensureProjectK6, goVersion, type BuildProgress } from './k6-build';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface Engine {
  /** Program and leading arguments; `run ...` follows. */
  readonly command: readonly string[];
  /** k6's own `k6 version` line. */
  readonly version: string;
  /** How it was found, for the log: "project build", "K6_BIN", "PATH". */
  readonly source: string;
}

/** What to do when no k6 with k6/x/llm can be had. */
export const HOW_TO_GET_K6 =
  'install Go 1.25 or newer (npm run build:k6 then builds it), set K6_BIN to a k6 built with k6/x/llm, or use the ' +
  'Docker image (deploy/docker/Dockerfile)';

/** The bundle of an entry script. */
export function bundlePath(script: string, distDir = path.join(root, 'dist')): string {
  return path.join(distDir, `${script}.js`);
}

/** `k6 version` of a binary: its first line and whether k6/x/llm is built in; null when it does not run. */
export function probeK6(bin: string): { version: string; hasLlm: boolean } | null {
  const probe = spawnSync(bin, ['version'], { encoding: 'utf8', timeout: 20_000 });
  if (probe.status !== 0 || probe.error) return null;
  const text = probe.stdout.trim();
  return { version: text.split('\n')[0] ?? 'k6', hasLlm: /k6\/x\/llm/.test(text) };
}

function k6Engine(bin: string, source: string): Engine {
  const probe = probeK6(bin);
  if (!probe) throw new UserError(`${source} k6 "${bin}" does not run (\`${bin} version\` failed)`);
  if (!probe.hasLlm) throw new UserError(`${source} k6 "${bin}" lacks the k6/x/llm extension: ${HOW_TO_GET_K6}`);
  return { command: [bin], version: probe.version, source };
}

/** The project's k6, built now when it is missing or stale and Go is there; null without Go and without a build. */
export async function projectK6(log: BuildProgress): Promise<Engine | null> {
  const go = goVersion();
  const existing = builtProjectK6(go);
  if (existing) return k6Engine(existing, 'project build');
  if (go === null) return null;
  return k6Engine(await ensureProjectK6(log), 'project build');
}

function k6OnPath(): Engine | null {
  const probe = probeK6('k6');
  return probe?.hasLlm ? { command: ['k6'], version: probe.version, source: 'PATH' } : null;
}

export async function chooseEngine(log: BuildProgress, env: NodeJS.ProcessEnv = process.env): Promise<Engine> {
  if (env.K6_BIN) return k6Engine(env.K6_BIN, 'K6_BIN');
  const found = (await projectK6(log)) ?? k6OnPath();
  if (found) return found;
  throw new UserError(`no k6 with k6/x/llm: ${HOW_TO_GET_K6}`);
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
