// Stock, unmodified upstream k6 for machines without one, and the checks every k6 passes. Runs in Node.
//
// The project ships no k6 of its own (k6 is AGPL; no go.mod of ours requires go.k6.io/k6): it runs any k6 >= 1.0,
// and only when there is none does it build upstream k6 with `go install go.k6.io/k6@<version>` into a per-user
// cache, outside the repository, so the build pulls in nothing of ours. Also the Go helpers agent-build.ts uses.

import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UserError } from '../lib/exit-codes';

/** The upstream k6 the project builds when a machine has none: the one place it is pinned. */
export const K6_VERSION = 'v1.8.1';
/** The oldest k6 major the scripts run on (k6 1.0 made the TypeScript support and APIs they use stable). */
export const MIN_K6_MAJOR = 1;

/** What to do when no usable k6 can be had. */
export const HOW_TO_GET_K6 =
  "install k6 (any k6 >= 1.0: Grafana's release, a package manager, the grafana/k6 image) " +
  'or Go 1.25+ so the project can build upstream k6';

export interface BuildProgress {
  (line: string): void;
}

/** A parsed `k6 version`: `k6 v1.8.1 (commit/..., go1.26.8, linux/amd64)`. */
export interface K6Version {
  /** "v1.8.1", "v1.9.0-rc.1". */
  readonly tag: string;
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
}

/** The k6 version named in `k6 version` output (its first `k6 vX.Y.Z` line), or null when there is none. */
export function parseK6Version(text: string): K6Version | null {
  for (const line of text.split('\n')) {
    const m = /^\s*k6 (v(\d+)\.(\d+)\.(\d+)(?:[-+][0-9A-Za-z.+-]*)?)(?:\s|$)/.exec(line);
    if (m) return { tag: m[1]!, major: Number(m[2]), minor: Number(m[3]), patch: Number(m[4]) };
  }
  return null;
}

export function isSupportedK6(v: K6Version): boolean {
  return v.major >= MIN_K6_MAJOR;
}

/** `k6 version` of a binary: its first line and the version in it; null when it does not run. */
export function probeK6(bin: string): { version: string; parsed: K6Version | null } | null {
  const probe = spawnSync(bin, ['version'], { encoding: 'utf8', timeout: 20_000 });
  if (probe.status !== 0 || probe.error) return null;
  const text = probe.stdout.trim();
  return { version: text.split('\n')[0] ?? 'k6', parsed: parseK6Version(text) };
}

/** The first executable `name` on env.PATH, as an absolute path (so the log and run.json say which one). */
export function findOnPath(name: string, env: NodeJS.ProcessEnv = process.env): string | null {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    // An empty entry means the working directory: never pick a k6 up from wherever the bench was started.
    if (!dir || !path.isAbsolute(dir)) continue;
    const candidate = path.join(dir, name);
    try {
      if (!statSync(candidate).isFile()) continue;
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not there, or not executable: keep looking.
    }
  }
  return null;
}

/** The per-user cache, shared with scripts/ensure-llama-*.sh: K6_LLM_CACHE, else $XDG_CACHE_HOME or ~/.cache. */
export function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (env.K6_LLM_CACHE) return path.resolve(env.K6_LLM_CACHE);
  // XDG says a relative XDG_CACHE_HOME is invalid and to be ignored.
  const xdg = env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : null;
  return path.join(xdg ?? path.join(env.HOME || os.homedir(), '.cache'), 'k6-llm-capacity');
}

/** Where the upstream build of `version` lives: <cache>/k6-<version>/k6. */
export function upstreamK6Path(env: NodeJS.ProcessEnv = process.env, version = K6_VERSION): string {
  return path.join(cacheRoot(env), `k6-${version}`, 'k6');
}

/** The cached upstream build when it is there and runs as a k6 >= 1.0; null otherwise. */
export function cachedUpstreamK6(env: NodeJS.ProcessEnv = process.env): string | null {
  const bin = upstreamK6Path(env);
  if (!existsSync(bin)) return null;
  const parsed = probeK6(bin)?.parsed;
  return parsed && isSupportedK6(parsed) ? bin : null;
}

/** The Go toolchain's version line as run in `cwd` (a go.mod there may select another toolchain), or null: no Go. */
export function goVersion(env: NodeJS.ProcessEnv = process.env, cwd?: string): string | null {
  const probe = spawnSync('go', ['version'], { encoding: 'utf8', timeout: 60_000, env, cwd });
  return probe.status === 0 && !probe.error ? probe.stdout.trim() : null;
}

export interface GoRun {
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  /** Prefix of the progress lines, e.g. "building k6 v1.8.1". */
  readonly what: string;
  readonly log: BuildProgress;
}

/**
 * Runs `go build -v` / `go install -v`, which name each package on stderr as it compiles (and `go: downloading`
 * each module): a progress line every 15 s says how far it got, since a first build is minutes of silence otherwise.
 * Fails with the last lines Go wrote that are not progress.
 */
export async function runGoWithProgress(run: GoRun): Promise<void> {
  const started = Date.now();
  let packages = 0;
  let downloads = 0;
  const tail: string[] = [];
  const onLine = (line: string) => {
    const t = line.trim();
    if (t.startsWith('go: downloading ')) downloads++;
    else if (/^[\w.-]+(\/[\w.@+~-]+)*$/.test(t)) packages++;
    else if (t) tail.push(t);
    if (tail.length > 20) tail.shift();
  };
  const timer = setInterval(() => {
    const got = downloads > 0 ? `${downloads} modules downloaded, ` : '';
    run.log(`${run.what}: ${got}${packages} packages compiled, ${Math.round((Date.now() - started) / 1000)} s`);
  }, 15_000);
  try {
    const code = await new Promise<number>((resolve, reject) => {
      const child = spawn('go', [...run.args], { cwd: run.cwd, env: run.env, stdio: ['ignore', 'ignore', 'pipe'] });
      let partial = '';
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (chunk: string) => {
        const lines = (partial + chunk).split('\n');
        partial = lines.pop() ?? '';
        lines.forEach(onLine);
      });
      child.on('error', reject);
      child.on('close', (c) => {
        onLine(partial);
        resolve(c ?? 1);
      });
    });
    const said = tail.slice(-3).join(' | ') || 'no message';
    if (code !== 0) throw new UserError(`go ${run.args[0]} failed (exit ${code}): ${said}`);
  } finally {
    clearInterval(timer);
  }
}

/**
 * Builds upstream k6 `K6_VERSION` into the cache with `go install`, unmodified. It runs in an empty temp dir so no
 * go.mod or go.work of ours takes part; GOBIN is a staging dir beside the target, renamed into place when done, so
 * a concurrent run never sees a half-written binary. GOTOOLCHAIN is left as the user has it.
 */
export async function installUpstreamK6(log: BuildProgress, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  const go = goVersion(env);
  if (go === null) throw new UserError(`no k6 found and Go is not installed: ${HOW_TO_GET_K6}`);
  const bin = upstreamK6Path(env);
  const dir = path.dirname(bin);
  mkdirSync(dir, { recursive: true });
  const staging = mkdtempSync(path.join(dir, '.install-'));
  const work = mkdtempSync(path.join(os.tmpdir(), 'k6-llm-install-'));
  log(
    `no k6 found: building upstream k6 ${K6_VERSION} with \`go install go.k6.io/k6@${K6_VERSION}\` ` +
    `(${go.replace(/^go version /, '')}) into ${dir}; it downloads k6's Go modules and compiles ~800 packages, ` +
    '2-4 minutes on 2 cores, once (later runs reuse it)',
  );
  const started = Date.now();
  try {
    await runGoWithProgress({
      args: ['install', '-v', `go.k6.io/k6@${K6_VERSION}`], cwd: work,
      env: { ...env, GOBIN: staging, GOFLAGS: '-trimpath' }, what: `building k6 ${K6_VERSION}`, log,
    });
    renameSync(path.join(staging, 'k6'), bin);
  } finally {
    rmSync(staging, { recursive: true, force: true });
    rmSync(work, { recursive: true, force: true });
  }
  log(`built ${bin} (upstream k6 ${K6_VERSION}) in ${Math.round((Date.now() - started) / 1000)} s, ` +
    `${Math.round(statSync(bin).size / 1e6)} MB`);
  return bin;
}

/** The cached upstream k6, built first when it is missing or does not run (`force`: rebuilt regardless). */
export async function ensureUpstreamK6(
  log: BuildProgress, env: NodeJS.ProcessEnv = process.env, opts: { force?: boolean } = {},
): Promise<string> {
  const cached = opts.force ? null : cachedUpstreamK6(env);
  return cached ?? installUpstreamK6(log, env);
}
