// The report on a fixture produced by running the suite, checked against samples.csv. Runs in Node (vitest).
// The fixture is described in fixtures/suite-run/HOW-MADE.md; the figures are recomputed here straight from
// samples.csv.

import { cpSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Papa from 'papaparse';
import { beforeAll, describe, expect, it } from 'vitest';
import { METRICS } from '../../lib/metrics';
import { generateReport } from '../../report/generate';
import { DEFAULT_REPORT_OPTIONS } from '../../report/build-report';
import type { Report } from '../../report/report-types';
import { tempDir } from '../e2e/helpers';

const FIXTURE = path.resolve(import.meta.dirname, 'fixtures', 'suite-run');

interface Row {
  metric_name: string;
  timestamp: string;
  metric_value: string;
  scenario: string;
}

/** Per scenario and metric, the raw sample values and (ms) timestamps, read independently of report/. */
function readRaw(part: string): Map<string, { values: number[]; times: number[] }> {
  const text = readFileSync(path.join(FIXTURE, part, 'samples.csv'), 'utf8');
  const rows = Papa.parse<Row>(text, { header: true, skipEmptyLines: true }).data;
  const out = new Map<string, { values: number[]; times: number[] }>();
  for (const r of rows) {
    const key = `${r.scenario}|${r.metric_name}`;
    let entry = out.get(key);
    if (!entry) out.set(key, (entry = { values: [], times: [] }));
    entry.values.push(Number(r.metric_value));
    entry.times.push(Number(r.timestamp));
  }
  return out;
}

const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

let report: Report;
let dir: string;
beforeAll(async () => {
  dir = tempDir('suite-run');
  cpSync(FIXTURE, dir, { recursive: true });
  const options = { ...DEFAULT_REPORT_OPTIONS, baseline: null, tolerance: 0.1, outDir: dir };
  report = (await generateReport(dir, options)).report;
}, 60_000);

describe('report on a real suite run: its figures against the raw samples', () => {

  it('has every planned cell, all requests succeeded', () => {
    expect(report.cells.map((c) => c.id).sort()).toEqual(
      [
        'capacity_tiny_chat_n1', 'capacity_tiny_chat_n8', 'capacity_tiny_chat_n32', 'capacity_tiny_chat_n64',
        'sweep_c1k_o32_n1', 'sweep_c1k_o32_n4', 'sweep_c4k_o32_n1', 'sweep_c4k_o32_n4',
      ].sort(),
    );
    for (const c of report.cells) {
      expect(c.requests, c.id).toBe(c.concurrency * c.rounds);
      expect(c.successRate, c.id).toBe(1);
    }
  });

  it('per-cell means and token totals equal what the raw samples give', () => {
    const raw = new Map([...readRaw('sweep'), ...readRaw('capacity')]);
    for (const c of report.cells) {
      const ttft = raw.get(`${c.id}|${METRICS.ttft.name}`)!.values;
      const itl = raw.get(`${c.id}|${METRICS.itl.name}`)!.values;
      const e2e = raw.get(`${c.id}|${METRICS.e2e.name}`)!;
      const out = raw.get(`${c.id}|${METRICS.outputTokens.name}`)!.values;
      expect(c.metrics.ttft!.mean).toBeCloseTo(mean(ttft), 6);
      expect(c.metrics.itl!.count).toBe(itl.length);
      expect(c.metrics.itl!.mean).toBeCloseTo(mean(itl), 6);
      expect(c.outputTokensTotal).toBe(out.reduce((a, b) => a + b, 0));
      expect(c.outputTokensTotal).toBe(c.requests * c.outputTokens);
      // Throughput: output tokens over the window from the first request start to the last end.
      const start = Math.min(...e2e.times.map((t, i) => t - e2e.values[i]!));
      const end = Math.max(...e2e.times);
      expect(c.throughput!).toBeCloseTo(c.outputTokensTotal / ((end - start) / 1000), 0);
    }
  });

  it('states the tiny_chat capacity that its e2e averages imply', () => {
    const uc = report.useCases.find((u) => u.useCase.id === 'tiny_chat')!;
    expect(uc.source).toBe('capacity');
    const steps = report.cells.filter((c) => c.useCase === 'tiny_chat').sort((a, b) => a.concurrency - b.concurrency);
    const passing = steps.filter((c) => c.metrics.e2e!.mean < 600);
    const failing = steps.filter((c) => c.metrics.e2e!.mean >= 600);
    expect(uc.result.lastPass).toBe(passing.at(-1)?.concurrency ?? null);
    expect(uc.result.firstFail).toBe(failing[0]?.concurrency ?? null);
    if (uc.result.kind === 'within') {
      // Linear interpolation of the average e2e between the two steps, rounded down.
      const a = passing.at(-1)!;
      const b = failing[0]!;
      const crossing =
        a.concurrency +
        ((600 - a.metrics.e2e!.mean) * (b.concurrency - a.concurrency)) / (b.metrics.e2e!.mean - a.metrics.e2e!.mean);
      expect(uc.result.estimate).toBe(Math.max(a.concurrency, Math.floor(crossing)));
    }
    expect(uc.result.brokenBy?.metric ?? null).toBe(failing.length > 0 ? 'e2e' : null);
  });

  it('scaling efficiency is throughput(N) / (N x throughput(1)) per context', () => {
    for (const ctx of [1024, 4096]) {
      const one = report.cells.find((c) => c.script === 'sweep' && c.contextTokens === ctx && c.concurrency === 1)!;
      const four = report.cells.find((c) => c.script === 'sweep' && c.contextTokens === ctx && c.concurrency === 4)!;
      expect(four.scalingEfficiency!).toBeCloseTo(four.throughput! / (4 * one.throughput!), 6);
    }
  });

});

describe('report on a real suite run: report.md', () => {
  it("puts the server's own clock beside the suite's per cell, and the KV cache's peak, in report.md", () => {
    const md = readFileSync(path.join(dir, 'report.md'), 'utf8');
    const section = md.slice(md.indexOf("## The Server's Own Clock"));
    expect(section).toMatch(/\| CELL \| USERS \| REQ \| TTFT SUITE \/ SERVER \| ITL SUITE \/ SERVER \|/);
    // The simulator's TTFT histogram runs from the request's arrival: the client's is never below it.
    const timed = report.cells.filter((c) => c.server?.serverTtftMs != null);
    expect(timed.length).toBeGreaterThan(3);
    for (const c of timed) expect(c.metrics.ttft!.mean, c.id).toBeGreaterThanOrEqual(c.server!.serverTtftMs!);
    const peak = Math.max(...report.cells.map((c) => c.server?.maxKvCacheUsage ?? 0));
    expect(section).toContain(`The KV cache was at most **${(peak * 100).toFixed(1)}%** full`);
  });

  it('writes the report files', () => {
    const md = readFileSync(path.join(dir, 'report.md'), 'utf8');
    for (const heading of ['## Key Findings', '## Use Case Guidance', '## Capacity Analysis', '## Methodology'])
      expect(md).toContain(heading);
    expect(md).toContain('Tiny chat');
  });
});
