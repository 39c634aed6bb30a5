// The examples/ scripts a k6 user would write with k6/x/llm, each run on the project's k6. Runs in Node (vitest).
// They run against the simulator (fixed timing).

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSim } from '../sim/server';
import { ROOT, tempDir, testEngine } from './e2e/helpers';

let sim: Awaited<ReturnType<typeof startSim>>;

beforeAll(async () => {
  sim = await startSim({ port: 0, fixed: { ttftMs: 40, itlMs: 8 } });
});

afterAll(async () => {
  await sim?.close();
});

interface Run {
  readonly code: number;
  readonly stderr: string;
  readonly summary: { metrics: Record<string, Record<string, number>> };
}

/** Runs an example as its header says, with --summary-export to read back what it measured. */
function runExample(name: string, env: Record<string, string>): Promise<Run> {
  const dir = tempDir(`example-${name}`);
  const summary = path.join(dir, 'summary.json');
  const args = [
    'run', '--quiet', '--summary-trend-stats', 'avg,min,med,max,p(95),count', '--summary-export', summary,
    ...Object.entries({ BASE_URL: sim.url, MODEL: 'Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8', ...env }).flatMap(
      ([k, v]) => ['-e', `${k}=${v}`],
    ),
    path.join(ROOT, 'examples', name),
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(testEngine().command[0]!, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({ code: code ?? -1, stderr, summary: JSON.parse(readFileSync(summary, 'utf8')) as Run['summary'] }),
    );
  });
}

describe('examples/', () => {
  it('chat-load-test.js: passes its thresholds, with one ITL sample per token after the first', async () => {
    const r = await runExample('chat-load-test.js', { VUS: '2', DURATION: '3s' });
    expect(r.code, r.stderr).toBe(0);
    const m = r.summary.metrics;
    expect(m.llm_request_ok!.fails).toBe(0);
    const requests = m.llm_request_ok!.passes!;
    expect(requests).toBeGreaterThan(2);
    expect(m.llm_itl!.count).toBe(requests * 127);
    expect(m.llm_ttft!.avg).toBeGreaterThanOrEqual(39);
  }, 60_000);

  it('deploy-gate.js: exits 0 within its limits and 99 when a limit fails', async () => {
    const pass = await runExample('deploy-gate.js', {});
    expect(pass.code, pass.stderr).toBe(0);
    // TTFT is 40 ms: a 10 ms limit must fail the gate.
    const fail = await runExample('deploy-gate.js', { TTFT_P95_MS: '10' });
    expect(fail.code).toBe(99);
    expect(fail.stderr).toMatch(/thresholds on metrics 'llm_ttft' have been crossed/);
  }, 60_000);

  it('custom-record.js: its checks on the record pass and its own metric and tagged threshold are there', async () => {
    const r = await runExample('custom-record.js', {});
    expect(r.code, r.stderr).toBe(0);
    const m = r.summary.metrics;
    expect(m.checks).toMatchObject({ fails: 0 });
    expect(m.checks!.passes).toBe(8 * 4);
    // 31 gaps of 8 ms from the first token to the last.
    expect(m.generation_time!.avg).toBeGreaterThan(31 * 8 * 0.9);
    expect(m['llm_ttft{prompt:long}']).toBeDefined();
  }, 60_000);
});
