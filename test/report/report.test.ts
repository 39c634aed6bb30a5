// End-to-end tests of the report on a synthetic run folder. Runs in Node (vitest).
// Files, sections, JSON schema, CSVs, the CLI's exit codes and the baseline gate.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateReport } from '../../report/generate';
import { DEFAULT_REPORT_OPTIONS } from '../../report/build-report';
import { REPORT_SCHEMA_VERSION, type Report } from '../../report/report-types';
import { EXIT } from '../../lib/exit-codes';
import { smallRunParts, writeRunFixture } from './fixtures/make-run';
import { nodeProgram } from '../../node/node-programs';
import { SYNC_CHILD_LIMIT } from '../sync-child';

const ROOT = join(import.meta.dirname, '..', '..');
let tmp: string;
let runDir: string;
let report: Report;

function cli(args: string[]): { code: number | null; stderr: string; stdout: string } {
  const [program, ...lead] = nodeProgram('report');
  const r = spawnSync(program!, [...lead, ...args], { cwd: ROOT, encoding: 'utf8', ...SYNC_CHILD_LIMIT });
  return { code: r.status, stderr: r.stderr, stdout: r.stdout };
}

const OPTS = { ...DEFAULT_REPORT_OPTIONS, baseline: null, tolerance: 0.1, outDir: null };

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'report-e2e-'));
  runDir = join(tmp, 'run-a');
  writeRunFixture({
    dir: runDir, parts: smallRunParts(), failEvery: 37, jitter: 0.05, clientBound: ['sweep_c1k_o32_n4'],
  });
  report = (await generateReport(runDir, OPTS)).report;
});

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('report on a synthetic run: its files, parts and sections', () => {
  it('writes every file of the contract', () => {
    for (const f of ['report.md', 'report.html', 'report.json', 'cells.csv', 'capacity.csv'])
      expect(existsSync(join(runDir, f))).toBe(true);
    const svgs = readdirSync(join(runDir, 'charts'));
    expect(svgs).toContain('throughput.svg');
    expect(svgs).toContain('usecase_general_chatbot.svg');
    expect(svgs).toContain('burst_ttft.svg');
    expect(svgs).toContain('frontier_sweep.svg');
    expect(svgs).toContain('frontier_mix.svg');
    expect(readFileSync(join(runDir, 'charts', 'throughput.svg'), 'utf8')).toMatch(/^<svg/);
    // Every chart the Markdown references exists.
    const md = readFileSync(join(runDir, 'report.md'), 'utf8');
    for (const m of md.matchAll(/\]\((charts\/[^)]+\.svg)\)/g)) expect(existsSync(join(runDir, m[1]!))).toBe(true);
  });

  it('merges all parts and measures every planned cell', () => {
    expect(report.parts.map((p) => p.name)).toEqual(['sweep', 'capacity', 'burst', 'mix', 'gate']);
    expect(report.cells.length).toBe(9 + 11 + 8 + 6 + 1);
    expect(report.cells.every((c) => c.requests > 0)).toBe(true);
    expect(report.totals.failed).toBeGreaterThan(0);
    expect(Object.keys(report.totals.errorsByKind).sort()).toEqual(['http_5xx', 'timeout']);
  });

  it('puts the answer and its warnings first, then the findings, the reference sections and the details', () => {
    const md = readFileSync(join(runDir, 'report.md'), 'utf8');
    const order = [
      '## Capacity per Use Case', '## Warnings', '## Highlights', '## Key Findings', '## Use Case Guidance',
      '### System Throughput',
      '### Per-User Generation Speed', '### Throughput per GPU vs Interactivity', '### Time to First Token',
      '## Capacity Analysis', '## When to Scale Up', '## When Am I the Fastest?',
      '### Throughput per GPU vs Interactivity per Scenario', '### Queue Wait Times', '### Per-User Prefill Speed',
      '### Inter-Token Latency', '### Scaling Efficiency', '### Power & Efficiency', '## Latency Percentiles',
      '## Success Rate and Errors', '## Client Integrity', '## Deploy Gate', '## Methodology', '## Warnings in Detail',
    ];
    let at = -1;
    for (const h of order) {
      const i = md.indexOf(h);
      expect(i, h).toBeGreaterThan(at);
      at = i;
    }
    expect(md).toMatch(/tokens per hour/);
    // The fixture's slow reader (read lag 250 ms), named with its cause; the methodology says what the check reads.
    expect(md).toMatch(new RegExp(String.raw`Client-bound: sweep_c1k_o32_n4 \(the measuring agent read \d+\.\d% ` +
      String.raw`of the tokens together with the chunk before them \(read lag p99 250\.0 ms\)`));
    // Its row in Client Integrity: invalid, with the tokens it read together; a clean cell valid.
    const lags = (ms: string): string => `${ms}ms / ${ms}ms / ${ms}ms`;
    const slow = lags(String.raw`250\.0`);
    // No stall of the machine: the agent said 0 ms for every request.
    expect(md).toMatch(new RegExp(String.raw`\| sweep_c1k_o32_n4 \| invalid: client-bound \| ${slow} \| ` +
      String.raw`0\.0ms \(0\) \| [^|]+ \| \d+ \(\d+\.\d%\)`));
    expect(md).toMatch(new RegExp(String.raw`\| sweep_c1k_o32_n1 \| valid \| ${lags(String.raw`0\.1`)} \| ` +
      String.raw`0\.0ms \(0\) \| [^|]+ \| 0 \(0\.0%\) \| 0 \(0\.0%\)`));
    expect(md).toMatch(/Measurement: k6 set the load; every request went through the measuring agent/);
    expect(md).toMatch(/k6's own CPU is not measured and not part of that check/);
    expect(md).not.toMatch(/undefined|NaN|\[object/);
    // run.json keeps k6's own version line, which starts with "k6": named once.
    expect(md).toMatch(/Engine: k6 v1\.3\.0/);
    expect(md).toMatch(/measured with k6 v1\.3\.0/);
    expect(md).not.toMatch(/k6 k6/);
    expect(md).toMatch(/Limit statistic: the average/);
    expect(md).toMatch(/General Chatbot at 2 concurrent requests \(cell gate_general_chatbot_n2\)/);
    expect(report.gates[0]!.checks.map((c) => c.expression)).toEqual(['avg<8000', 'avg>15', 'rate>=0.9']);
  });

});

describe('report on a synthetic run: capacities, report.json and the CSVs', () => {
  it('finds the capacities of the timing model', () => {
    const chat = report.useCases.find((u) => u.useCase.id === 'general_chatbot')!;
    // Success drops below 99% at 8 (one failed request in the fixture), before TTFT crosses 8 s.
    expect(chat.result.kind).toBe('within');
    expect(chat.result.lastPass).toBe(4);
    const code = report.useCases.find((u) => u.useCase.id === 'code_completion')!;
    expect(code.result.display).toBe('more than 16');
    const agentic = report.bursts.find((b) => b.profile === 'agentic')!;
    expect(agentic.result.display).toMatch(/^~\d+$/);
  });

  it('writes report.json with a schemaVersion and parseable CSVs', () => {
    const json = JSON.parse(readFileSync(join(runDir, 'report.json'), 'utf8')) as {
      schemaVersion: number; cells: unknown[];
    };
    expect(json.schemaVersion).toBe(REPORT_SCHEMA_VERSION);
    expect(json.cells.length).toBe(report.cells.length);
    const cells = Papa.parse<Record<string, string>>(readFileSync(join(runDir, 'cells.csv'), 'utf8'), {
      header: true, skipEmptyLines: true,
    }).data;
    expect(cells.length).toBe(report.cells.length);
    expect(Number(cells[0]!.ttft_ms_p99)).toBeGreaterThan(0);
    const bound = cells.find((c) => c.cell === 'sweep_c1k_o32_n4')!;
    expect([bound.client_bound, bound.client_read_lag_p99_ms]).toEqual(['true', '250']);
    expect(Number(bound.client_tokens_read_together)).toBeGreaterThan(0);
    const cap = Papa.parse<Record<string, string>>(readFileSync(join(runDir, 'capacity.csv'), 'utf8'), {
      header: true, skipEmptyLines: true,
    }).data;
    expect(cap.map((r) => r.id)).toEqual(['code_completion', 'short_chatbot', 'general_chatbot', 'chatbot', 'agentic']);
  });

  it('writes the sweep and mix frontiers into report.json: undominated cells of each grid, priced with power', () => {
    const json = JSON.parse(readFileSync(join(runDir, 'report.json'), 'utf8')) as Pick<Report, 'frontiers'>;
    expect(json.frontiers.map((f) => f.grid)).toEqual(['sweep', 'mix']);
    for (const frontier of json.frontiers) {
      const grid = report.cells.filter((c) => c.script === frontier.grid);
      expect(frontier.points.length).toBeGreaterThan(0);
      for (const point of frontier.points) {
        const own = grid.find((c) => c.id === point.cellId)!;
        expect(point.tokensPerSecondPerGpu).toBe(own.throughput);
        expect(point.perUserTokensPerSecond).toBe(own.metrics.decodeSpeed!.p50);
        // The fixture's monitor samples power: energy and the full cost, as the cell's own power figures give them.
        expect(point.joulesPerOutputToken).toBe(own.power!.joulesPerOutputToken);
        expect(point.usdPerMillionTokens).toBeCloseTo(own.power!.usdPerMillionTokens!, 9);
        expect(point.costBasis).toBe('gpu-hours+electricity');
        const beaten = grid.filter((c) =>
          c.metrics.decodeSpeed!.p50 >= point.perUserTokensPerSecond && c.throughput! >= point.tokensPerSecondPerGpu &&
          (c.metrics.decodeSpeed!.p50 > point.perUserTokensPerSecond || c.throughput! > point.tokensPerSecondPerGpu));
        expect(beaten.map((c) => c.id), point.cellId).toEqual([]);
      }
      const speeds = frontier.points.map((p) => p.perUserTokensPerSecond);
      expect(speeds).toEqual([...speeds].sort((a, b) => a - b));
    }
  });

  it('states goodput per cell of a use case and beside every capacity', () => {
    const cells = Papa.parse<Record<string, string>>(readFileSync(join(runDir, 'cells.csv'), 'utf8'), {
      header: true, skipEmptyLines: true,
    }).data;
    const byId = new Map(cells.map((row) => [row.cell, row]));
    // Sweep cells have no use case: not judged. Capacity steps are: at 1 user every request is within the limits.
    expect(byId.get('sweep_c1k_o32_n1')!.goodput).toBe('');
    expect(Number(byId.get('capacity_general_chatbot_n1')!.goodput)).toBe(1);
    const chat = report.cells.filter((c) => c.useCase === 'general_chatbot' && c.script === 'capacity');
    for (const c of chat) expect(c.goodput, c.id).toBeLessThanOrEqual(c.successRate!);
    const capacity = report.useCases.find((u) => u.useCase.id === 'general_chatbot')!;
    const step = chat.find((c) => c.concurrency === capacity.result.lastPass)!;
    expect(capacity.goodputAtCapacity).toBe(step.goodput);
    const cap = Papa.parse<Record<string, string>>(readFileSync(join(runDir, 'capacity.csv'), 'utf8'), {
      header: true, skipEmptyLines: true,
    }).data;
    expect(Number(cap.find((r) => r.id === 'general_chatbot')!.goodput_at_capacity)).toBeCloseTo(step.goodput!, 4);
    const md = readFileSync(join(runDir, 'report.md'), 'utf8');
    expect(md).toContain('| USE CASE | CONTEXT | TTFT THRESHOLD | SPEED THRESHOLD | CAPACITY | GOODPUT | ANALYSIS |');
    expect(md).toMatch(/\| Goodput \(requests within every limit\) \| 100\.0% \|/);
  });

});

describe('report on a single part folder', () => {
  it('reads a single part folder, and says plainly what was not measured', async () => {
    const partDir = join(tmp, 'part-only');
    writeRunFixture({ dir: partDir, parts: { sweep: smallRunParts().sweep! }, runJson: false, monitor: false });
    const r = await generateReport(join(partDir, 'sweep'), OPTS);
    expect(r.report.parts.length).toBe(1);
    const md = readFileSync(join(partDir, 'sweep', 'report.md'), 'utf8');
    expect(md).toMatch(/GPU power was not measured/);
    expect(md).toMatch(/queue wait was not measured/);
    // No power: the frontier's cost is the GPU-hours alone, and says so.
    expect(md).toMatch(/### Throughput per GPU vs Interactivity/);
    expect(md).toMatch(/\| n\/a \| \$\d+\.\d\d \(GPU-hours only\) \|/);
    expect(md).toMatch(/GPU power was not measured for these cells: their energy is n\/a/);
    expect(md).toMatch(/No run\.json was found/);
    expect(md).not.toMatch(/## When to Scale Up/);
  });
});

describe('CLI', () => {
  it('exits 3 with one line for a folder without plan.json', () => {
    const empty = mkdtempSync(join(tmp, 'empty-'));
    const r = cli([empty]);
    expect(r.code).toBe(EXIT.badInput);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/no plan\.json/);
  });

  it('exits 3 with one line naming the field of a plan.json that fails its checks', () => {
    const dir = join(tmp, 'bad-plan');
    writeRunFixture({ dir, parts: { sweep: smallRunParts().sweep! } });
    const planPath = join(dir, 'sweep', 'plan.json');
    const plan = JSON.parse(readFileSync(planPath, 'utf8')) as { cells: { concurrency: unknown }[] };
    plan.cells[1]!.concurrency = 'four';
    writeFileSync(planPath, JSON.stringify(plan));
    const r = cli([dir]);
    expect(r.code).toBe(EXIT.badInput);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`${planPath}: plan.json field "cells[1].concurrency" must be a number, got "four"`);
  });

  it('exits 3 for whole-second timestamps, telling to use unix_milli', () => {
    const dir = join(tmp, 'coarse');
    writeRunFixture({ dir, parts: { sweep: smallRunParts().sweep! } });
    const csv = join(dir, 'sweep', 'samples.csv');
    const text = readFileSync(csv, 'utf8').replace(/^([a-z_]+),(\d{10})\d{3},/gm, '$1,$2,');
    writeFileSync(csv, text);
    const r = cli([dir]);
    expect(r.code).toBe(EXIT.badInput);
    expect(r.stderr).toMatch(/timeFormat=unix_milli/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it('exits 2 on a bad flag', () => {
    const r = cli([runDir, '--tolerance', 'abc']);
    expect(r.code).toBe(EXIT.usage);
  });

  it('gates on a baseline: 0 against itself, 99 when latency regresses', () => {
    const same = cli([runDir, '--baseline', runDir]);
    expect(same.code).toBe(EXIT.ok);
    expect(existsSync(join(runDir, 'compare.json'))).toBe(true);
    const slowDir = join(tmp, 'run-slow');
    writeRunFixture({ dir: slowDir, parts: smallRunParts(), failEvery: 37, jitter: 0.05, slowdown: 1.6 });
    const r = cli([slowDir, '--baseline', runDir, '--tolerance', '10']);
    expect(r.code).toBe(EXIT.thresholdsFailed);
    expect(r.stderr).toMatch(/regression/);
    const cmp = JSON.parse(readFileSync(join(slowDir, 'compare.json'), 'utf8')) as {
      gatedRegression: boolean; capacities: { id: string; regression: boolean }[];
    };
    expect(cmp.gatedRegression).toBe(true);
    const md = readFileSync(join(slowDir, 'report.md'), 'utf8');
    expect(md).toMatch(/## Comparison with Baseline/);
    expect(md).toMatch(/gated regression/);
  });
});
