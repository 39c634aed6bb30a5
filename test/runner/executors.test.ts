// Executor semantics through the CLI: iteration and VU counts per executor, startTime, dropped iterations, gracefulStop. Runs in Node.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consoleMessages, FIXTURES, listen, runCli, tempDir, type CliResult, type TestServer } from './helpers';

type Row = Record<string, string>;

function extra(row: Row): Record<string, string> {
  return Object.fromEntries(row.extra_tags!.split('&').filter(Boolean).map((kv) => kv.split('=') as [string, string]));
}

describe('executors', () => {
  let dir = '';
  let result: CliResult;
  let rows: Row[] = [];
  let summary: { metrics: Record<string, Record<string, number>> };

  beforeAll(async () => {
    dir = tempDir('runner-exec-');
    result = await runCli(['run', '-q', '--out', 'csv=fileName=s.csv,timeFormat=unix_milli', '--summary-export', 'sum.json', join(FIXTURES, 'executors.js')], { cwd: dir });
    rows = Papa.parse<Row>(readFileSync(join(dir, 's.csv'), 'utf8'), { header: true, skipEmptyLines: true }).data;
    summary = JSON.parse(readFileSync(join(dir, 'sum.json'), 'utf8')) as typeof summary;
  });

  const iterRows = (sc: string): Row[] => rows.filter((r) => r.metric_name === 'fx_iter' && r.scenario === sc);
  const vus = (sc: string): Set<string> => new Set(iterRows(sc).map((r) => extra(r).vuid!));

  it('exits 0', () => {
    expect(result.stderr).not.toContain('level=error');
    expect(result.code).toBe(0);
  });

  it('per-vu-iterations: vus x iterations on distinct VUs; init code ran per VU', () => {
    expect(iterRows('pv')).toHaveLength(6);
    expect(vus('pv').size).toBe(3);
    // A module-level counter counts this VU's iterations only: never above 2.
    const counts = rows.filter((r) => r.metric_name === 'fx_per_vu_count' && r.scenario === 'pv').map((r) => Number(r.metric_value));
    expect(Math.max(...counts)).toBe(2);
    expect(iterRows('pv').map((r) => Number(extra(r).itn)).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('shared-iterations: exactly the iterations, spread over at most vus VUs', () => {
    expect(iterRows('sh')).toHaveLength(5);
    expect(vus('sh').size).toBeLessThanOrEqual(2);
  });

  it('constant-vus: both VUs loop for the duration (about 5 iterations each at 200 ms)', () => {
    expect(vus('cv').size).toBe(2);
    expect(iterRows('cv').length).toBeGreaterThanOrEqual(6);
    expect(iterRows('cv').length).toBeLessThanOrEqual(12);
  });

  it('constant-arrival-rate: rate x duration plus the arrival at the end, as k6 does', () => {
    expect(iterRows('car')).toHaveLength(11);
  });

  it('ramping-arrival-rate: the integral of the rate ramp (0 -> 20/s over 1 s = 10)', () => {
    expect(iterRows('rar').length).toBeGreaterThanOrEqual(9);
    expect(iterRows('rar').length).toBeLessThanOrEqual(11);
  });

  it('counts dropped_iterations when the arrival rate outpaces maxVUs', () => {
    const dropped = rows.filter((r) => r.metric_name === 'dropped_iterations' && r.scenario === 'drop');
    expect(iterRows('drop').length).toBeGreaterThanOrEqual(3);
    expect(iterRows('drop').length).toBeLessThanOrEqual(7);
    expect(dropped.length + iterRows('drop').length).toBe(21);
    expect(summary.metrics.dropped_iterations!.count).toBe(dropped.length);
  });

  it('honours startTime: the later scenario starts after 1500 ms', () => {
    const t = rows.filter((r) => r.metric_name === 'fx_started_ms' && r.scenario === 'later').map((r) => Number(r.metric_value));
    expect(t).toHaveLength(1);
    expect(t[0]).toBeGreaterThanOrEqual(1500);
    expect(t[0]).toBeLessThan(2500);
  });
});

describe('gracefulStop', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await listen((req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' });
      res.write('data: first\n\n');
      const t = setInterval(() => res.write('data: tick\n\n'), 50);
      req.on('close', () => clearInterval(t));
    });
  });
  afterAll(() => server.close());

  it('cuts a stream still open at maxDuration + gracefulStop and counts the iteration interrupted', async () => {
    const dir = tempDir('runner-grace-');
    const t0 = Date.now();
    const r = await runCli(['run', '-q', '-e', `BASE_URL=${server.url}`, '--out', 'csv=fileName=s.csv,timeFormat=unix_milli', '--summary-export', 'sum.json', join(FIXTURES, 'graceful.js')], { cwd: dir });
    expect(r.code).toBe(0);
    expect(Date.now() - t0).toBeLessThan(15_000);
    expect(JSON.parse(consoleMessages(r.stderr)[0]!)).toEqual({ interrupted: 1, completed: 0 });
    const rows = Papa.parse<Row>(readFileSync(join(dir, 's.csv'), 'utf8'), { header: true, skipEmptyLines: true }).data;
    const cut = rows.filter((row) => row.scenario === 'cut');
    // Events before the cut were counted; the end-of-stream samples and the code after open never happened.
    expect(cut.filter((row) => row.metric_name === 'sse_event').length).toBeGreaterThan(3);
    expect(cut.filter((row) => row.metric_name === 'http_req_sending')).toHaveLength(1);
    expect(cut.filter((row) => ['http_reqs', 'http_req_duration', 'iterations', 'fx_after_open'].includes(row.metric_name!))).toEqual([]);
    // No sample of the cut scenario is stamped after the cut (~600 ms after its start).
    const first = Math.min(...cut.map((row) => Number(row.timestamp)));
    const last = Math.max(...cut.map((row) => Number(row.timestamp)));
    expect(last - first).toBeLessThan(800);
  });
});
