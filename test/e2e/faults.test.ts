// A failing server never crashes a run: the real bundle on the runner against a simulator injecting faults records each failure by kind and goes on. Runs in Node (vitest).

import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRICS } from '../../lib/metrics';
import { cellMetricKey, readSummaryData } from '../../lib/summary-data';
import { buildBundles } from '../../scripts/build';
import { startSim } from '../../sim/server';
import { extraTags, readCsv, readJson, runScript } from './helpers';

const FAULTS = 'error-status;status=503;p=0.15,reset-mid-stream;after=3;p=0.15,malformed-chunk;after=2;p=0.1,error-in-stream;after=2;p=0.1,no-done;p=0.05';

let sim: Awaited<ReturnType<typeof startSim>>;
beforeAll(async () => {
  await buildBundles();
  sim = await startSim({ port: 0, fixed: { ttftMs: 20, itlMs: 5 }, faults: FAULTS });
}, 120_000);
afterAll(async () => {
  await sim?.close();
});

describe('a run against a faulty server', () => {
  it('completes, counts every request, and records failures by kind without touching latency figures', async () => {
    const plan = { sweep: { contexts: [256], concurrencies: [4], rounds: 15, outputTokens: 16 }, schedule: { prefillTokensPerSecond: 100_000, decodeTokensPerSecond: 200, safetyFactor: 3, minCellSeconds: 5, gapSeconds: 0 } };
    const r = await runScript('sweep', plan, { BASE_URL: sim.url, MODEL: 'Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8' });
    expect(r.exitCode, r.stderr).toBe(0);
    const data = readSummaryData(readJson(path.join(r.dir, 'summary.json')), 'summary.json');
    const ok = data.metrics[cellMetricKey(METRICS.requestOk.name, 'sweep_c256_o16_n4')]!.values;
    expect(ok.passes! + ok.fails!).toBe(60);
    expect(ok.fails).toBeGreaterThan(0);
    expect(ok.passes).toBeGreaterThan(0);
    // Only completed requests enter the latency Trends.
    expect(data.metrics[cellMetricKey(METRICS.ttft.name, 'sweep_c256_o16_n4')]!.values.count).toBe(ok.passes);
    const errors = readCsv(path.join(r.dir, 'samples.csv')).rows.filter((x) => x.metric_name === METRICS.errors.name);
    expect(errors).toHaveLength(ok.fails!);
    const kinds = new Set(errors.map((x) => extraTags(x).error_kind));
    for (const k of kinds) expect(['http_5xx', 'stream_error', 'truncated', 'malformed_chunk', 'server_error']).toContain(k);
    expect(kinds.size).toBeGreaterThanOrEqual(3);
  }, 120_000);
});
