// Replays every golden transcript of agent/testdata/transcripts to a stock k6 and the measuring agent. Runs in Node
// (vitest). Each is served over real HTTP, read by the agent and pushed by the real bundle on k6: each request ends as
// its expected record says.

import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRICS } from '../../lib/metrics';
import { buildBundles } from '../../orchestrator/bundles';
import { extraTags, readCsv, ROOT, runScript, type CsvRow } from './helpers';

const DIR = path.join(ROOT, 'agent', 'testdata', 'transcripts');
const NAMES = readdirSync(DIR).filter((f) => f.endsWith('.http')).map((f) => f.slice(0, -'.http'.length)).sort();

interface Transcript {
  readonly status: number;
  readonly contentType: string;
  readonly reset: boolean;
  readonly body: Buffer;
}

/**
 * Reads the transcript format the Go tests define (agent/transcript_test.go): comments, three header lines, a blank
 * line, the body.
 */
function readTranscript(name: string): Transcript {
  const raw = readFileSync(path.join(DIR, `${name}.http`));
  let at = 0;
  const head: Record<string, string> = {};
  for (;;) {
    const nl = raw.indexOf(0x0a, at);
    const line = raw.subarray(at, nl).toString('utf8');
    at = nl + 1;
    if (line === '') break;
    if (line.startsWith('#')) continue;
    const [k, v] = line.split(': ');
    head[k!] = v!;
  }
  return {
    status: Number(head.status), contentType: head['content-type']!, reset: head.end === 'reset',
    body: raw.subarray(at),
  };
}

/** What the expected record says a request ends as: 'ok' or its error kind. */
function expected(name: string): string {
  const r = JSON.parse(readFileSync(path.join(DIR, `${name}.record.json`), 'utf8')) as {
    outcome: string;
    errorKind?: string;
  };
  return r.outcome === 'completed' ? 'ok' : r.errorKind!;
}

let server: Server;
let served = 0;
let baseUrl = '';

beforeAll(async () => {
  await buildBundles();
  // Request k of the run gets transcript k: the plan below sends them one after another from one user.
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const t = readTranscript(NAMES[served % NAMES.length]!);
      served++;
      res.writeHead(t.status, { 'content-type': t.contentType });
      if (!t.reset) {
        res.end(t.body);
        return;
      }
      res.write(t.body, () => setTimeout(() => res.socket?.resetAndDestroy(), 20));
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
  const ok = rows
    .filter((r) => r.metric_name === METRICS.requestOk.name)
    .sort((a, b) => Number(a.timestamp) - Number(b.timestamp));
  const errors = rows
    .filter((r) => r.metric_name === METRICS.errors.name)
    .sort((a, b) => Number(a.timestamp) - Number(b.timestamp));
  let e = 0;
  return ok.map((r) => (Number(r.metric_value) === 1 ? 'ok' : (extraTags(errors[e++]!).error_kind ?? '?')));
}

describe('golden transcripts over real HTTP, on k6 and the agent', () => {
  it('each ends as its expected record says', async () => {
    const plan = {
      target: { metricsUrl: null },
      sweep: { contexts: [256], concurrencies: [1], rounds: NAMES.length, outputTokens: 8 },
      schedule: {
        prefillTokensPerSecond: 100_000, decodeTokensPerSecond: 100, safetyFactor: 2, minCellSeconds: 10, gapSeconds: 0,
      },
    };
    const r = await runScript('sweep', plan, { BASE_URL: baseUrl, MODEL: 'Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8' });
    expect(r.exitCode, r.stderr).toBe(0);
    const got = outcomes(readCsv(path.join(r.dir, 'samples.csv')).rows);
    expect(Object.fromEntries(NAMES.map((n, i) => [n, got[i]]))).toEqual(
      Object.fromEntries(NAMES.map((n) => [n, expected(n)])),
    );
  }, 120_000);
});
