// Tests for orchestrator/k6-build.ts and the engine choice in orchestrator/engine.ts. Runs in Node (vitest).
// They cover the pinned k6 version, the rebuild stamp and the bundle each engine runs.

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundlePath, chooseEngine, probeK6 } from '../../orchestrator/engine';
import { builtProjectK6, goVersion, pinnedK6Version, PROJECT_K6_BIN, sourceStamp, XK6_LLM_DIR } from '../../orchestrator/k6-build';

describe('pinnedK6Version', () => {
  it('reads go.k6.io/k6 from a require line or a require block', () => {
    expect(pinnedK6Version('module x\n\ngo 1.25.0\n\nrequire go.k6.io/k6 v1.8.1\n')).toBe('v1.8.1');
    expect(pinnedK6Version('module x\n\nrequire (\n\tgithub.com/grafana/sobek v0.0.0-2026\n\tgo.k6.io/k6 v1.8.1\n)\n')).toBe('v1.8.1');
    expect(() => pinnedK6Version('module x\n')).toThrow('does not require go.k6.io/k6');
  });

  it('is the version the project k6 reports', () => {
    const probe = probeK6(PROJECT_K6_BIN);
    expect(probe, 'npm test builds k6 first (npm run build:k6)').not.toBeNull();
    expect(probe!.version).toMatch(new RegExp(`^k6 ${pinnedK6Version().replace(/\./g, '\\.')} `));
    expect(probe!.hasLlm).toBe(true);
  });
});

describe('the build stamp', () => {
  it('covers the Go sources and the toolchain, so a change to either asks for a rebuild', () => {
    const go = goVersion();
    expect(go).not.toBeNull();
    const stamp = sourceStamp(go!);
    expect(stamp).toMatch(/^[0-9a-f]{64}$/);
    expect(sourceStamp(`${go} (another toolchain)`)).not.toBe(stamp);
    // npm test ran npm run build:k6 on these sources: the binary is current.
    expect(builtProjectK6(go)).toBe(PROJECT_K6_BIN);
    expect(readFileSync(path.join(path.dirname(PROJECT_K6_BIN), 'build-stamp'), 'utf8').trim()).toBe(stamp);
    expect(builtProjectK6(`${go} (another toolchain)`)).toBeNull();
    expect(existsSync(path.join(XK6_LLM_DIR, 'cmd', 'k6', 'main.go'))).toBe(true);
  });
});

describe('engine choice', () => {
  it('runs dist/<script>.js', () => {
    expect(bundlePath('sweep', '/d')).toBe('/d/sweep.js');
  });

  it('picks the project k6 (here: built); K6_BIN wins; a K6_BIN that does not run or lacks k6/x/llm is a clear error', async () => {
    const log: string[] = [];
    const auto = await chooseEngine((l) => log.push(l), {});
    expect(auto).toMatchObject({ source: 'project build', command: [PROJECT_K6_BIN] });
    expect(log).toEqual([]); // already built: nothing to say
    await expect(chooseEngine(() => {}, { K6_BIN: '/nonexistent/k6' })).rejects.toThrow('K6_BIN k6 "/nonexistent/k6" does not run');
    // /bin/echo "version" exits 0 without naming k6/x/llm: a k6 without the extension is refused with the way out.
    await expect(chooseEngine(() => {}, { K6_BIN: '/bin/echo' })).rejects.toThrow(/lacks the k6\/x\/llm extension: install Go 1\.25/);
  });
});
