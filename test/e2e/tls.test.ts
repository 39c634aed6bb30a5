// HTTPS targets with a private CA. Runs in Node (vitest).
// Untrusted fails as a connection error; insecureSkipTLSVerify or a trusted CA (SSL_CERT_FILE) succeeds. The
// streams are the measuring agent's, so the CA must be trusted in its environment; the monitor's scrapes are k6's,
// so in k6's too.

import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRICS } from '../../lib/metrics';
import { SERVER_METRICS } from '../../lib/server-metrics';
import { cellMetricKey, readSummaryData } from '../../lib/summary-data';
import { buildBundles } from '../../orchestrator/bundles';
import { startSim, type SimServer } from '../../sim/server';
import { extraTags, readCsv, readJson, runScript, startTestAgent, tempDir, type RunResult } from './helpers';
import { SYNC_CHILD_LIMIT } from '../sync-child';

const MODEL = 'Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8';
const CELL = 'sweep_c256_o8_n2';
const SWEEP = { contexts: [256], concurrencies: [2], rounds: 2, outputTokens: 8 };
const SCHEDULE = {
  prefillTokensPerSecond: 100_000, decodeTokensPerSecond: 200, safetyFactor: 3, minCellSeconds: 3, gapSeconds: 0,
};

/** A throwaway CA and a server certificate for 127.0.0.1 it signed, with the openssl CLI. */
function makeCertificates(dir: string): { caFile: string; key: string; cert: string } {
  const f = (name: string): string => path.join(dir, name);
  const openssl = (...args: string[]): void => {
    execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'], ...SYNC_CHILD_LIMIT });
  };
  openssl(
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', f('ca.key'), '-out', f('ca.pem'), '-days', '2', '-subj',
    '/CN=k6-llm test CA',
  );
  openssl(
    'req', '-newkey', 'rsa:2048', '-nodes', '-keyout', f('server.key'), '-out', f('server.csr'), '-subj',
    '/CN=127.0.0.1',
  );
  writeFileSync(
    f('server.ext'),
    'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\n' +
      'extendedKeyUsage=serverAuth\n',
  );
  openssl(
    'x509', '-req', '-in', f('server.csr'), '-CA', f('ca.pem'), '-CAkey', f('ca.key'), '-CAcreateserial', '-out',
    f('server.pem'), '-days', '2', '-extfile', f('server.ext'),
  );
  return {
    caFile: f('ca.pem'), key: readFileSync(f('server.key'), 'utf8'), cert: readFileSync(f('server.pem'), 'utf8'),
  };
}

let certs: ReturnType<typeof makeCertificates>;
let sim: SimServer;

beforeAll(async () => {
  certs = makeCertificates(tempDir('tls'));
  [sim] = await Promise.all([
    startSim({ port: 0, fixed: { ttftMs: 20, itlMs: 5 }, tls: { key: certs.key, cert: certs.cert } }), buildBundles(),
  ]);
}, 120_000);

afterAll(async () => {
  await sim?.close();
});

interface SweepOutcome { passes: number; fails: number; errors: { kind: string; message: string }[]; scraped: boolean }

/**
 * What the sweep recorded: its requests, its errors, and whether the monitor's k6/http scrapes of /metrics got through.
 */
function outcome(r: RunResult): SweepOutcome {
  const data = readSummaryData(readJson(path.join(r.dir, 'summary.json')), 'summary.json');
  const ok = data.metrics[cellMetricKey(METRICS.requestOk.name, CELL)]!.values;
  const rows = readCsv(path.join(r.dir, 'samples.csv')).rows;
  const errors = rows
    .filter((x) => x.metric_name === METRICS.errors.name)
    .map((x) => ({ kind: extraTags(x).error_kind ?? '', message: x.metadata ?? '' }));
  return {
    passes: ok.passes ?? 0, fails: ok.fails ?? 0, errors,
    scraped: rows.some((x) => x.metric_name === SERVER_METRICS.running.name),
  };
}

describe('an HTTPS target with a private CA, on k6', () => {
  it('serves https', () => {
    expect(sim.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/v1$/);
  });

  it('fails every request as a connection error about the certificate when the CA is not trusted', async () => {
    const r = await runScript('sweep', { sweep: SWEEP, schedule: SCHEDULE }, { BASE_URL: sim.url, MODEL });
    expect(r.exitCode, r.stderr).toBe(0);
    const o = outcome(r);
    expect(o.passes).toBe(0);
    expect(o.fails).toBe(4);
    expect(o.errors).toHaveLength(4);
    for (const e of o.errors) {
      expect(e.kind).toBe('connection');
      expect(e.message).toContain('tls: failed to verify certificate: x509: certificate signed by unknown authority');
    }
    expect(o.scraped).toBe(false);
  }, 60_000);

  it('succeeds with target.insecureSkipTLSVerify', async () => {
    const r = await runScript(
      'sweep', { target: { insecureSkipTLSVerify: true }, sweep: SWEEP, schedule: SCHEDULE },
      { BASE_URL: sim.url, MODEL },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    expect(outcome(r)).toEqual({ passes: 4, fails: 0, errors: [], scraped: true });
  }, 60_000);

  it('succeeds with verification on when the CA is trusted through the environment', async () => {
    // An agent of its own, started with SSL_CERT_FILE set: Go reads the trusted roots once per process.
    const agent = await startTestAgent({ ...process.env, SSL_CERT_FILE: certs.caFile });
    try {
      const r = await runScript(
        'sweep', { sweep: SWEEP, schedule: SCHEDULE }, { BASE_URL: sim.url, MODEL, LLM_AGENT: agent.url },
        { extraEnv: { SSL_CERT_FILE: certs.caFile } },
      );
      expect(r.exitCode, r.stderr).toBe(0);
      expect(outcome(r)).toEqual({ passes: 4, fails: 0, errors: [], scraped: true });
    } finally {
      await agent.stop();
    }
  }, 60_000);

  it("fails the streams when only k6 trusts the CA: the agent's environment is what counts for them", async () => {
    const r = await runScript(
      'sweep', { sweep: SWEEP, schedule: SCHEDULE }, { BASE_URL: sim.url, MODEL },
      { extraEnv: { SSL_CERT_FILE: certs.caFile } },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    const o = outcome(r);
    expect([o.passes, o.fails, o.errors.map((e) => e.kind)]).toEqual([0, 4, Array(4).fill('connection')]);
    // The monitor's scrapes, k6's own requests, got through.
    expect(o.scraped).toBe(true);
  }, 60_000);
});
