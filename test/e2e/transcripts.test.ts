// Every recorded SSE transcript of the stream tests (test/lib/fixtures), served over real HTTP and read by the real bundle on k6 and on the runner: each is classified the same by both. Runs in Node (vitest).

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRICS } from '../../lib/metrics';
import { buildBundles } from '../../scripts/build';
import { readFixture } from '../lib/helpers/sse';
import { extraTags, readCsv, runScript, type CsvRow } from './helpers';

const FIXTURE_DIR = path.join(import.meta.dirname, '..', 'lib', 'fixtures');
const FIXTURES = readdirSync(FIXTURE_DIR).filter((f) => f.endsWith('.sse') || f.endsWith('.txt')).sort();

/** A transcript's HTTP answer: `http-<status>-*.txt` are error bodies, `*.sse` event streams with 200. */
function responseOf(name: string): { status: number; contentType: string; body: string } {
  const status = /^http-(\d+)/.exec(name);
  const body = readFixture(name);
  if (status) return { status: Number(status[1]), contentType: body.trimStart().startsWith('{') ? 'application/json' : 'text/plain', body };
  return { status: 200, contentType: 'text/event-stream', body };
}

let server: Server;
let served = 0;
let baseUrl = '';

beforeAll(async () => {
  await buildBundles();
  // Request k of a run gets transcript k: the plan below sends them one after another from one user.
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const r = responseOf(FIXTURES[served % FIXTURES.length]!);
      served++;
      res.writeHead(r.status, { 'content-type': r.contentType });
      res.end(r.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}, 120_000);

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

/** The outcome of each request in order: 'ok' or its error_kind. */
function outcomes(rows: readonly CsvRow[]): string[] {
  const ok = rows.filter((r) => r.metric_name === METRICS.requestOk.name).sort((a, b) => Number(a.timestamp) - Number(b.timestamp));
  const errors = rows.filter((r) => r.metric_name === METRICS.errors.name).sort((a, b) => Number(a.timestamp) - Number(b.timestamp));
  let e = 0;
  return ok.map((r) => (Number(r.metric_value) === 1 ? 'ok' : (extraTags(errors[e++]!).error_kind ?? '?')));
}

async function classify(engine: 'k6' | 'runner', flavour: 'llm' | 'sse'): Promise<Record<string, string>> {
  served = 0;
  const plan = {
    target: { metricsUrl: null },
    sweep: { contexts: [256], concurrencies: [1], rounds: FIXTURES.length, outputTokens: 8 },
    schedule: { prefillTokensPerSecond: 100_000, decodeTokensPerSecond: 100, safetyFactor: 2, minCellSeconds: 10, gapSeconds: 0 },
  };
  const r = await runScript('sweep', plan, { BASE_URL: baseUrl, MODEL: 'Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8' }, { engine, flavour });
  expect(r.exitCode, r.stderr).toBe(0);
  const got = outcomes(readCsv(path.join(r.dir, 'samples.csv')).rows);
  expect(got, `${engine}/${flavour}`).toHaveLength(FIXTURES.length);
  return Object.fromEntries(FIXTURES.map((f, i) => [f, got[i]!]));
}

describe('recorded transcripts over real HTTP', () => {
  let k6: Record<string, string>;
  let runner: Record<string, string>;
  beforeAll(async () => {
    k6 = await classify('k6', 'llm');
    runner = await classify('runner', 'llm');
  }, 120_000);

  it('are classified the same on k6 and on the runner (k6/x/llm)', () => {
    expect(runner).toEqual(k6);
  });

  it('are classified as the stream tests expect', () => {
    expect(k6).toEqual({
      'crlf.sse': 'ok',
      'http-400-no-newline.txt': 'http_4xx',
      'http-400-vllm.txt': 'http_4xx',
      'http-429.txt': 'http_429',
      'http-503.txt': 'http_5xx',
      'keep-alive.sse': 'ok',
      'llamacpp-no-done.sse': 'ok',
      'llamacpp-stream-error.sse': 'server_error',
      'malformed.sse': 'malformed_chunk',
      'no-usage.sse': 'ok',
      'sglang-multi-token.sse': 'ok',
      'truncated.sse': 'truncated',
      'vllm-chat.sse': 'ok',
      'vllm-completions.sse': 'ok',
      'vllm-error-in-stream.sse': 'server_error',
      'vllm-reasoning-content.sse': 'ok',
      'vllm-reasoning.sse': 'ok',
      'vllm-speculative.sse': 'ok',
      'vllm-tool-call.sse': 'ok',
      'zero-tokens.sse': 'no_tokens',
    });
  });
});
