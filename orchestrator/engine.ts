// Which engine runs the bundles (k6 when installed, else the local runner) and the command line for it. Runs in Node.

import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface Engine {
  readonly kind: 'k6' | 'runner';
  /** Program and leading arguments; `run ...` follows. */
  readonly command: readonly string[];
  readonly version: string;
}

/** Finds k6: K6_BIN, else `k6` on PATH; null when neither answers `k6 version`. */
export function findK6(env: NodeJS.ProcessEnv = process.env): Engine | null {
  const candidates = env.K6_BIN ? [env.K6_BIN] : ['k6'];
  for (const bin of candidates) {
    const probe = spawnSync(bin, ['version'], { encoding: 'utf8', timeout: 10_000 });
    if (probe.status === 0) return { kind: 'k6', command: [bin], version: probe.stdout.trim().split('\n')[0] ?? 'k6' };
    if (env.K6_BIN) throw new Error(`K6_BIN="${env.K6_BIN}" does not run (\`${env.K6_BIN} version\` failed); unset it to use the local runner`);
  }
  return null;
}

/** The local runner: the same bundles on Node. */
export function localRunner(): Engine {
  let version = 'k6-llm-capacity local runner';
  try {
    const pkg = spawnSync(process.execPath, ['-p', `require(${JSON.stringify(path.join(root, 'package.json'))}).version`], { encoding: 'utf8' });
    if (pkg.status === 0) version += ` ${pkg.stdout.trim()} (Node ${process.version})`;
  } catch {
    // Version text only.
  }
  return { kind: 'runner', command: [process.execPath, '--import', 'tsx', path.join(root, 'runner', 'cli.ts')], version };
}

export function chooseEngine(preference: 'auto' | 'k6' | 'runner', env: NodeJS.ProcessEnv = process.env): Engine {
  if (preference === 'runner') return localRunner();
  const k6 = findK6(env);
  if (k6) return k6;
  if (preference === 'k6') throw new Error('k6 is not installed (not on PATH and K6_BIN unset); see the README for an xk6 build with k6/x/sse');
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
