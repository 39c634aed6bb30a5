// Tests for orchestrator/k6-install.ts and the engine choice in orchestrator/engine.ts. Runs in Node (vitest).
// Stand-in k6 and go binaries (shell scripts) show the choice order, the version gate and the upstream build
// without a network or minutes of compiling; one test checks the k6 that `npm test` found or built.

import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UserError } from '../../lib/exit-codes';
import { bundlePath, chooseEngine } from '../../orchestrator/engine';
import {
  cacheRoot, cachedUpstreamK6, findOnPath, isSupportedK6, K6_VERSION, parseK6Version, probeK6, upstreamK6Path,
} from '../../orchestrator/k6-install';

const REPO = path.resolve(import.meta.dirname, '../..');

function tempDir(prefix: string): string {
  return mkdtempSync(path.join(tmpdir(), `k6llm-${prefix}-`));
}

/** An executable shell script at dir/name. */
function script(dir: string, name: string, lines: readonly string[]): string {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, name);
  writeFileSync(file, ['#!/bin/sh', ...lines, ''].join('\n'), { mode: 0o755 });
  return file;
}

/** A stand-in k6 whose `k6 version` names `version`. */
function fakeK6(dir: string, version: string): string {
  return script(dir, 'k6', [`echo "k6 ${version} (commit/devel, go1.26.8, linux/amd64)"`]);
}

describe('parseK6Version', () => {
  it('reads the version of k6 1.x and 0.x lines, with or without extensions listed', () => {
    expect(parseK6Version('k6 v1.8.1 (commit/7f2a, go1.26.8, linux/amd64)'))
      .toEqual({ tag: 'v1.8.1', major: 1, minor: 8, patch: 1 });
    expect(parseK6Version('k6 v1.9.0-rc.1 (commit/devel, go1.26.8, linux/amd64)\nExtensions:\n  x, k6/x/y [js]\n'))
      .toMatchObject({ tag: 'v1.9.0-rc.1', major: 1, minor: 9 });
    expect(parseK6Version('k6 v0.49.0 (2024-01-22T15:06:58+0000/v0.49.0-0-g8e29bd2d, go1.21.6, linux/amd64)'))
      .toMatchObject({ tag: 'v0.49.0', major: 0, minor: 49 });
    expect(parseK6Version('k6 v2.0.0')).toMatchObject({ major: 2 });
  });

  it('finds none in other output', () => {
    expect(parseK6Version('')).toBeNull();
    expect(parseK6Version('version')).toBeNull();
    expect(parseK6Version('k6 v1.8 (no patch)')).toBeNull();
    expect(parseK6Version('xk6 v1.8.1')).toBeNull();
  });

  it('accepts k6 >= 1.0 and refuses 0.x', () => {
    expect(isSupportedK6(parseK6Version('k6 v1.0.0')!)).toBe(true);
    expect(isSupportedK6(parseK6Version('k6 v1.8.1')!)).toBe(true);
    expect(isSupportedK6(parseK6Version('k6 v2.1.0')!)).toBe(true);
    expect(isSupportedK6(parseK6Version('k6 v0.57.0')!)).toBe(false);
  });
});

describe('the cache and PATH lookups', () => {
  it('put the upstream build under K6_LLM_CACHE, else $XDG_CACHE_HOME or ~/.cache, per version', () => {
    expect(upstreamK6Path({ K6_LLM_CACHE: '/c', XDG_CACHE_HOME: '/x', HOME: '/h' })).toBe(`/c/k6-${K6_VERSION}/k6`);
    expect(upstreamK6Path({ XDG_CACHE_HOME: '/x', HOME: '/h' })).toBe(`/x/k6-llm-capacity/k6-${K6_VERSION}/k6`);
    expect(cacheRoot({ XDG_CACHE_HOME: 'relative', HOME: '/h' })).toBe('/h/.cache/k6-llm-capacity');
    expect(upstreamK6Path({ HOME: '/h' }, 'v1.9.0')).toBe('/h/.cache/k6-llm-capacity/k6-v1.9.0/k6');
    expect(K6_VERSION).toMatch(/^v1\.\d+\.\d+$/);
  });

  it('finds an executable on PATH, skipping non-executable files and relative entries', () => {
    const a = tempDir('path-a');
    const b = tempDir('path-b');
    writeFileSync(path.join(a, 'k6'), 'not executable', { mode: 0o644 });
    const k6 = fakeK6(b, 'v1.8.1');
    expect(findOnPath('k6', { PATH: ['', '.', a, b].join(path.delimiter) })).toBe(k6);
    expect(findOnPath('k6', { PATH: a })).toBeNull();
    expect(findOnPath('k6', {})).toBeNull();
  });
});

describe('engine choice', () => {
  it('runs dist/<script>.js', () => {
    expect(bundlePath('sweep', '/d')).toBe('/d/sweep.js');
  });

  it('takes K6_BIN, else a k6 on PATH, else the cached upstream build, without building anything', async () => {
    const dir = tempDir('choice');
    const own = fakeK6(path.join(dir, 'own'), 'v1.7.0');
    const onPath = fakeK6(path.join(dir, 'bin'), 'v1.6.0');
    const cache = path.join(dir, 'cache');
    const cached = fakeK6(path.dirname(upstreamK6Path({ K6_LLM_CACHE: cache })), K6_VERSION);
    const empty = tempDir('empty');
    const log: string[] = [];
    const pick = (env: NodeJS.ProcessEnv) => chooseEngine((l) => log.push(l), { K6_LLM_CACHE: cache, ...env });
    expect(await pick({ K6_BIN: own, PATH: path.dirname(onPath) }))
      .toEqual({ command: [own], version: 'k6 v1.7.0 (commit/devel, go1.26.8, linux/amd64)', source: 'K6_BIN' });
    expect(await pick({ PATH: path.dirname(onPath) })).toMatchObject({ command: [onPath], source: 'PATH' });
    expect(await pick({ PATH: empty })).toMatchObject({ command: [cached], source: 'cached upstream build' });
    expect(log).toEqual([]);
  });

  it('refuses a k6 older than 1.0, one that does not run and one that names no version, each in one line', async () => {
    const dir = tempDir('old');
    const old = fakeK6(path.join(dir, 'bin'), 'v0.49.0');
    const none = (env: NodeJS.ProcessEnv) => chooseEngine(() => {}, { K6_LLM_CACHE: path.join(dir, 'cache'), ...env });
    const refusal = /is v0\.49\.0; k6 >= 1\.0 is needed: install k6 \(any k6 >= 1\.0: .*\) or Go 1\.25\+/;
    await expect(none({ K6_BIN: old })).rejects.toThrow(refusal);
    await expect(none({ PATH: path.dirname(old) })).rejects.toThrow(new RegExp(`^PATH k6 "${old}" ${refusal.source}`));
    await expect(none({ K6_BIN: '/nonexistent/k6' })).rejects.toThrow('K6_BIN k6 "/nonexistent/k6" does not run');
    await expect(none({ K6_BIN: '/bin/echo' })).rejects.toThrow(/does not name a k6 version/);
    await expect(none({ K6_BIN: old })).rejects.toBeInstanceOf(UserError);
  });

  it('without a k6 and without Go, says to install either', async () => {
    const dir = tempDir('nothing');
    // A cached build that does not run is no k6 either.
    script(path.dirname(upstreamK6Path({ K6_LLM_CACHE: dir })), 'k6', ['exit 1']);
    const err = await chooseEngine(() => {}, { PATH: tempDir('nogo'), K6_LLM_CACHE: dir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UserError);
    expect((err as Error).message).toBe(
      "no k6 found and Go is not installed: install k6 (any k6 >= 1.0: Grafana's release, a package manager, " +
      'the grafana/k6 image) or Go 1.25+ so the project can build upstream k6',
    );
  });
});

describe('the upstream build', () => {
  /** A stand-in go: `go version`, and `go install` that records how it ran and installs a stand-in k6 into GOBIN. */
  function fakeGo(dir: string, record: string, fail = false): string {
    return path.dirname(script(path.join(dir, 'gobin'), 'go', [
      'if [ "$1" = "version" ]; then echo "go version go1.26.8 linux/amd64"; exit 0; fi',
      `printf '%s\\n' "$PWD" "$GOBIN" "$GOFLAGS" "\${GOTOOLCHAIN-unset}" "$*" > ${record}`,
      'echo "go: downloading go.k6.io/k6 v1.8.1" >&2',
      'echo "go.k6.io/k6/cmd" >&2',
      ...(fail ? ['echo "go: go.k6.io/k6@v1.8.1: no such host" >&2', 'exit 1'] : []),
      `printf '#!/bin/sh\\necho "k6 v1.8.1 (commit/upstream, go1.26.8, linux/amd64)"\\n' > "$GOBIN/k6"`,
      'chmod +x "$GOBIN/k6"',
    ]));
  }

  it('runs go install go.k6.io/k6@<version> outside the repository into the cache, saying so in one line', async () => {
    const dir = tempDir('install');
    const record = path.join(dir, 'go-call.txt');
    const cache = path.join(dir, 'cache');
    const log: string[] = [];
    const env = { PATH: `${fakeGo(dir, record)}${path.delimiter}/usr/bin${path.delimiter}/bin`, K6_LLM_CACHE: cache };
    const engine = await chooseEngine((l) => log.push(l), env);
    const bin = upstreamK6Path(env);
    expect(engine).toMatchObject({ command: [bin], source: 'cached upstream build' });
    expect(engine.version).toMatch(/^k6 v1\.8\.1 \(commit\/upstream/);
    const [cwd, gobin, goflags, toolchain, args] = readFileSync(record, 'utf8').split('\n');
    expect(args).toBe(`install -v go.k6.io/k6@${K6_VERSION}`);
    expect(path.relative(REPO, cwd!).startsWith('..')).toBe(true);
    expect(existsSync(cwd!)).toBe(false); // the temp dir is removed afterwards
    expect(path.dirname(gobin!)).toBe(path.dirname(bin)); // staged beside the target, renamed into place
    expect(goflags).toBe('-trimpath');
    expect(toolchain).toBe('unset');
    expect(readdirSync(path.dirname(bin))).toEqual(['k6']);
    const command = `go install go.k6.io/k6@${K6_VERSION}`;
    expect(log[0]).toContain(`no k6 found: building upstream k6 ${K6_VERSION} with \`${command}\``);
    expect(log[0]).toContain('2-4 minutes on 2 cores');
    expect(log.at(-1)).toMatch(new RegExp(`^built ${bin} \\(upstream k6 ${K6_VERSION}\\) in \\d+ s`));
    // The next run reuses it.
    expect(cachedUpstreamK6(env)).toBe(bin);
  });

  it('reports a failed go install with what Go said', async () => {
    const dir = tempDir('install-fail');
    const gobin = fakeGo(dir, path.join(dir, 'rec'), true);
    const env = { PATH: `${gobin}${path.delimiter}/bin`, K6_LLM_CACHE: path.join(dir, 'c') };
    await expect(chooseEngine(() => {}, env))
      .rejects.toThrow(/^go install failed \(exit 1\): go: go\.k6\.io\/k6@v1\.8\.1: no such host$/);
    expect(readdirSync(path.dirname(upstreamK6Path(env)))).toEqual([]);
  });
});

describe('the k6 npm test runs', () => {
  it('is found (npm run k6:ensure ran first) and is k6 >= 1.0', async () => {
    const found = process.env.K6_BIN || findOnPath('k6') || cachedUpstreamK6();
    expect(found, 'npm test finds or builds k6 first: npm run k6:ensure').toBeTruthy();
    const engine = await chooseEngine(() => {});
    const parsed = parseK6Version(probeK6(engine.command[0]!)!.version);
    expect(parsed && isSupportedK6(parsed)).toBe(true);
  });
});
