// A predicted part's samples: handed to the report in memory, stored as predicted-samples.jsonl and read back, the
// report is the same; and the cells are the ones the k6-CSV path gave the same drive before the prediction stopped
// writing k6's CSV (fixtures/predicted-drive.json). Runs in Node (vitest).
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Plan } from '../../lib/plan';
import type { StepResult } from '../../orchestrator/driver';
import { DEFAULT_REPORT_OPTIONS } from '../../report/build-report';
import { analyzeRun } from '../../report/generate';
import { ReportInputError } from '../../report/inputs';
import { readPredictedSamples } from '../../report/predicted-samples';
import type { Report } from '../../report/report-types';
import { writePredictedPart } from '../../whatif/predicted-part';
import type { RequestExtras, VirtualDrive } from '../../whatif/virtual-drive';

interface Fixture {
  readonly originMs: number;
  readonly plan: Plan;
  readonly drive: {
    readonly steps: StepResult[]; readonly extras: [number, RequestExtras][]; readonly unfinished: [number, number][];
    readonly wallMs: number; readonly busyMs: number;
  };
  readonly csvCells: Report['cells'];
}

const fixture = JSON.parse(
  readFileSync(join(import.meta.dirname, 'fixtures', 'predicted-drive.json'), 'utf8'),
) as Fixture;
const drive: VirtualDrive = {
  ...fixture.drive, extras: new Map(fixture.drive.extras), unfinished: new Map(fixture.drive.unfinished),
};
const now = new Date(fixture.originMs);
const tmp = mkdtempSync(join(tmpdir(), 'predicted-samples-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A predicted part's folder written from the fixture's drive, and its samples as the prediction holds them. */
function predictedFolder(name: string) {
  const dir = join(tmp, name);
  const part = writePredictedPart(dir, fixture.plan, drive, fixture.originMs);
  return { dir, part };
}

/** Every number of `actual` within `tolerance` (relative, and absolute near 0) of `expected`; the rest equal. */
function expectClose(actual: unknown, expected: unknown, where: string, tolerance = 1e-6): void {
  if (typeof expected === 'number' && typeof actual === 'number') {
    const bound = tolerance * Math.max(1, Math.abs(expected));
    expect(Math.abs(actual - expected), `${where}: ${actual} vs ${expected}`).toBeLessThanOrEqual(bound);
  } else if (expected !== null && typeof expected === 'object' && actual !== null && typeof actual === 'object') {
    expect(Object.keys(actual).sort(), where).toEqual(Object.keys(expected).sort());
    for (const key of Object.keys(expected)) {
      const [a, b] = [actual, expected].map((x) => (x as Record<string, unknown>)[key]);
      expectClose(a, b, `${where}.${key}`, tolerance);
    }
  } else expect(actual, where).toEqual(expected);
}

describe('a predicted part\'s samples', () => {
  it('give the same report in memory as stored in predicted-samples.jsonl and read back', async () => {
    // A k6 CSV left by an earlier run under the same id is removed, else `npm run report` would read it instead.
    mkdirSync(join(tmp, 'both', 'capacity'), { recursive: true });
    writeFileSync(join(tmp, 'both', 'capacity', 'samples.csv'), 'metric_name,timestamp,metric_value\n');
    const { dir, part } = predictedFolder('both');
    expect(readdirSync(join(dir, 'capacity')).sort()).toEqual(['plan.json', 'predicted-samples.jsonl', 'summary.json']);
    const inMemory = await analyzeRun(dir, DEFAULT_REPORT_OPTIONS, now, () => Promise.resolve(part.samples));
    const stored = await analyzeRun(dir, DEFAULT_REPORT_OPTIONS, now);
    expect(inMemory.cells).toHaveLength(3);
    expect(JSON.stringify(stored)).toBe(JSON.stringify(inMemory));
  });

  it('give the cells the k6-CSV path gave the same drive, but for its 6-decimal rounding', async () => {
    const { dir, part } = predictedFolder('cells');
    const report = await analyzeRun(dir, DEFAULT_REPORT_OPTIONS, now, () => Promise.resolve(part.samples));
    expect(report.cells.map((c) => c.id)).toEqual(fixture.csvCells.map((c) => c.id));
    expect(part.requests).toBe(fixture.drive.steps.reduce((n, s) => n + s.requests.length, 0));
    expectClose(report.cells, fixture.csvCells, 'cells');
  });

  it('refuse a damaged file in one line that names it and the line', async () => {
    const { dir } = predictedFolder('damaged');
    const file = join(dir, 'capacity', 'predicted-samples.jsonl');
    const lines = readFileSync(file, 'utf8').split('\n');
    writeFileSync(file, [...lines.slice(0, 2), '{"tags":{}}', ''].join('\n'));
    const error = await readPredictedSamples(file).then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(ReportInputError);
    const line3 = new RegExp(`^${file}:3: tags must name the cell: .*predict the run again\\)$`);
    expect((error as Error).message).toMatch(line3);
    writeFileSync(file, 'metric_name,timestamp,metric_value\n');
    await expect(readPredictedSamples(file)).rejects.toThrow(`${file}:1: not JSON`);
  });
});
