// A prediction from a fitted profile carries each capacity's prediction interval (the same prediction made with each
// of the fit's resampled profiles); from a plain profile file, none, and says why. Runs in Node (vitest).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlanInput } from '../../lib/plan';
import { findProfile } from '../../sim/profiles';
import type { FittedProfileFile } from '../../whatif/fitted-profile';
import { runPredictCommand, type PredictCommandOutcome } from '../../whatif/predict-command';
import { loadPredictProfile } from '../../whatif/predict-profile';

const A = findProfile('A')!;
const PLAN: PlanInput = {
  capacity: {
    useCases: ['code_completion', 'general_chatbot'], outputTokens: { general_chatbot: 128 }, rounds: 1,
    minMeasuredSeconds: 2, maxUsers: 64,
  },
};
// Refits whose linear-layer cost spans the fitted one: slower hardware serves fewer users, faster more.
const SCALES = [0.8, 1, 1.25];
const fitted: FittedProfileFile = {
  base: A.name, name: 'fitted-a',
  fit: {
    run: 'results/measured-a', fittedAt: '2026-11-28T00:00:00.000Z', cells: 12, requests: 400, parameters: [],
    residuals: [], medianErrorPct: 0, maxErrorPct: 0,
    range: { promptTokens: [256, 4096], concurrency: [1, 64], outputTokens: [128, 128] },
    resamples: SCALES.map((s) => ({ lambdaUsPerToken: A.hardware.lambdaUsPerToken * s })),
  },
};
let tmp: string;
let outcome: PredictCommandOutcome;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'predict-fitted-'));
  writeFileSync(join(tmp, 'fitted.json'), JSON.stringify(fitted));
  writeFileSync(join(tmp, 'plain.json'), JSON.stringify({ base: A.name, name: 'plain-a' }));
  outcome = await runPredictCommand({
    profile: join(tmp, 'fitted.json'), planInput: PLAN, planLabel: 'test', scripts: ['capacity'], resultsRoot: tmp,
    runId: 'fitted', whatIfs: [], log: () => {},
  });
}, 120_000);
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('--predict fitted.json', () => {
  it('gives each capacity the 5th-95th percentile of the resampled profiles\' predictions', () => {
    const p = outcome.base.report.predicted!;
    expect(p).toMatchObject({ profile: 'fitted-a', source: 'fitted', fittedFrom: 'results/measured-a' });
    expect(p.intervalMethod).toBe('fit-resamples-p5-p95');
    expect(p.intervals!.map((i) => i.useCase).sort()).toEqual(['code_completion', 'general_chatbot']);
    for (const i of p.intervals!) {
      const capacity = outcome.base.report.useCases.find((u) => u.useCase.id === i.useCase)!.result.lastPass!;
      expect(i.resamples).toBe(3);
      expect(i.low).toBeLessThanOrEqual(capacity);
      expect(i.high).toBeGreaterThanOrEqual(capacity);
    }
    const code = p.intervals!.find((i) => i.useCase === 'code_completion')!;
    expect(code.high - code.low).toBeGreaterThan(0);
  });

  it('states the interval in the report, capacity.csv and the printed table', () => {
    const md = readFileSync(join(outcome.base.runDir, 'report.md'), 'utf8');
    expect(md).toContain('PREDICTION INTERVAL (5TH-95TH PCT)');
    expect(md).toContain('a profile fitted to the measured run results/measured-a');
    expect(md).toContain('PREDICTED, not measured: simulator profile fitted-a, fitted to run results/measured-a');
    const rows = Papa.parse<Record<string, string>>(readFileSync(join(outcome.base.runDir, 'capacity.csv'), 'utf8'), {
      header: true, skipEmptyLines: true,
    }).data;
    for (const i of outcome.base.report.predicted!.intervals!) {
      const row = rows.find((r) => r.id === i.useCase)!;
      expect([Number(row.prediction_low), Number(row.prediction_high)]).toEqual([i.low, i.high]);
    }
    expect(outcome.table).toMatch(/code_completion \(users\)\s+\d+ \(\d+(\.\d)?-\d+(\.\d)?\)/);
  });

  it("marks a use case beyond the fit run's prompts extrapolated, in report.json, capacity.csv and the report", () => {
    const reach = outcome.base.report.predicted!.reach!;
    expect(reach.find((r) => r.useCase === 'code_completion')!.range).toBe('inside');
    const general = reach.find((r) => r.useCase === 'general_chatbot')!;
    expect(general.range).toBe('extrapolated');
    expect(general.beyond[0]).toMatch(/^prompt \d+ tokens > the fit's longest 4096$/);
    const csv = readFileSync(join(outcome.base.runDir, 'capacity.csv'), 'utf8');
    const rows = Papa.parse<Record<string, string>>(csv, { header: true, skipEmptyLines: true }).data;
    expect(rows.find((r) => r.id === 'general_chatbot')!.prediction_range).toBe('extrapolated');
    expect(rows.find((r) => r.id === 'code_completion')!.prediction_range).toBe('inside');
    const md = readFileSync(join(outcome.base.runDir, 'report.md'), 'utf8');
    expect(md).toContain('**Extrapolated:** general\\_chatbot lies beyond what the fit run measured');
    expect(md).toContain('extrapolated beyond the fit run: general\\_chatbot');
    const html = readFileSync(join(outcome.base.runDir, 'report.html'), 'utf8');
    expect(html).toContain('extrapolated beyond the fit run: general_chatbot');
  });
});

describe('loadPredictProfile', () => {
  it('reads a plain profile file without an interval, a built-in by letter, and refuses anything else', () => {
    expect(loadPredictProfile(join(tmp, 'plain.json'))).toMatchObject({ source: 'file', fit: null, resampled: [] });
    expect(loadPredictProfile('a').profile).toBe(A);
    expect(() => loadPredictProfile(join(tmp, 'missing.json'))).toThrow(
      /neither a built-in profile .* nor a profile file/,
    );
  });
});
