// Test helpers for the runner: spawn the CLI like a user would, and small local servers on port 0. Runs in Node.
import { spawn } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { AddressInfo } from 'node:net';

export const REPO = resolve(import.meta.dirname, '../..');
export const FIXTURES = resolve(import.meta.dirname, 'fixtures');
const TSX = join(REPO, 'node_modules/.bin/tsx');
const CLI = join(REPO, 'runner/cli.ts');

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function tempDir(prefix = 'runner-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** Runs `tsx runner/cli.ts <args>`; onStderr sees stderr as it arrives (to wait for events, e.g. before SIGINT). */
export function runCli(args: readonly string[], opts: { cwd?: string; env?: Record<string, string>; onStderr?: (text: string, child: ReturnType<typeof spawn>) => void } = {}): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(TSX, [CLI, ...args], { cwd: opts.cwd ?? REPO, env: { ...process.env, ...opts.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      opts.onStderr?.(stderr, child);
    });
    child.on('error', reject);
    child.on('close', (code) => resolvePromise({ code, stdout, stderr }));
  });
}

export interface TestServer {
  url: string;
  close(): Promise<void>;
}

export function listen(handler: http.RequestListener): Promise<TestServer> {
  const server = http.createServer(handler);
  return new Promise((res) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      res({
        url: `http://127.0.0.1:${port}`,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

/** The messages scripts printed with console.log (k6 writes them to stderr as level=info ... source=console). */
export function consoleMessages(stderr: string): string[] {
  const out: string[] = [];
  for (const line of stderr.split('\n')) {
    const m = /level=info msg=("(?:[^"\\]|\\.)*") source=console/.exec(line);
    if (m) out.push(JSON.parse(m[1]!) as string);
  }
  return out;
}
