// The examples/ scripts a k6 user would write with dist/llm.js, each run as its header says: a stock k6 with the
// measuring agent beside it (-e LLM_AGENT). Runs in Node (vitest).
// They run against the simulator (fixed timing); what they measure is judged against its ground truth. The simulator
// runs in its own process on the first core, k6 and the agent on the last (coreSplit, as accuracy.test.ts): in the
// vitest worker beside k6 it reached its handlers late, and the client's TTFT median read 6.7 ms over a truth that
// starts there (CI, this session).

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { percentile, sortValues } from '../analysis/stats';
import { startAgent, type AgentProcess } from '../orchestrator/agent-process';
import { clearGroundTruth, fetchGroundTruth, startSimChild, type SimChild } from '../sim/child';
import type { GroundTruthRecord } from '../sim/server';
import { coreSplit, ROOT, tempDir, testEngine } from './e2e/helpers';

const cores = coreSplit();
let sim: SimChild | undefined;
let agent: AgentProcess | undefined;

beforeAll(async () => {
  sim = await startSimChild(['--fixed-ttft-ms', '40', '--fixed-itl-ms', '8', '--ground-truth'], cores.sim);
  agent = await startAgent({ prefix: cores.client });
});

beforeEach(async () => {
  await clearGroundTruth(sim!.base);
});

afterAll(async () => {
  await agent?.stop();
  await sim?.stop();
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
      LLM_AGENT: agent!.url, BASE_URL: `${sim!.base}/v1`, MODEL: 'Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8', ...env,
    }).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
    path.join(ROOT, 'examples', name),
  ];
  return new Promise((resolve, reject) => {
    const [program, ...lead] = [...cores.client, testEngine().command[0]!];
    const child = spawn(program!, [...lead, ...args], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      fetchGroundTruth(sim!.base).then((truth) => resolve({
        code: code ?? -1, stderr, summary: JSON.parse(readFileSync(summary, 'utf8')) as Run['summary'], truth,
      }), reject);
    });
  });
}

const ttftOf = (t: GroundTruthRecord): number => t.tokenEpochMs[0]! - t.arrivalEpochMs;
const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

describe('examples/', () => {
  it('chat-load-test.js: passes its thresholds, one ITL sample per token after the first, ' +
    'TTFT as the server sent it', async () => {
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
    // Its own metric, first token to the end of the stream, is the server's on average, at most 5 ms above, as
    // accuracy.test.ts bounds TTFT. The record's end is when the agent finished reading the stream, never before the
    // server wrote it; the first token's stamp is late by its trip, which the client's TTFT also carries. So the
    // client's mean can fall below the server's by at most the first token's mean lateness, which is no more than
    // the client's mean TTFT above the server's (0.55 ms below in one busy CI run), plus 0.5 ms of rounding.
    expect(r.truth).toHaveLength(8);
    const truthGeneration = mean(r.truth.map((t) => t.endEpochMs! - t.tokenEpochMs[0]!));
    const firstTokenLateness = m.llm_ttft!.avg! - mean(r.truth.map(ttftOf));
    const msg = `client ${m.generation_time!.avg}, truth ${truthGeneration}, TTFT lateness ${firstTokenLateness}`;
    expect(firstTokenLateness, msg).toBeGreaterThanOrEqual(-0.5);
    expect(m.generation_time!.avg! - truthGeneration, msg).toBeGreaterThanOrEqual(-firstTokenLateness - 0.5);
    expect(m.generation_time!.avg! - truthGeneration, msg).toBeLessThanOrEqual(5);
    expect(m['llm_ttft{prompt:long}']).toBeDefined();
  }, 60_000);
});
