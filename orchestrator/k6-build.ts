// Builds the project's k6 (k6 + k6/x/llm) from xk6-llm/ with `go build`, as xk6 does. Runs in Node.
// It reuses the build while its sources are unchanged.

import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { UserError } from '../lib/exit-codes';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const XK6_LLM_DIR = path.join(root, 'xk6-llm');
/** Where the binary goes: ignored by git, kept between runs. */
export const PROJECT_K6_DIR = path.join(root, '.cache', 'k6');
export const PROJECT_K6_BIN = path.join(PROJECT_K6_DIR, 'k6');
const STAMP_FILE = path.join(PROJECT_K6_DIR, 'build-stamp');

/** The k6 version the project builds: the one place it is pinned is xk6-llm/go.mod. */
export function pinnedK6Version(goMod = readFileSync(path.join(XK6_LLM_DIR, 'go.mod'), 'utf8')): string {
  const m = /^\s*(?:require\s+)?go\.k6\.io\/k6\s+(v[0-9][^\s]*)/m.exec(goMod);
  if (!m) throw new Error('xk6-llm/go.mod does not require go.k6.io/k6');
  return m[1]!;
}

/** The Go toolchain's version line, or null when `go` is not installed. */
export function goVersion(env: NodeJS.ProcessEnv = process.env): string | null {
  const probe = spawnSync('go', ['version'], { encoding: 'utf8', timeout: 30_000, env });
  return probe.status === 0 ? probe.stdout.trim() : null;
}

function goSources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'testdata') out.push(...goSources(p));
    } else if ((entry.name.endsWith('.go') && !entry.name.endsWith('_test.go')) || entry.name === 'go.mod' || entry.name === 'go.sum') {
      out.push(p);
    }
  }
  return out.sort();
}

/** A hash of everything the binary is built from: the Go sources, go.mod/go.sum and the toolchain. */
export function sourceStamp(go: string): string {
  const hash = createHash('sha256').update(go);
  for (const file of goSources(XK6_LLM_DIR))
    hash.update(path.relative(XK6_LLM_DIR, file)).update('\0').update(readFileSync(file)).update('\0');
  return hash.digest('hex');
}

/** The project's k6 when it is built and matches today's sources; null otherwise. */
export function builtProjectK6(go: string | null): string | null {
  if (!existsSync(PROJECT_K6_BIN)) return null;
  // Without Go the sources cannot be rebuilt, so a binary that exists is the best there is.
  if (go === null) return PROJECT_K6_BIN;
  try {
    return readFileSync(STAMP_FILE, 'utf8').trim() === sourceStamp(go) ? PROJECT_K6_BIN : null;
  } catch {
    return null;
  }
}

export interface BuildProgress {
  (line: string): void;
}

/**
 * Builds k6 with k6/x/llm unless an up-to-date build exists. `go build -v` names each package as it
 * compiles, which is the progress shown; the first build downloads k6's modules from the Go module
 * proxy and compiles ~400 packages (2-4 minutes on 2 cores), later ones reuse Go's build cache.
 */
export async function ensureProjectK6(log: BuildProgress, opts: { force?: boolean } = {}): Promise<string> {
  const go = goVersion();
  if (go === null)
    throw new UserError(
      'Go is not installed: building k6 with k6/x/llm needs Go 1.25 or newer (see the README), or set K6_BIN to a k6 built with k6/x/llm',
    );
  if (!opts.force) {
    const existing = builtProjectK6(go);
    if (existing) return existing;
  }
  const version = pinnedK6Version();
  mkdirSync(PROJECT_K6_DIR, { recursive: true });
  const tmp = `${PROJECT_K6_BIN}.tmp-${process.pid}`;
  log(`building k6 ${version} with k6/x/llm (${go.replace(/^go version /, '')}); the first build downloads and compiles k6, 2-4 minutes`);
  const started = Date.now();
  let packages = 0;
  let lastReport = Date.now();
  const stderrTail: string[] = [];
  const code = await new Promise<number>((resolve, reject) => {
    const child = spawn('go', ['build', '-v', '-trimpath', '-buildvcs=false', '-o', tmp, './cmd/k6'], {
      cwd: XK6_LLM_DIR, stdio: ['ignore', 'ignore', 'pipe'],
    });
    let partial = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        if (/^[\w.-]+(\/[\w.@+-]+)*$/.test(line.trim())) packages++;
        else if (line.trim()) stderrTail.push(line);
        if (stderrTail.length > 20) stderrTail.shift();
      }
      if (Date.now() - lastReport >= 15_000) {
        lastReport = Date.now();
        log(`building k6: ${packages} packages compiled, ${Math.round((Date.now() - started) / 1000)} s`);
      }
    });
    child.on('error', reject);
    child.on('close', (c) => resolve(c ?? 1));
  });
  if (code !== 0) {
    rmSync(tmp, { force: true });
    const last = stderrTail.filter((l) => !l.startsWith('go: downloading')).slice(-3).join(' | ');
    throw new UserError(`go build of k6 failed (exit ${code}): ${last || 'no message'}`);
  }
  renameSync(tmp, PROJECT_K6_BIN);
  writeFileSync(STAMP_FILE, sourceStamp(go) + '\n');
  log(
    `built ${path.relative(root, PROJECT_K6_BIN)} (k6 ${version} + k6/x/llm) in ` +
    `${Math.round((Date.now() - started) / 1000)} s, ${Math.round(statSync(PROJECT_K6_BIN).size / 1e6)} MB`,
  );
  return PROJECT_K6_BIN;
}
