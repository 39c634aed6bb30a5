// Executor semantics through the CLI: per-vu-iterations counts, startTime, gracefulStop, and the refusal of other executors. Runs in Node.
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

  it('counts every iteration in the summary', () => {
    expect(summary.metrics.fx_iter!.count).toBe(7);
    expect(summary.metrics.iterations!.count).toBe(7);
  });

  it('honours startTime: the later scenario starts after 1500 ms', () => {
    const t = rows.filter((r) => r.metric_name === 'fx_started_ms' && r.scenario === 'later').map((r) => Number(r.metric_value));
    expect(t).toHaveLength(1);
    expect(t[0]).toBeGreaterThanOrEqual(1500);
    expect(t[0]).toBeLessThan(2500);
  });
});

describe('other executors', () => {
  it('exit 104 before any VU runs, with one error line naming the supported executor', async () => {
    const r = await runCli(['run', '-q', join(FIXTURES, 'unsupported-executor.js')]);
    expect(r.code).toBe(104);
    expect(r.stderr).toBe('level=error msg="scenario \\"steady\\": executor \\"constant-vus\\" is not supported by the local runner (supported: per-vu-iterations)"\n');
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
