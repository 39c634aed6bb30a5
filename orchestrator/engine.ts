// Which engine runs the bundles, which bundle flavour it takes, and the command line for it. Runs in Node.
//
// Order for --engine auto: K6_BIN when set; else the project's k6 (k6 + k6/x/llm, built from xk6-llm/
// on first use when Go is installed); else a k6 on PATH; else the local runner. A k6 that lists
// k6/x/llm among its extensions runs dist/<script>.js; any other k6 runs dist/sse/<script>.js, whose
// k6/x/sse it must have built in or resolve automatically.

import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { UserError } from '../lib/exit-codes';
import { builtProjectK6, ensureProjectK6, goVersion, type BuildProgress } from './k6-build';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export type EngineChoice = 'auto' | 'k6' | 'runner';
/** The bundle flavour: dist/<script>.js streams with k6/x/llm, dist/sse/<script>.js with k6/x/sse. */
export type BundleFlavour = 'llm' | 'sse';

export interface Engine {
  readonly kind: 'k6' | 'runner';
  /** Program and leading arguments; `run ...` follows. */
  readonly command: readonly string[];
  /** One line: k6's own `k6 version` line, or the runner's name, version and Node version. */
  readonly version: string;
  readonly flavour: BundleFlavour;
  /** How it was found, for the log: "project build", "K6_BIN", "PATH", "local runner". */
  readonly source: string;
}

/** The bundle an engine runs for an entry script. */
export function bundlePath(engine: Pick<Engine, 'flavour'>, script: string, distDir = path.join(root, 'dist')): string {
  return engine.flavour === 'llm' ? path.join(distDir, `${script}.js`) : path.join(distDir, 'sse', `${script}.js`);
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
  return { kind: 'k6', command: [bin], version: probe.version, flavour: probe.hasLlm ? 'llm' : 'sse', source };
}

/** The local runner: the same bundles on Node (the k6/x/llm flavour). */
export function localRunner(): Engine {
  let version = 'k6-llm-capacity local runner';
  try {
    const pkg = spawnSync(process.execPath, ['-p', `require(${JSON.stringify(path.join(root, 'package.json'))}).version`], { encoding: 'utf8' });
    if (pkg.status === 0) version += ` ${pkg.stdout.trim()} (Node ${process.version})`;
  } catch {
    // Version text only.
  }
  return { kind: 'runner', command: [process.execPath, '--import', 'tsx', path.join(root, 'runner', 'cli.ts')], version, flavour: 'llm', source: 'local runner' };
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
  return probeK6('k6') ? k6Engine('k6', 'PATH') : null;
}

export async function chooseEngine(preference: EngineChoice, log: BuildProgress, env: NodeJS.ProcessEnv = process.env): Promise<Engine> {
  if (preference === 'runner') return localRunner();
  if (env.K6_BIN) return k6Engine(env.K6_BIN, 'K6_BIN');
  const found = (await projectK6(log)) ?? k6OnPath();
  if (found) return found;
  if (preference === 'k6') throw new UserError('no k6: Go is not installed to build the project\'s k6 (npm run build:k6), no k6 is on PATH and K6_BIN is unset; use --engine runner');
  return localRunner();
}

export interface PartInvocation {
  readonly bundle: string;
  readonly partDir: string;
  /** -e values; never the API key, which goes through the child's environment. */
  readonly env: Readonly<Record<string, string>>;
  readonly tags: Readonly<Record<string, string>>;
}

/** Arguments of `k6 run` (or the runner's equivalent) for one part. */
export function runArguments(engine: Engine, part: PartInvocation): string[] {
  const args = ['run', '--quiet'];
  for (const [k, v] of Object.entries(part.env)) args.push('-e', `${k}=${v}`);
  for (const [k, v] of Object.entries(part.tags)) args.push('--tag', `${k}=${v}`);
  args.push('--out', `csv=fileName=${path.join(part.partDir, 'samples.csv')},timeFormat=unix_milli`);
  args.push('--summary-export', path.join(part.partDir, 'summary-export.json'));
  if (engine.kind === 'runner') args.push('--health-out', path.join(part.partDir, 'runner-health.json'));
  args.push(part.bundle);
  return args;
}
