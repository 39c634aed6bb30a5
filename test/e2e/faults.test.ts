// A failing server never crashes a run, and every failure is classified. Runs in Node (vitest).
// The real bundles run on a stock k6 with the measuring agent against simulators injecting faults.

import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_METRICS, METRICS, REQUEST_METRICS, SAMPLE_METADATA } from '../../lib/metrics';
import { cellMetricKey, readSummaryData } from '../../lib/summary-data';
import { buildBundles } from '../../orchestrator/bundles';
import { startSim } from '../../sim/server';
import { extraTags, readCsv, readJson, runScript, sampleRequestId, type RunResult } from './helpers';

const MODEL = 'Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8';
const MIXED_FAULTS =
  'error-status;status=503;p=0.15,reset-mid-stream;after=3;p=0.15,malformed-chunk;after=2;p=0.1,' +
  'error-in-stream;after=2;p=0.1,no-done;p=0.05';

beforeAll(async () => {
  await buildBundles();
}, 120_000);

function summaryOf(r: RunResult) {
  return readSummaryData(readJson(path.join(r.dir, 'summary.json')), 'summary.json');
}

describe('a run against a faulty server', () => {
  let sim: Awaited<ReturnType<typeof startSim>>;
  beforeAll(async () => {
    sim = await startSim({ port: 0, fixed: { ttftMs: 20, itlMs: 5 }, faults: MIXED_FAULTS });
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('completes, counts every request, and records failures by kind without touching latency figures', async () => {
    const plan = {
      sweep: { contexts: [256], concurrencies: [4], rounds: 15, outputTokens: 16 },
      schedule: {
        prefillTokensPerSecond: 100_000, decodeTokensPerSecond: 200, safetyFactor: 3, minCellSeconds: 5, gapSeconds: 0,
      },
    };
    const r = await runScript('sweep', plan, { BASE_URL: sim.url, MODEL });
    expect(r.exitCode, r.stderr).toBe(0);
    const data = summaryOf(r);
    const ok = data.metrics[cellMetricKey(METRICS.requestOk.name, 'sweep_c256_o16_n4')]!.values;
    expect(ok.passes! + ok.fails!).toBe(60);
    expect(ok.fails).toBeGreaterThan(0);
    expect(ok.passes).toBeGreaterThan(0);
    // Only completed requests enter the latency Trends.
    expect(data.metrics[cellMetricKey(METRICS.ttft.name, 'sweep_c256_o16_n4')]!.values.count).toBe(ok.passes);
    const errors = readCsv(path.join(r.dir, 'samples.csv')).rows.filter((x) => x.metric_name === METRICS.errors.name);
    expect(errors).toHaveLength(ok.fails!);
    const kinds = new Set(errors.map((x) => extraTags(x).error_kind));
    for (const k of kinds)
      expect(['http_5xx', 'stream_error', 'truncated', 'malformed_chunk', 'server_error']).toContain(k);
    expect(kinds.size).toBeGreaterThanOrEqual(3);
    // The message rides in the metadata column of llm_errors samples only (one line, at most 200 characters), never as
    // a tag.
    for (const x of errors) {
      expect(x.metadata).toMatch(/^error_message=[^\r\n]{1,200}$/);
      expect(extraTags(x)).not.toHaveProperty('error_message');
    }
    const all = readCsv(path.join(r.dir, 'samples.csv')).rows;
    expect(all.filter((x) => (x.metadata ?? '').includes(SAMPLE_METADATA.errorMessage)).length).toBe(errors.length);
    // A request's other samples name it by the server's x-request-id, where its answer had one (the simulator's 5xx
    // faults have none); its tokens' llm_itl do not.
    const named = new Set<string>([...Object.values(REQUEST_METRICS), ...Object.values(CLIENT_METRICS)]
      .map((m) => m.name));
    for (const m of [METRICS.itl, METRICS.errors]) named.delete(m.name);
    const perRequest = all.filter((x) => named.has(x.metric_name ?? ''));
    for (const x of perRequest) expect(x.metadata, x.metric_name).toMatch(/^(request_id=[0-9a-f-]{36})?$/);
    const completed = all.filter((x) => x.metric_name === METRICS.requestOk.name && Number(x.metric_value) === 1);
    expect(new Set(completed.map((x) => sampleRequestId(x) ?? '')).size).toBe(ok.passes);
    for (const x of all.filter((y) => y.metric_name === METRICS.ttft.name)) expect(sampleRequestId(x)).not.toBeNull();
    expect(all.filter((x) => x.metric_name === METRICS.itl.name).every((x) => x.metadata === '')).toBe(true);
  }, 120_000);
});

/**
 * One fault at a time, on every request: what k6 records. `kind` is the error_kind tag
 * (null: the request completes), `message` a part of the record's message the user must see.
 */
const CASES: { fault: string; kind: string | null; message?: string; target?: object; tokenSource?: string }[] = [
  { fault: 'error-status;status=503', kind: 'http_5xx', message: 'Injected fault: error-status 503.' },
  { fault: 'error-status;status=429', kind: 'http_429', message: 'Injected fault: error-status 429.' },
  { fault: 'error-status;status=400', kind: 'http_4xx', message: 'Injected fault: error-status 400.' },
  { fault: 'reset-mid-stream;after=3', kind: 'stream_error' },
  { fault: 'malformed-chunk;after=2', kind: 'malformed_chunk' },
  { fault: 'error-in-stream;after=2', kind: 'server_error', message: 'Injected fault: error-in-stream' },
  { fault: 'error-event;after=2', kind: 'server_error', message: 'Injected fault: error-event' },
  { fault: 'json-error', kind: 'server_error', message: 'Injected fault: json-error (model overloaded)' },
  { fault: 'no-done', kind: null },
  { fault: 'no-usage', kind: null, tokenSource: 'chunks' },
  // The stream goes quiet for 3 s; the idle timeout (0.5 s) ends it as stalled, not after the whole-request timeout.
  { fault: 'stall;after=2;ms=3000', kind: 'stalled', target: { idleTimeoutSeconds: 0.5 } },
];

describe('each fault on its own', () => {
  it.each(CASES)('$fault -> $kind', async ({ fault, kind, message, target, tokenSource }) => {
    const sim = await startSim({ port: 0, fixed: { ttftMs: 10, itlMs: 5 }, faults: `${fault};p=1` });
    try {
      const plan = {
        target: target ?? {}, sweep: { contexts: [256], concurrencies: [1], rounds: 2, outputTokens: 8 },
        schedule: {
          prefillTokensPerSecond: 100_000, decodeTokensPerSecond: 200, safetyFactor: 3, minCellSeconds: 5,
          gapSeconds: 0,
        },
        monitor: { intervalSeconds: 0.5 },
      };
      const r = await runScript('sweep', plan, { BASE_URL: sim.url, MODEL });
      expect(r.exitCode, r.stderr).toBe(0);
      const rows = readCsv(path.join(r.dir, 'samples.csv')).rows;
      const errors = rows.filter((x) => x.metric_name === METRICS.errors.name).map((x) => extraTags(x).error_kind);
      if (kind === null) {
        expect(errors).toEqual([]);
        expect(rows.filter((x) => x.metric_name === METRICS.ttft.name)).toHaveLength(2);
      } else {
        expect(errors).toEqual([kind, kind]);
        // The first failure of a cell is logged with the server's or transport's own words.
        if (message) expect(r.stderr + r.stdout).toContain(message);
      }
      if (tokenSource) {
        const sources = rows
          .filter((x) => x.metric_name === METRICS.outputTokens.name)
          .map((x) => extraTags(x).token_source);
        expect(sources).toEqual([tokenSource, tokenSource]);
      }
    } finally {
      await sim.close();
    }
  }, 60_000);
});
