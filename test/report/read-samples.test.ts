// Tests report/read-samples.ts: the golden k6 CSV, extra_tags in any order, and the one-line input errors.
// Runs in Node (vitest).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseExtraTags } from '../../report/k6-csv';
import { readSamples } from '../../report/read-samples';
import { ReportInputError } from '../../report/inputs';
import { CSV_HEADER } from './fixtures/make-run';
import { GOLDEN_DIR } from '../fixtures/golden';

const GOLDEN = GOLDEN_DIR;

describe('parseExtraTags', () => {
  it('parses k=v pairs in any order and decodes escapes', () => {
    const tags = { context: '1024', concurrency: '2', cell: 'ctx1k_c2' };
    expect(parseExtraTags('context=1024&concurrency=2&cell=ctx1k_c2')).toEqual(tags);
    expect(parseExtraTags('cell=ctx1k_c2&context=1024&concurrency=2')).toEqual(tags);
    expect(parseExtraTags('')).toEqual({});
    expect(parseExtraTags('name=a%20b&x=1')).toEqual({ name: 'a b', x: '1' });
  });
});

describe('readSamples on the golden k6 output (timeFormat=unix_milli)', () => {
  it('groups request samples by cell and keeps monitor gauges', async () => {
    const data = await readSamples(`${GOLDEN}/samples-unix-milli.csv`);
    expect([...data.cells.keys()].sort()).toEqual(['ctx1k_c2', 'ctx1k_c4', 'failing', 'steady']);
    const c2 = data.cells.get('ctx1k_c2')!;
    expect(c2.trends.ttft.length).toBe(4);
    expect(c2.tags).toEqual({ cell: 'ctx1k_c2', context: '1024', concurrency: '2' });
    expect(c2.okCount).toBe(4);
    const c4 = data.cells.get('ctx1k_c4')!;
    expect(c4.trends.ttft.length).toBe(6);
    const total = [...data.cells.values()].reduce((n, c) => n + c.trends.ttft.length, 0);
    expect(total).toBe(41);
    const failing = data.cells.get('failing')!;
    expect(failing.failCount).toBe(1);
    expect(failing.failedByKind).toEqual({ http_5xx: 1 });
    expect(data.monitor.running?.values.length).toBe(7);
    // Timestamps are epoch milliseconds.
    expect(data.monitor.running!.times.values()[0]).toBeGreaterThan(1.7e12);
    // k6 built-ins (http_req_*, sse_event, data_*, vus, ...) are skipped.
    expect(data.skippedRows).toBeGreaterThan(600);
    const outTokens = [...data.cells.values()].reduce((n, c) => n + c.outputTokens, 0);
    expect(outTokens).toBe(205);
  });

  it('rejects whole-second timestamps with a one-line hint to use unix_milli', async () => {
    await expect(readSamples(`${GOLDEN}/samples.csv`)).rejects.toThrow(/whole seconds.*timeFormat=unix_milli/);
    await expect(readSamples(`${GOLDEN}/samples.csv`)).rejects.toBeInstanceOf(ReportInputError);
  });

  it('rejects a CSV without k6 header, and RFC3339 timestamps', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'report-read-'));
    const bad = join(dir, 'bad.csv');
    writeFileSync(bad, 'a,b,c\n1,2,3\n');
    await expect(readSamples(bad)).rejects.toThrow(/no k6 CSV header/);
    const rfc = join(dir, 'rfc.csv');
    writeFileSync(rfc, `${CSV_HEADER}\nllm_ttft,2026-11-22T10:00:00Z,5.0,,,,,,,,,c1,,,,,,cell=c1,\n`);
    await expect(readSamples(rfc)).rejects.toThrow(/RFC3339/);
    const empty = join(dir, 'empty.csv');
    writeFileSync(empty, '');
    await expect(readSamples(empty)).rejects.toThrow(/empty/);
  });

  it('accepts unix_micro timestamps by scaling them to ms, and quoted fields', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'report-read-'));
    const p = join(dir, 's.csv');
    const quoted = 'llm_e2e,1795324657507000,100.5,,"a, quoted error",,,,,,,c1,,,,,,cell=c1&context=1024,\n';
    writeFileSync(p, `${CSV_HEADER}\n${quoted}`);
    const data = await readSamples(p);
    const c = data.cells.get('c1')!;
    expect(c.windowEndMs).toBe(1795324657507);
    expect(c.windowStartMs).toBeCloseTo(1795324657507 - 100.5, 6);
  });

});

describe('readSamples on hand-written rows: goodput, cache hits, run-level samples, a cut file', () => {
  it('counts llm_goodput samples per cell: judged and good, warm-up left out', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'report-read-'));
    const p = join(dir, 's.csv');
    const row = (v: number, tags = 'cell=c1'): string => `llm_goodput,1795324657507,${v},,,,,,,,,c1,,,,,,${tags},\n`;
    writeFileSync(p, `${CSV_HEADER}\n${row(1)}${row(0)}${row(1)}${row(0, 'cell=c1&phase=warmup')}`);
    const data = await readSamples(p);
    expect(data.cells.get('c1')!.goodput).toEqual({ judged: 3, good: 2 });
  });

  it('keeps TTFT with and without a cache hit apart, beside the cached tokens', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'report-read-'));
    const p = join(dir, 's.csv');
    const row = (name: string, v: number): string => `${name},1795324657507,${v},,,,,,,,,c1,,,,,,cell=c1,\n`;
    const rows = [
      row('llm_cached_tokens', 512), row('llm_ttft_cache_hit', 40),
      row('llm_cached_tokens', 0), row('llm_ttft_cache_miss', 90),
    ];
    writeFileSync(p, `${CSV_HEADER}\n${rows.join('')}`);
    const c1 = (await readSamples(p)).cells.get('c1')!;
    expect([[...c1.trends.ttftCacheHit.values()], [...c1.trends.ttftCacheMiss.values()]]).toEqual([[40], [90]]);
    expect([c1.cachedTokens, c1.cachedReported]).toEqual([512, 2]);
  });

  it("keeps the search's llm_capacity_users out of the cells: run-level, with no cell tag", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'report-read-'));
    const p = join(dir, 's.csv');
    const capacity = 'llm_capacity_users,1795324657507,18,,,,,,,,,monitor,,,,,,' +
      'bound=capacity&use_case=chat&limit=e2e < 2 s,\n';
    const ok = 'llm_request_ok,1795324657507,1,,,,,,,,,c1,,,,,,cell=c1,\n';
    writeFileSync(p, `${CSV_HEADER}\n${ok}${capacity}`);
    const data = await readSamples(p);
    expect([...data.cells.keys()]).toEqual(['c1']);
  });

  it('drops the partial last line of a file cut by SIGKILL, and rows with a wrong column count', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'report-read-'));
    const p = join(dir, 's.csv');
    const row = (v: number): string => `llm_ttft,1795324657507,${v},,,,,,,,,c1,,,,,,cell=c1,\n`;
    // The cut line would parse as a TTFT of 12 ms: it must not count.
    writeFileSync(p, `${CSV_HEADER}\n${row(100)}llm_ttft,1795324657600,250,,,,\n${row(200)}llm_ttft,1795324657700,12`);
    const data = await readSamples(p);
    expect([...data.cells.get('c1')!.trends.ttft.values()]).toEqual([100, 200]);
    expect(data.partialTailBytes).toBe('llm_ttft,1795324657700,12'.length);
    expect(data.malformedRows).toBe(1);
    // A header cut before its line end: nothing to read.
    writeFileSync(p, 'metric_name,timest');
    await expect(readSamples(p)).rejects.toThrow(/empty/);
  });
});

