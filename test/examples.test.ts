// The examples/ scripts a k6 user would write with dist/llm.js, each run as its header says: a stock k6 with the
// measuring agent beside it (-e LLM_AGENT). Runs in Node (vitest).
// They run against the simulator (fixed timing); what they measure is judged against its ground truth.

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { percentile, sortValues } from '../report/stats';
import { startSim, type GroundTruthRecord } from '../sim/server';
import { ROOT, tempDir, testAgent, testEngine } from './e2e/helpers';

let sim: Awaited<ReturnType<typeof startSim>>;

beforeAll(async () => {
  sim = await startSim({ port: 0, fixed: { ttftMs: 40, itlMs: 8 }, groundTruth: true });
});

beforeEach(() => {
  sim.clearGroundTruth();
});

afterAll(async () => {
  await sim?.close();
});

interface Run {
  readonly code: number;
  readonly stderr: string;
  readonly summary: { metrics: Record<string, Record<string, number>> };
  /** The simulator's record of each request the example sent. */
  readonly truth: GroundTruthRecord[];
}

/** Runs an example as its header says, with --summary-export to read back what it measured. */
async function runExample(name: string, env: Record<string, string>): Promise<Run> {
  const dir = tempDir(`example-${name}`);
  const summary = path.join(dir, 'summary.json');
  const args = [
    'run', '--quiet', '--summary-trend-stats', 'avg,min,med,max,p(95),count', '--summary-export', summary,
    ...Object.entries({
      LLM_AGENT: await testAgent(), BASE_URL: sim.url, MODEL: 'Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8', ...env,
    }).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
    path.join(ROOT, 'examples', name),
  ];
  return new Promise((resolve, reject) => {
    const child = spawn(testEngine().command[0]!, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({
      code: code ?? -1, stderr, summary: JSON.parse(readFileSync(summary, 'utf8')) as Run['summary'], truth: sim.groundTruth(),
    }));
  });
}

const ttftOf = (t: GroundTruthRecord): number => t.tokenEpochMs[0]! - t.arrivalEpochMs;
const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

describe('examples/', () => {
  it('chat-load-test.js: passes its thresholds, one ITL sample per token after the first, TTFT as the server sent it', async () => {
    const r = await runExample('chat-load-test.js', { VUS: '2', DURATION: '3s' });
    expect(r.code, r.stderr).toBe(0);
    const m = r.summary.metrics;
    expect(m.llm_request_ok!.fails).toBe(0);
    const requests = m.llm_request_ok!.passes!;
    expect(requests).toBeGreaterThan(2);
    // Every request the server served was measured, and only those.
    expect(r.truth.filter((t) => t.outcome === 'completed')).toHaveLength(requests);
    expect(m.llm_itl!.count).toBe(requests * 127);
    // The client's TTFT median is the server's within accuracy.test.ts's tolerances: at most 5 ms above (connect,
    // request write, the first chunk's trip on loopback), never more than 0.5 ms below.
    const truthTtft = percentile(sortValues(r.truth.map(ttftOf)), 0.5);
    const msg = `client TTFT median ${m.llm_ttft!.med}, truth ${truthTtft.toFixed(2)}`;
    expect(m.llm_ttft!.med! - truthTtft, msg).toBeLessThanOrEqual(5);
    expect(truthTtft - m.llm_ttft!.med!, msg).toBeLessThanOrEqual(0.5);
  }, 60_000);

  it('deploy-gate.js: exits 0 within its limits and 99 when a limit fails', async () => {
    const pass = await runExample('deploy-gate.js', {});
    expect(pass.code, pass.stderr).toBe(0);
    // A 10 ms limit on a TTFT the server itself never gave in under 10 ms must fail the gate.
    const fail = await runExample('deploy-gate.js', { TTFT_P95_MS: '10' });
    expect(Math.min(...fail.truth.map(ttftOf))).toBeGreaterThan(10);
    expect(fail.code).toBe(99);
    expect(fail.stderr).toMatch(/thresholds on metrics 'llm_ttft' have been crossed/);
  }, 60_000);

  it('custom-record.js: its checks on the record pass and its own metric and tagged threshold are there', async () => {
    const r = await runExample('custom-record.js', {});
    expect(r.code, r.stderr).toBe(0);
    const m = r.summary.metrics;
    expect(m.checks).toMatchObject({ fails: 0 });
    expect(m.checks!.passes).toBe(8 * 4);
    // Its own metric, first token to the end of the stream, is the server's within 1 ms on average.
    expect(r.truth).toHaveLength(8);
    const truthGeneration = mean(r.truth.map((t) => t.endEpochMs! - t.tokenEpochMs[0]!));
    expect(Math.abs(m.generation_time!.avg! - truthGeneration), `client ${m.generation_time!.avg}, truth ${truthGeneration}`)
      .toBeLessThanOrEqual(1);
    expect(m['llm_ttft{prompt:long}']).toBeDefined();
  }, 60_000);
});
