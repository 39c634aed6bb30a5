// End to end: every entry script's real bundle on the project's k6, against the real simulator. Runs in Node (vitest).
// The simulator runs over loopback with fixed timing: 50 ms TTFT, 10 ms ITL.

import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRICS } from '../../lib/metrics';
import { readSummaryData, cellMetricKey, type SummaryData } from '../../lib/summary-data';
import { buildBundles } from '../../orchestrator/bundles';
import { startSim } from '../../sim/server';
import { extraTags, readCsv, readJson, runScript, tempDir } from './helpers';
import { serverDecodeSpeeds } from './server-speed';
import { preparePrompts } from '../../tokenizer/prepare-prompts';
import { readPlanFile } from '../../report/inputs';

const K6_CSV_HEADER = (
  'metric_name,timestamp,metric_value,check,error,error_code,expected_response,group,method,name,proto,' +
  'scenario,service,status,subproto,tls_version,url,extra_tags,metadata'
).split(',');
const TTFT_MS = 50;
const ITL_MS = 10;
const OUTPUT = 20;

let sim: Awaited<ReturnType<typeof startSim>>;
let env: Record<string, string>;

/** Slots sized for the fixed timing, so a test run takes seconds. */
const FAST_SCHEDULE = {
  prefillTokensPerSecond: 100_000, decodeTokensPerSecond: 100, safetyFactor: 2, minCellSeconds: 1, gapSeconds: 0.2,
};

beforeAll(async () => {
  await buildBundles();
  sim = await startSim({ port: 0, fixed: { ttftMs: TTFT_MS, itlMs: ITL_MS }, groundTruth: true });
  env = { BASE_URL: sim.url, MODEL: 'Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8' };
}, 120_000);

afterAll(async () => {
  await sim?.close();
});

const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

function summaryOf(dir: string): SummaryData {
  return readSummaryData(readJson(path.join(dir, 'summary.json')), 'summary.json');
}

describe('on k6: sweep', () => {
  let result: Awaited<ReturnType<typeof runScript>>;
  beforeAll(async () => {
    sim.clearGroundTruth();
    result = await runScript(
      'sweep',
      {
        sweep: { contexts: [256], concurrencies: [1, 2], rounds: 2, outputTokens: OUTPUT }, schedule: FAST_SCHEDULE,
        monitor: { intervalSeconds: 0.25 },
      },
      env,
    );
  }, 120_000);

  it('exits 0 and writes summary.json, plan.json and the CSV', () => {
    expect(result.exitCode, result.stderr).toBe(0);
    for (const f of ['summary.json', 'plan.json', 'samples.csv', 'summary-export.json'])
      expect(existsSync(path.join(result.dir, f)), f).toBe(true);
    const plan = readPlanFile(path.join(result.dir, 'plan.json'));
    expect(plan.cells.map((c) => c.id)).toEqual(['sweep_c256_o20_n1', 'sweep_c256_o20_n2']);
    expect(result.stdout).toContain('sweep_c256_o20_n2');
  });

  it("measures each cell's timing as the simulator's own record of it has it", () => {
    const data = summaryOf(result.dir);
    // Judged against what the server did (its per-token record), not its nominal timing: on a loaded machine the
    // server itself runs late, and a client that measures that lateness is right. The cells ran one after the other.
    const truth = sim.groundTruth().filter((t) => t.stream).sort((a, b) => a.arrivalEpochMs - b.arrivalEpochMs);
    let at = 0;
    for (const [cell, requests] of [['sweep_c256_o20_n1', 2], ['sweep_c256_o20_n2', 4]] as const) {
      const served = truth.slice(at, (at += requests));
      const servedTtft = mean(served.map((t) => t.tokenEpochMs[0]! - t.arrivalEpochMs));
      const servedItl = mean(served.flatMap((t) => t.tokenEpochMs.slice(1).map((x, i) => x - t.tokenEpochMs[i]!)));
      const ttft = data.metrics[cellMetricKey(METRICS.ttft.name, cell)]!.values;
      const itl = data.metrics[cellMetricKey(METRICS.itl.name, cell)]!.values;
      const speed = data.metrics[cellMetricKey(METRICS.decodeSpeed.name, cell)]!.values;
      expect(ttft.count).toBe(requests);
      // The client's TTFT starts before the server has the request: never below the server's, a trip above it.
      expect(ttft.avg!, `served ${servedTtft} ms`).toBeGreaterThanOrEqual(servedTtft - 1);
      expect(ttft.avg! - servedTtft, `served ${servedTtft} ms`).toBeLessThan(40);
      expect(itl.count).toBe(requests * (OUTPUT - 1));
      expect(Math.abs(itl.avg! - servedItl), `served ${servedItl} ms`).toBeLessThan(0.5 + 0.05 * servedItl);
      // A mean of per-request speeds against the server's mean of the same, not against 1000 / its mean ITL: under load
      // one request's tokens can come late and bunched, and a mean of reciprocals then exceeds the reciprocal of the
      // mean (1.16 times it here once, four busy loops beside the main group, with a client exact to the record).
      const servedSpeed = mean(serverDecodeSpeeds(served));
      expect(speed.avg! / servedSpeed, `served ${servedSpeed} tok/s`).toBeGreaterThan(0.9);
      expect(speed.avg! / servedSpeed, `served ${servedSpeed} tok/s`).toBeLessThan(1.1);
    }
    expect(data.metrics[METRICS.outputTokens.name]!.values.count).toBe(6 * OUTPUT);
    expect(data.metrics[METRICS.requestOk.name]!.values.rate).toBe(1);
  });

  it('writes k6 CSV columns, with cell tags on every request sample and monitor samples', () => {
    const { header, rows } = readCsv(path.join(result.dir, 'samples.csv'));
    expect(header).toEqual(K6_CSV_HEADER);
    const ttftRows = rows.filter((r) => r.metric_name === METRICS.ttft.name);
    expect(ttftRows).toHaveLength(6);
    for (const r of ttftRows) {
      expect(Number(r.timestamp)).toBeGreaterThan(1e12); // unix_milli
      const tags = extraTags(r);
      expect(tags.cell).toBe(r.scenario);
      expect(tags).toMatchObject({ script: 'sweep', context: '256', output: String(OUTPUT) });
      expect(['1', '2']).toContain(tags.concurrency);
    }
    const tokenRows = rows.filter((r) => r.metric_name === METRICS.outputTokens.name);
    expect(tokenRows.every((r) => extraTags(r).token_source === 'usage')).toBe(true);
    // Sweep cells have no use case: no request is judged for goodput.
    expect(rows.filter((r) => r.metric_name === METRICS.goodput.name)).toHaveLength(0);
    const monitor = rows.filter((r) => r.metric_name === METRICS.running.name);
    expect(monitor.length).toBeGreaterThan(0);
    expect(monitor.every((r) => r.scenario === 'monitor')).toBe(true);
  });
});

describe('on k6: gate', () => {
  const gatePlan = (ttftLimitMs: number) => ({
    useCases: [
      {
        id: 'tiny_chat', title: 'Tiny chat', contextTokens: 256, outputTokens: OUTPUT, concurrencies: [1, 2],
        limits: [{ metric: 'ttft', operator: '<', value: ttftLimitMs, label: `TTFT < ${ttftLimitMs} ms` }],
      },
    ],
    gate: { useCase: 'tiny_chat', concurrency: 2, rounds: 1 },
    schedule: FAST_SCHEDULE,
  });

  /** The llm_goodput values of a run's requests, from its CSV. */
  const goodputOf = (dir: string): number[] =>
    readCsv(path.join(dir, 'samples.csv')).rows
      .filter((x) => x.metric_name === METRICS.goodput.name)
      .map((x) => Number(x.metric_value));

  it('exits 0 when the use case limits hold, every request judged good', async () => {
    const r = await runScript('gate', gatePlan(5000), env);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(goodputOf(r.dir)).toEqual([1, 1]);
  }, 60_000);

  it('exits 99 and names the crossed threshold when a limit fails', async () => {
    const r = await runScript('gate', gatePlan(10), env);
    expect(r.exitCode).toBe(99);
    // Each request's own TTFT (50 ms) breaks TTFT < 10 ms: none is good.
    expect(goodputOf(r.dir)).toEqual([0, 0]);
    expect(r.stderr).toContain('llm_ttft{cell:gate_tiny_chat_n2}');
    const data = summaryOf(r.dir);
    const ttft = data.metrics[cellMetricKey(METRICS.ttft.name, 'gate_tiny_chat_n2')]!;
    expect(ttft.thresholds!['avg<10']!.ok).toBe(false);
  }, 60_000);
});

describe('on k6: capacity, burst and mix', () => {
  it('capacity runs one cell per ladder step with use_case tags', async () => {
    const r = await runScript(
      'capacity',
      {
        useCases: [
          {
            id: 'tiny_chat', title: 'Tiny chat', contextTokens: 256, outputTokens: OUTPUT, concurrencies: [1, 3],
            limits: [{ metric: 'ttft', operator: '<', value: 5000, label: 'TTFT < 5 s' }],
          },
        ],
        capacity: { rounds: 1 },
        schedule: FAST_SCHEDULE,
      },
      env,
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const data = summaryOf(r.dir);
    // One warm-up request per user (tag phase=warmup), then one measured: the cell's figures hold the 3 measured.
    expect(
      data.metrics[cellMetricKey(METRICS.ttft.name, { id: 'capacity_tiny_chat_n3', warmupRounds: 1 })]!.values.count,
    ).toBe(3);
    const rows = readCsv(path.join(r.dir, 'samples.csv')).rows.filter((x) => x.metric_name === METRICS.e2e.name);
    expect(rows.every((x) => extraTags(x).use_case === 'tiny_chat')).toBe(true);
  }, 60_000);

  it('burst sends all requests of a depth at once', async () => {
    const r = await runScript(
      'burst', { burst: { profiles: ['chatbot_short'], depths: [1, 4] }, schedule: FAST_SCHEDULE }, env,
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const data = summaryOf(r.dir);
    expect(data.metrics[cellMetricKey(METRICS.ttft.name, 'burst_chatbot_short_q4')]!.values.count).toBe(4);
  }, 60_000);

  it('mix runs each profile at each concurrency', async () => {
    const r = await runScript(
      'mix', { mix: { profiles: ['chatbot_short'], concurrencies: [1, 2], rounds: 1 }, schedule: FAST_SCHEDULE }, env,
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const data = summaryOf(r.dir);
    expect(data.metrics[cellMetricKey(METRICS.e2e.name, 'mix_chatbot_short_n2')]!.values.count).toBe(2);
    expect(data.metrics[cellMetricKey(METRICS.outputTokens.name, 'mix_chatbot_short_n2')]).toBeUndefined();
  }, 60_000);
});

describe('on k6: bad input', () => {
  it('refuses prompts prepared for the other API style (exit 107, one clear line)', async () => {
    const dir = tempDir('prompts');
    const file = path.join(dir, 'prompts.json');
    writeFileSync(
      file,
      JSON.stringify(await preparePrompts({
        model: 'Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8', api: 'completions', contexts: [256], tokenizer: 'qwen3',
      })),
    );
    const r = await runScript(
      'sweep',
      { sweep: { contexts: [256], concurrencies: [1], rounds: 1, outputTokens: 4 }, schedule: FAST_SCHEDULE },
      { ...env, PROMPTS: file },
    );
    expect(r.exitCode).toBe(107);
    expect(r.stderr).toContain('were prepared for the completions API but the plan uses chat');
  }, 60_000);

  it('a plan with an unknown field fails with a one-line error naming it', async () => {
    const r = await runScript('sweep', { sweep: { contexts: [256], concurency: [1] } }, env);
    expect(r.exitCode).toBe(107);
    expect(r.stderr).toContain('sweep.concurency');
    // No stack, neither on its own lines nor escaped inside k6's one-line log message ("\n\tat file:...").
    expect(r.stderr).not.toMatch(/\n\s+at |\\tat |at file:/);
  }, 60_000);
});
