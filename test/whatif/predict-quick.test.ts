// End to end: `npm run bench -- --predict A --plan quick` writes a run folder whose report says predicted everywhere,
// and whose capacities are the profile's true ones (bench/virtual-capacity.ts) within a user. Runs in Node (vitest).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { virtualCapacity } from '../../bench/virtual-capacity';
import { resolvePlan } from '../../lib/plan';
import { QUICK_PLAN } from '../../orchestrator/default-plans';
import { DEFAULT_REPORT_OPTIONS } from '../../report/build-report';
import { analyzeRun } from '../../report/generate';
import type { Report } from '../../report/report-types';
import { buildDocument } from '../../report/sections';
import { findProfile } from '../../sim/profiles';
import { nodeProgram } from '../../node/node-programs';
import { SYNC_CHILD_LIMIT } from '../sync-child';

const ROOT = join(import.meta.dirname, '..', '..');
const PROFILE = findProfile('A')!;
let tmp: string;
let run: { code: number | null; stdout: string; stderr: string; seconds: number };

function bench(args: string[]) {
  const started = performance.now();
  const [program, ...lead] = nodeProgram('bench');
  const r = spawnSync(program!, [...lead, ...args], {
    cwd: ROOT, encoding: 'utf8', env: { ...process.env, USE_CASES: '', CONTEXTS: '' }, ...SYNC_CHILD_LIMIT,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, seconds: (performance.now() - started) / 1000 };
}

const read = (...parts: string[]) => readFileSync(join(tmp, ...parts), 'utf8');
const reportOf = (runId: string) => JSON.parse(read(runId, 'report.json')) as Report;

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'predict-quick-'));
  run = bench(['--predict', 'A', '--plan', 'quick', '--results', tmp, '--run-id', 'p', '--what-if', 'prompt=2x']);
}, 120_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('npm run bench -- --predict A --plan quick', () => {
  it('runs in well under a minute and prints the predicted capacities', () => {
    expect(run.stderr).not.toMatch(/error|Error/);
    expect(run.code).toBe(0);
    expect(run.seconds).toBeLessThan(60);
    expect(run.stdout).toMatch(
      /^PREDICTED capacities \(simulator profile qwen3-coder-30b-a3b-h200-vllm, not measured\)/,
    );
    expect(run.stdout).toContain(`results: ${join(tmp, 'p')}`);
  });

  it('says predicted in the title, every table, headline figure and chart, report.json and capacity.csv', () => {
    expect(read('p', 'report.md').split('\n')[0]).toMatch(/^# PREDICTED Capacity Report: /);
    expect(read('p', 'report.html')).toMatch(/<title>PREDICTED Capacity Report: /);
    const report = reportOf('p');
    expect(report.title).toMatch(/^PREDICTED /);
    expect(report.predicted).toMatchObject({
      profile: PROFILE.name, source: 'built-in', fittedFrom: null, intervalMethod: null, intervals: null, variant: null,
    });
    expect(report.predicted!.intervalNote).toMatch(/^No prediction interval: the built-in profile has no fit record/);
    const blocks = buildDocument(report, new Set());
    const tables = blocks.filter((b) => b.kind === 'table');
    expect(tables.length).toBeGreaterThan(10);
    for (const t of tables) expect(t.caption).toMatch(/^PREDICTED, not measured: simulator profile /);
    for (const b of blocks) if (b.kind === 'kpis') for (const k of b.items) expect(k.label).toMatch(/\(predicted\)$/);
    const charts = readdirSync(join(tmp, 'p', 'charts'));
    expect(charts.length).toBeGreaterThan(5);
    for (const svg of charts) expect(read('p', 'charts', svg), svg).toContain('PREDICTED: ');
    const rows = Papa.parse<Record<string, string>>(read('p', 'capacity.csv'), {
      header: true, skipEmptyLines: true,
    }).data;
    expect(rows.length).toBe(5);
    for (const row of rows) expect(row).toMatchObject({ predicted: 'true', predicted_profile: PROFILE.name });
  });

  it('predicts each use case\'s true capacity in virtual time within a user', () => {
    const plan = resolvePlan(QUICK_PLAN, 'capacity');
    const report = reportOf('p');
    const ids = [...new Set(plan.cells.map((c) => c.useCase!))];
    expect(report.useCases.map((u) => u.useCase.id).sort()).toEqual([...ids].sort());
    for (const id of ids) {
      const useCase = plan.useCases.find((u) => u.id === id)!;
      const output = plan.cells.find((c) => c.useCase === id)!.outputTokens;
      const truth = virtualCapacity(PROFILE, useCase, output, plan.search!.maxUsers[id]!, plan.limitStat);
      const predicted = report.useCases.find((u) => u.useCase.id === id)!.result.lastPass ?? 0;
      expect(Math.abs(predicted - truth), `${id}: predicted ${predicted}, true ${truth}`).toBeLessThanOrEqual(1);
    }
  }, 60_000);

  it('predicts a what-if as its own run, compared with the base', () => {
    const variant = reportOf('p-what-if-prompt-2x');
    const base = reportOf('p');
    expect(variant.title).toMatch(/^PREDICTED .*what if prompt=2x\)$/);
    expect(variant.predicted).toMatchObject({ variant: 'prompt=2x', baseRun: 'p' });
    expect(variant.comparison?.baselineDir).toBe(join(tmp, 'p'));
    expect(run.stdout).toMatch(/predicted capacity\s+base\s+prompt=2x/);
    // Twice the prompt never serves more users.
    for (const u of variant.useCases) {
      const before = base.useCases.find((b) => b.useCase.id === u.useCase.id)!;
      expect(u.useCase.contextTokens).toBe(2 * before.useCase.contextTokens);
      expect(u.result.lastPass ?? 0).toBeLessThanOrEqual(before.result.lastPass ?? 0);
    }
  });

  it('refuses a script it does not predict, in one line', () => {
    const r = bench(['--predict', 'A', '--scripts', 'sessions', '--results', tmp]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      'bench: --predict: the sessions script is not predicted yet (it predicts sweep, capacity, mix, burst)\n',
    );
  });
});

describe('a predicted run folder', () => {
  it('keeps its samples in its own format, not k6\'s, and reports the same from them later', async () => {
    for (const part of ['sweep', 'capacity']) {
      const files = readdirSync(join(tmp, 'p', part)).sort();
      expect(files).toEqual(['plan.json', 'predicted-samples.jsonl', 'summary.json']);
    }
    // The prediction reported from the samples it held in memory; npm run report reads the stored ones.
    const report = reportOf('p');
    const again = await analyzeRun(join(tmp, 'p'), DEFAULT_REPORT_OPTIONS, new Date(report.generatedAt));
    expect(JSON.stringify(again.cells)).toBe(JSON.stringify(report.cells));
    expect(JSON.stringify(again.useCases)).toBe(JSON.stringify(report.useCases));
  });
});
