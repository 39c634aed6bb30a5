// CSV argument parsing, timestamp formats and quoting of k6's CSV output. Runs in Node.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Metric } from '../../runner/metrics-engine';
import { CSV_HEADER, CsvOutput, parseCsvArg } from '../../runner/outputs/csv';
import { formatTime, rfc3339Nano } from '../../runner/outputs/time-format';
import { tempDir } from './helpers';

describe('parseCsvArg', () => {
  it('takes a bare file name or fileName/timeFormat pairs, env as defaults, and rejects file=', () => {
    expect(parseCsvArg('a.csv', {})).toEqual({ fileName: 'a.csv', timeFormat: 'unix' });
    expect(parseCsvArg('fileName=b.csv,timeFormat=unix_milli', {})).toEqual({ fileName: 'b.csv', timeFormat: 'unix_milli' });
    expect(parseCsvArg('c.csv', { K6_CSV_TIME_FORMAT: 'unix_nano' })).toEqual({ fileName: 'c.csv', timeFormat: 'unix_nano' });
    expect(() => parseCsvArg('file=x.csv', {})).toThrow(/unknown key "file"/);
    expect(() => parseCsvArg('fileName=x.csv,timeFormat=weeks', {})).toThrow(/timeFormat/);
  });
});

describe('time formats', () => {
  const t = Date.UTC(2026, 10, 22, 5, 17, 42) + 586.003535;
  it('writes k6 units', () => {
    expect(formatTime(t, 'unix')).toBe('1795324662');
    expect(formatTime(t, 'unix_milli')).toBe('1795324662586');
    expect(formatTime(t, 'unix_micro')).toMatch(/^1795324662586\d{3}$/);
    expect(formatTime(t, 'unix_nano')).toMatch(/^1795324662586\d{6}$/);
    expect(formatTime(t, 'rfc3339')).toBe('2026-11-22T05:17:42Z');
    expect(rfc3339Nano(Date.UTC(2026, 0, 1))).toBe('2026-01-01T00:00:00Z');
    expect(rfc3339Nano(Date.UTC(2026, 0, 1) + 0.5)).toBe('2026-01-01T00:00:00.0005Z');
  });
});

describe('CsvOutput', () => {
  it("writes k6's header, tag columns, extra_tags and Go-style quoting", async () => {
    const file = join(tempDir(), 's.csv');
    const out = new CsvOutput({ fileName: file, timeFormat: 'unix_milli' });
    const m = new Metric('http_req_failed', 'rate', 'default');
    out.write({ metric: m, time: 1000.9, value: 1, tags: { scenario: 's', error: 'Post "http://x": dial, refused', cell: 'c1', group: '' } });
    await out.close();
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines[0]).toBe(CSV_HEADER);
    expect(lines[1]).toBe('http_req_failed,1000,1.000000,,"Post ""http://x"": dial, refused",,,,,,,s,,,,,,cell=c1,');
  });

  it("writes sample metadata in k6's metadata column (k=v, Go-quoted), as k6 v1.8.1 does", async () => {
    // Compared with a real run: exec.vu.metrics.metadata['error_message'] = 'CUDA out, of "memory" & x=y' before add.
    const file = join(tempDir(), 's.csv');
    const out = new CsvOutput({ fileName: file, timeFormat: 'unix_milli' });
    const m = new Metric('llm_errors', 'counter', 'default');
    const tags = { scenario: 'c1', error_kind: 'http_5xx' };
    out.write({ metric: m, time: 1000, value: 1, tags, metadata: { error_message: 'CUDA out, of "memory" & x=y' } });
    out.write({ metric: m, time: 1001, value: 1, tags });
    await out.close();
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    expect(lines[1]).toBe('llm_errors,1000,1.000000,,,,,,,,,c1,,,,,,error_kind=http_5xx,"error_message=CUDA out, of ""memory"" & x=y"');
    expect(lines[2]).toBe('llm_errors,1001,1.000000,,,,,,,,,c1,,,,,,error_kind=http_5xx,');
  });
});
