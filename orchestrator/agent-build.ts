// Builds the project's measuring agent (agent/, a standalone Go program) with `go build`. Runs in Node.
// It reuses the build while its sources and the toolchain are unchanged; LLM_AGENT_BIN names a prebuilt one.

import { createHash } from 'node:crypto';
import {
  accessSync, constants, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { UserError } from '../lib/exit-codes';
import { goVersion, runGoWithProgress, type BuildProgress } from './k6-install';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const AGENT_DIR = path.join(root, 'agent');
/** The main package, relative to AGENT_DIR. */
export const AGENT_PACKAGE = './cmd/k6-llm-agent';
/** Where the binary goes: ignored by git, kept between runs. */
export const AGENT_BIN = path.join(root, '.cache', 'agent', 'k6-llm-agent');
const STAMP_FILE = path.join(path.dirname(AGENT_BIN), 'build-stamp');

/** Files a `//go:embed` line of `goFile` names (literal files and folders, and `*`/`?` globs in one folder). */
function embeddedFiles(goFile: string): string[] {
  const dir = path.dirname(goFile);
  const out: string[] = [];
  for (const m of readFileSync(goFile, 'utf8').matchAll(/^\/\/go:embed\s+(.+)$/gm)) {
    for (const token of m[1]!.trim().split(/\s+/)) {
      const pattern = token.replace(/^"|"$/g, '').replace(/^all:/, '');
      const full = path.join(dir, pattern);
      if (!/[*?[]/.test(pattern)) {
        if (existsSync(full)) out.push(...(statSync(full).isDirectory() ? allFiles(full) : [full]));
        continue;
      }
      const globDir = path.dirname(full);
      const re = globRegExp(path.basename(full));
      if (!existsSync(globDir)) continue;
      out.push(...readdirSync(globDir).filter((n) => re.test(n)).map((n) => path.join(globDir, n)));
    }
  }
  return out;
}

/** A one-segment glob (`*`, `?`) as a RegExp; `[...]` classes pass through as they are. */
function globRegExp(glob: string): RegExp {
  return new RegExp(`^${glob.replace(/[.+^${}()|\\]/g, '\\$&').replace(/\*/g, '[^/]*').replace(/\?/g, '[^/]')}$`);
}

function allFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? allFiles(p) : [p];
  });
}

/** What the binary is built from: non-test Go files, go.mod/go.sum, and what they embed; never testdata/. */
export function agentSources(dir: string = AGENT_DIR): string[] {
  const out = new Set<string>();
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, entry.name);
      if (entry.isDirectory()) {
        // Go itself ignores testdata/ and folders starting with . or _.
        if (entry.name !== 'testdata' && !/^[._]/.test(entry.name)) walk(p);
      } else if (entry.name.endsWith('.go') && !entry.name.endsWith('_test.go')) {
        out.add(p);
        for (const f of embeddedFiles(p)) out.add(f);
      } else if (entry.name === 'go.mod' || entry.name === 'go.sum') {
        out.add(p);
      }
    }
  };
  walk(dir);
  return [...out].sort();
}

/** A hash of everything the binary is built from: the sources (agentSources) and the `go version` line. */
export function agentSourceStamp(go: string, dir: string = AGENT_DIR): string {
  const hash = createHash('sha256').update(go);
  for (const file of agentSources(dir)) {
    hash.update(path.relative(dir, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

/** The built agent when it exists and matches today's sources and toolchain; null otherwise. */
export function builtAgent(go: string | null): string | null {
  if (!existsSync(AGENT_BIN)) return null;
  // Without Go the sources cannot be rebuilt, so a binary that exists is the best there is.
  if (go === null) return AGENT_BIN;
  try {
    return readFileSync(STAMP_FILE, 'utf8').trim() === agentSourceStamp(go) ? AGENT_BIN : null;
  } catch {
    return null;
  }
}

function prebuiltAgent(bin: string): string {
  try {
    accessSync(bin, constants.X_OK);
  } catch {
    throw new UserError(`LLM_AGENT_BIN "${bin}" is not an executable file`);
  }
  return path.resolve(bin);
}

/**
 * The agent's binary: LLM_AGENT_BIN when set, else .cache/agent/k6-llm-agent, built first unless an up-to-date
 * build exists (`force`: rebuilt regardless). `go build -v` names the packages it compiles: the progress shown.
 */
export async function ensureAgent(
  log: BuildProgress, opts: { force?: boolean; env?: NodeJS.ProcessEnv } = {},
): Promise<string> {
  const env = opts.env ?? process.env;
  if (env.LLM_AGENT_BIN) return prebuiltAgent(env.LLM_AGENT_BIN);
  if (!existsSync(path.join(AGENT_DIR, 'go.mod'))) {
    throw new UserError(`${AGENT_DIR}/go.mod is missing: no agent to build`);
  }
  // Run in agent/: a toolchain line in its go.mod may select another Go than the one on PATH.
  const go = goVersion(env, AGENT_DIR);
  const existing = opts.force ? null : builtAgent(go);
  if (existing) return existing;
  if (go === null)
    throw new UserError(
      'Go is not installed: building the measuring agent (agent/) needs Go 1.25 or newer, ' +
      'or set LLM_AGENT_BIN to a prebuilt k6-llm-agent',
    );
  mkdirSync(path.dirname(AGENT_BIN), { recursive: true });
  const tmp = `${AGENT_BIN}.tmp-${process.pid}`;
  // Stamped with the sources as they were when the build began: an edit during it asks for another build.
  const stamp = agentSourceStamp(go);
  log(`building the measuring agent from agent/ (${go.replace(/^go version /, '')})`);
  const started = Date.now();
  try {
    await runGoWithProgress({
      args: ['build', '-v', '-trimpath', '-buildvcs=false', '-o', tmp, AGENT_PACKAGE], cwd: AGENT_DIR, env,
      what: 'building the agent', log,
    });
    // Renamed into place only when complete, so a concurrent run never starts a half-written binary.
    renameSync(tmp, AGENT_BIN);
  } finally {
    rmSync(tmp, { force: true });
  }
  writeFileSync(STAMP_FILE, stamp + '\n');
  log(`built ${path.relative(root, AGENT_BIN)} in ${Math.round((Date.now() - started) / 1000)} s`);
  return AGENT_BIN;
}
