// Runs the real-k6 reference script, cut to what the runner supports, through the runner and checks every output has k6's shape (test/fixtures/k6-golden). Runs in Node.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURES, runCli, tempDir, type CliResult } from './helpers';
import { GOLDEN_DIR } from '../fixtures/golden';

const GOLDEN = GOLDEN_DIR;

type Row = Record<string, string>;
type Json = Record<string, unknown>;

/** Metrics of golden.js's check() and group(), which the runner does not provide (the suite's bundles never use them). */
const NOT_PROVIDED = new Set(['checks', 'group_duration']);
const provided = (names: Iterable<string>): string[] => [...names].filter((n) => !NOT_PROVIDED.has(n)).sort();

function readCsv(path: string): { fields: string[]; rows: Row[] } {
  const parsed = Papa.parse<Row>(readFileSync(path, 'utf8'), { header: true, skipEmptyLines: true });
  expect(parsed.errors).toEqual([]);
  return { fields: parsed.meta.fields ?? [], rows: parsed.data };
}

/**
 * For each metric: which tag columns are filled and which extra_tags keys appear (values and order vary run to run).
 * `ignore` leaves columns out: golden.js's group "errors" fills `group`, which is empty at the root, where all the runner's samples are.
 */
function columnUse(rows: readonly Row[], ignore: readonly string[] = []): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const row of rows) {
    if (NOT_PROVIDED.has(row.metric_name!)) continue;
    const used = Object.entries(row)
      .filter(([k, v]) => v !== '' && !['metric_name', 'timestamp', 'metric_value', 'extra_tags', ...ignore].includes(k))
      .map(([k]) => k)
      .sort();
    const extra = row.extra_tags!.split('&').filter(Boolean).map((kv) => kv.split('=')[0]).sort();
    const key = `${used.join(',')} | ${extra.join(',')}`;
    const set = out.get(row.metric_name!) ?? new Set<string>();
    set.add(key);
    out.set(row.metric_name!, set);
  }
  return out;
}

let dir = '';
let server: ChildProcess;
let baseUrl = '';
let result: CliResult;

beforeAll(async () => {
  dir = tempDir('runner-golden-');
  // A copy of the reference server, told to report the port it really got.
  const src = readFileSync(join(GOLDEN, 'server.mjs'), 'utf8').replace("console.log('listening ' + port)", "console.log('listening ' + s.address().port)");
  writeFileSync(join(dir, 'server.mjs'), src);
  server = spawn(process.execPath, [join(dir, 'server.mjs')], { env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<string>((res) => server.stdout!.on('data', (d: Buffer) => {
    const m = /listening (\d+)/.exec(d.toString());
    if (m) res(m[1]!);
  }));
  baseUrl = `http://127.0.0.1:${port}`;
  result = await runCli(
    ['run', '-q', '-e', `BASE_URL=${baseUrl}`, '--out', 'csv=fileName=samples-unix-milli.csv,timeFormat=unix_milli', '--out', 'csv=samples.csv', '--out', 'json=samples.ndjson', '--summary-export=summary-export.json', join(FIXTURES, 'golden-supported.js')],
    { cwd: dir },
  );
});

afterAll(() => {
  server?.kill();
});

describe('golden-supported.js through the runner, against the real k6 run of golden.js', () => {
  it('exits 99 and names the same crossed thresholds on stderr', () => {
    expect(result.code).toBe(99);
    const golden = /msg="(thresholds on metrics '[^']*' have been crossed)"/.exec(readFileSync(join(GOLDEN, 'k6-stderr.txt'), 'utf8'))![1];
    expect(result.stderr).toMatch(/time="[^"]+" level=error msg="thresholds on metrics '[^']*' have been crossed"/);
    expect(result.stderr).toContain(golden);
    expect(result.stdout).toContain('summary written');
  });

  it('writes CSV with the same header and per-metric tag columns as k6', () => {
    for (const [ours, theirs] of [
      ['samples-unix-milli.csv', 'samples-unix-milli.csv'],
      ['samples.csv', 'samples.csv'],
    ] as const) {
      const a = readCsv(join(GOLDEN, theirs));
      const b = readCsv(join(dir, ours));
      expect(b.fields).toEqual(a.fields);
      const ca = columnUse(a.rows, ['group']);
      const cb = columnUse(b.rows);
      expect([...cb.keys()].sort()).toEqual([...ca.keys()].sort());
      for (const [metric, uses] of ca) expect([...cb.get(metric)!].sort(), metric).toEqual([...uses].sort());
    }
  });

  it('writes timestamps in k6 units: whole ms with unix_milli, whole seconds by default', () => {
    const milli = readCsv(join(dir, 'samples-unix-milli.csv')).rows;
    const sec = readCsv(join(dir, 'samples.csv')).rows;
    expect(milli[0]!.timestamp).toMatch(/^\d{13}$/);
    expect(sec[0]!.timestamp).toMatch(/^\d{10}$/);
    expect(milli.every((r) => /^-?\d+\.\d{6}$/.test(r.metric_value!))).toBe(true);
    expect(Math.abs(Number(milli[0]!.timestamp) - Date.now())).toBeLessThan(120_000);
  });

  it('counts what the script did: 2x2 + 3x2 + 6 steady streams, 7 monitor requests, the 500 as failed', () => {
    const rows = readCsv(join(dir, 'samples-unix-milli.csv')).rows;
    const count = (metric: string, scenario: string): number => rows.filter((r) => r.metric_name === metric && r.scenario === scenario).length;
    expect(count('iterations', 'ctx1k_c2')).toBe(4);
    expect(count('iterations', 'ctx1k_c4')).toBe(6);
    expect(count('iterations', 'monitor')).toBe(7);
    expect(count('iterations', 'failing')).toBe(1);
    expect(count('iterations', 'steady')).toBe(6);
    // Two http_req_sending per stream, as xk6-sse pushes it twice.
    expect(count('http_req_sending', 'ctx1k_c2')).toBe(8);
    const failed = rows.filter((r) => r.metric_name === 'http_req_failed');
    expect(failed.filter((r) => r.metric_value === '1.000000').map((r) => [r.error_code, r.status, r.group])).toEqual([['1500', '500', '']]);
  });

  it('passes handleSummary data in k6 shape', () => {
    const golden = JSON.parse(readFileSync(join(GOLDEN, 'handle-summary-data.json'), 'utf8')) as Json;
    const ours = JSON.parse(readFileSync(join(dir, 'handle-summary-data.json'), 'utf8')) as Json;
    expect(Object.keys(ours).sort()).toEqual(Object.keys(golden).sort());
    expect(ours.options).toEqual({ ...(golden.options as Json), noColor: true });
    expect(Object.keys(ours.state as Json).sort()).toEqual(Object.keys(golden.state as Json).sort());
    const gm = golden.metrics as Record<string, Json>;
    const om = ours.metrics as Record<string, Json>;
    expect(Object.keys(om).sort()).toEqual(provided(Object.keys(gm)));
    for (const [name, g] of Object.entries(gm)) {
      if (NOT_PROVIDED.has(name)) continue;
      const o = om[name]!;
      expect(Object.keys(o).sort(), name).toEqual(Object.keys(g).sort());
      expect([o.type, o.contains], name).toEqual([g.type, g.contains]);
      expect(Object.keys(o.values as Json).sort(), name).toEqual(Object.keys(g.values as Json).sort());
      if (g.thresholds) expect(o.thresholds, name).toEqual(g.thresholds);
    }
    // The sub-metric that never got a sample is there, all zeros.
    expect((om['llm_decode_speed{cell:none}']!.values as Json)).toEqual({ avg: 0, min: 0, med: 0, max: 0, 'p(90)': 0, 'p(95)': 0, 'p(99)': 0, count: 0 });
    // Only the root group, with k6's id for it.
    const groot = golden.root_group as Json;
    expect(ours.root_group).toEqual({ name: groot.name, path: groot.path, id: groot.id, groups: [], checks: [] });
  });

  it('writes --summary-export in the flattened shape', () => {
    const golden = JSON.parse(readFileSync(join(GOLDEN, 'summary-export.json'), 'utf8')) as { metrics: Record<string, Json>; root_group: Json };
    const ours = JSON.parse(readFileSync(join(dir, 'summary-export.json'), 'utf8')) as { metrics: Record<string, Json>; root_group: Json };
    expect(Object.keys(ours).sort()).toEqual(Object.keys(golden).sort());
    expect(Object.keys(ours.metrics).sort()).toEqual(provided(Object.keys(golden.metrics)));
    for (const [name, g] of Object.entries(golden.metrics)) {
      if (NOT_PROVIDED.has(name)) continue;
      expect(Object.keys(ours.metrics[name]!).sort(), name).toEqual(Object.keys(g).sort());
      if (g.thresholds) expect(ours.metrics[name]!.thresholds, name).toEqual(g.thresholds);
    }
    expect(Object.keys(ours.root_group).sort()).toEqual(Object.keys(golden.root_group).sort());
    expect(ours.root_group).toEqual({ ...golden.root_group, groups: {}, checks: {} });
  });

  it('writes NDJSON like k6: a Metric line then Point lines with sorted tags and RFC3339Nano times', () => {
    const lines = readFileSync(join(dir, 'samples.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Json);
    const golden = readFileSync(join(GOLDEN, 'samples.ndjson'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Json);
    const metricLines = (ls: Json[]): Record<string, Json> => Object.fromEntries(ls.filter((l) => l.type === 'Metric').map((l) => [l.metric as string, l.data as Json]));
    const om = metricLines(lines);
    const gm = metricLines(golden);
    expect(Object.keys(om).sort()).toEqual(provided(Object.keys(gm)));
    for (const name of provided(Object.keys(gm))) expect(om[name], name).toEqual(gm[name]);
    const point = lines.find((l) => l.type === 'Point' && l.metric === 'sse_event')!;
    expect(Object.keys(point)).toEqual(['metric', 'type', 'data']);
    const data = point.data as { time: string; value: number; tags: Record<string, string> };
    expect(data.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,9})?Z$/);
    expect(Object.keys(data.tags)).toEqual(['cell', 'concurrency', 'context', 'group', 'name', 'scenario', 'status', 'url']);
  });
});
