// Tests for orchestrator/agent-process.ts: the start-up line, starting and stopping stand-in agents (shell
// scripts), and the real agent. Runs in Node (vitest).

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { ensureAgent } from '../../orchestrator/agent-build';
import { parseListeningLine, startAgent } from '../../orchestrator/agent-process';

function fakeAgent(lines: readonly string[]): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'k6llm-fake-agent-')), 'agent');
  writeFileSync(file, ['#!/bin/sh', ...lines, ''].join('\n'), { mode: 0o755 });
  return file;
}

/** Running, and not a zombie (an orphan's zombie lingers where PID 1 does not reap, as in some containers). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true; // no /proc: kill(0) is all there is
  }
}

describe('parseListeningLine', () => {
  it('reads the URL of the start-up line', () => {
    expect(parseListeningLine('agent listening on http://127.0.0.1:40123')).toBe('http://127.0.0.1:40123');
    expect(parseListeningLine('agent listening on http://127.0.0.1:40123/\r')).toBe('http://127.0.0.1:40123');
    expect(parseListeningLine('agent listening on http://[::1]:8090')).toBe('http://[::1]:8090');
    expect(parseListeningLine('agent listening on http://0.0.0.0:8090')).toBe('http://0.0.0.0:8090');
  });

  it('refuses other lines, and one without a port', () => {
    expect(parseListeningLine('')).toBeNull();
    expect(parseListeningLine('k6-llm-agent: cannot listen: address already in use')).toBeNull();
    expect(parseListeningLine('agent listening on http://127.0.0.1')).toBeNull();
    expect(parseListeningLine('agent listening on http://127.0.0.1:80/v1')).toBeNull();
    expect(parseListeningLine('agent listening on nowhere')).toBeNull();
    expect(parseListeningLine('the agent listening on http://127.0.0.1:1')).toBeNull();
  });
});

describe('startAgent with stand-in agents', () => {
  it('passes --host/--port, resolves on the listening line, and stop() ends its whole process group', async () => {
    const args = path.join(mkdtempSync(path.join(tmpdir(), 'k6llm-args-')), 'args');
    const bin = fakeAgent([
      `echo "$@" > ${args}`,
      // A grandchild in the same group: stop() must end it too.
      'sleep 60 & echo $! > "$0.child"',
      'echo "starting"',
      'echo "agent listening on http://127.0.0.1:45678"',
      'wait',
    ]);
    const agent = await startAgent({ bin });
    try {
      expect(agent.url).toBe('http://127.0.0.1:45678');
      expect(readFileSync(args, 'utf8').trim()).toBe('--host 127.0.0.1 --port 0 --exit-on-stdin-close');
      const grandchild = Number(readFileSync(`${bin}.child`, 'utf8'));
      expect(alive(agent.pid) && alive(grandchild)).toBe(true);
      await agent.stop();
      expect(await agent.exited).toMatchObject({ signal: 'SIGTERM' });
      await new Promise((r) => setTimeout(r, 100));
      expect(alive(grandchild)).toBe(false);
    } finally {
      await agent.stop(); // a second stop is a no-op
    }
  });

  it('passes a given host and port', async () => {
    const bin = fakeAgent(['echo "agent listening on http://$2:$4"', 'exec sleep 60']);
    const agent = await startAgent({ bin, host: '127.0.0.2', port: 9999 });
    try {
      expect(agent.url).toBe('http://127.0.0.2:9999');
    } finally {
      await agent.stop();
    }
  });

  it('kills one that ignores SIGTERM after the grace period', async () => {
    const bin = fakeAgent([
      'trap "" TERM',
      'echo "agent listening on http://127.0.0.1:1"',
      'while :; do sleep 1; done',
    ]);
    const agent = await startAgent({ bin });
    const t0 = Date.now();
    await agent.stop();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(4_500);
    expect(await agent.exited).toMatchObject({ signal: 'SIGKILL' });
  }, 20_000);

  it('fails with the exit code and its stderr when it exits before listening', async () => {
    const bin = fakeAgent(['echo "k6-llm-agent: cannot listen: address already in use" >&2', 'exit 3']);
    await expect(startAgent({ bin })).rejects.toThrow(
      /^the agent \(.*\) exited \(code 3\) before listening: k6-llm-agent: cannot listen: address already in use$/,
    );
  });

  it('fails with its stderr when no listening line comes in time, and kills it', async () => {
    const pidFile = path.join(mkdtempSync(path.join(tmpdir(), 'k6llm-pid-')), 'pid');
    const bin = fakeAgent([`echo $$ > ${pidFile}`, 'echo "still loading" >&2', 'echo "not the line"', 'exec sleep 60']);
    await expect(startAgent({ bin, startupTimeoutMs: 500 })).rejects.toThrow(
      /printed no "agent listening on \.\.\." line within 0\.5 s: still loading$/,
    );
    await new Promise((r) => setTimeout(r, 100));
    expect(alive(Number(readFileSync(pidFile, 'utf8')))).toBe(false);
  });

  it('fails in one line when the binary does not exist', async () => {
    await expect(startAgent({ bin: '/nonexistent/k6-llm-agent' })).rejects.toThrow(/did not start: spawn .*ENOENT/);
  });
});

describe('the real agent', () => {
  it('starts on a free loopback port, answers HTTP there, and stops on SIGTERM', async () => {
    // Built by npm test first (npm run agent:build); built here when this file runs alone.
    const agent = await startAgent({ log: () => {} });
    try {
      expect(agent.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const res = await fetch(agent.url);
      expect(res.status).toBeGreaterThan(0);
    } finally {
      await agent.stop();
    }
    expect(await agent.exited).toEqual({ code: 0, signal: null });
  }, 300_000);

  it('exits by itself when the pipe on its stdin closes, as when the process that started it is killed', async () => {
    const bin = await ensureAgent(() => {});
    const child = spawn(bin, ['--port', '0', '--exit-on-stdin-close'], { stdio: ['pipe', 'pipe', 'ignore'] });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const line = await new Promise<string>((resolve) =>
      child.stdout.once('data', (d: Buffer) => resolve(d.toString())));
    expect(parseListeningLine(line.trim())).not.toBeNull();
    child.stdin.end();
    expect(await exited).toBe(0);
  }, 300_000);
});
