// Tests for orchestrator/agent-build.ts: what the build stamp covers, LLM_AGENT_BIN, and the agent `npm test`
// built (npm run agent:build). Runs in Node (vitest).

import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UserError } from '../../lib/exit-codes';
import {
  AGENT_BIN, AGENT_DIR, agentSources, agentSourceStamp, builtAgent, ensureAgent,
} from '../../orchestrator/agent-build';
import { goVersion } from '../../orchestrator/k6-install';

/** A small Go module in a temp dir: what agent/ looks like to the stamp. */
function fakeModule(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'k6llm-agent-src-'));
  const put = (rel: string, text: string) => {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  };
  put('go.mod', 'module example.com/agent\n\ngo 1.25.0\n');
  put('go.sum', '');
  put('server.go', 'package agent\n\nimport _ "embed"\n\n//go:embed metric-table.json\nvar table []byte\n');
  put('metric-table.json', '{}');
  put('cmd/k6-llm-agent/main.go', 'package main\n\nfunc main() {}\n');
  put('server_test.go', 'package agent\n');
  put('testdata/x.go', 'package x\n');
  put('README.md', '# agent\n');
  return dir;
}

describe('the agent build stamp', () => {
  it('covers non-test Go files, go.mod, go.sum and embedded files; not tests, testdata or docs', () => {
    const dir = fakeModule();
    expect(agentSources(dir).map((f) => path.relative(dir, f))).toEqual([
      'cmd/k6-llm-agent/main.go', 'go.mod', 'go.sum', 'metric-table.json', 'server.go',
    ]);
  });

  it('changes with a source, go.mod, go.sum, an embedded file or the toolchain, and only with them', () => {
    const dir = fakeModule();
    const go = 'go version go1.26.8 linux/amd64';
    let stamp = agentSourceStamp(go, dir);
    expect(stamp).toMatch(/^[0-9a-f]{64}$/);
    expect(agentSourceStamp('go version go1.25.3 linux/amd64', dir)).not.toBe(stamp);
    for (const rel of ['server_test.go', 'testdata/x.go', 'README.md']) {
      appendFileSync(path.join(dir, rel), '// edited\n');
      expect(agentSourceStamp(go, dir), rel).toBe(stamp);
    }
    for (const rel of ['cmd/k6-llm-agent/main.go', 'go.mod', 'go.sum', 'metric-table.json', 'server.go']) {
      appendFileSync(path.join(dir, rel), rel.endsWith('.json') ? ' ' : '\n');
      const next = agentSourceStamp(go, dir);
      expect(next, rel).not.toBe(stamp);
      stamp = next;
    }
    writeFileSync(path.join(dir, 'new.go'), 'package agent\n');
    expect(agentSourceStamp(go, dir)).not.toBe(stamp);
  });
});

describe('ensureAgent', () => {
  it('takes LLM_AGENT_BIN as it is, and refuses one that is not an executable file', async () => {
    expect(await ensureAgent(() => {}, { env: { LLM_AGENT_BIN: '/bin/sh' } })).toBe('/bin/sh');
    await expect(ensureAgent(() => {}, { env: { LLM_AGENT_BIN: '/nonexistent/agent' } }))
      .rejects.toThrow(new UserError('LLM_AGENT_BIN "/nonexistent/agent" is not an executable file'));
  });

  it('returns the build npm test made (npm run agent:build), current for these sources and toolchain', async () => {
    const log: string[] = [];
    // Builds when it is missing or stale (a run of this file alone), so allow for a first compile.
    expect(await ensureAgent((l) => log.push(l), { env: { ...process.env, LLM_AGENT_BIN: '' } })).toBe(AGENT_BIN);
    const go = goVersion(process.env, AGENT_DIR);
    expect(go).not.toBeNull();
    expect(builtAgent(go)).toBe(AGENT_BIN);
    expect(readFileSync(path.join(path.dirname(AGENT_BIN), 'build-stamp'), 'utf8').trim()).toBe(agentSourceStamp(go!));
    expect(builtAgent(`${go} (another toolchain)`)).toBeNull();
  }, 300_000);
});
