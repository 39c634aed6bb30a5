// The report on the golden outputs of a real k6 run (test/fixtures/k6-golden). Runs in Node (vitest).
// The CSV and handleSummary shapes are read as they are.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolvePlan } from '../../lib/plan';
import { generateReport } from '../../report/generate';
import { DEFAULT_REPORT_OPTIONS } from '../../report/build-report';
import { GOLDEN_DIR } from '../fixtures/golden';

const GOLDEN = GOLDEN_DIR;
const tmp = mkdtempSync(join(tmpdir(), 'report-golden-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('report on the golden k6 run', () => {
  it('reads samples-unix-milli.csv and handle-summary-data.json as written by k6 v1.3.0', async () => {
    const dir = join(tmp, 'sweep');
    mkdirSync(dir, { recursive: true });
    // golden.js ran two measurement cells; describe them as a plan (the rest of its scenarios are strays).
    const base = resolvePlan({ sweep: { contexts: [1024], concurrencies: [2], rounds: 2, outputTokens: 5 } }, 'sweep');
    const cell = base.cells[0]!;
    const plan = {
      ...base, monitor: { enabled: true, intervalSeconds: 0.5 },
      cells: [
        { ...cell, id: 'ctx1k_c2', concurrency: 2, rounds: 2 }, { ...cell, id: 'ctx1k_c4', concurrency: 4, rounds: 1 },
      ],
    };
    writeFileSync(join(dir, 'plan.json'), JSON.stringify(plan));
    copyFileSync(join(GOLDEN, 'samples-unix-milli.csv'), join(dir, 'samples.csv'));
    copyFileSync(join(GOLDEN, 'handle-summary-data.json'), join(dir, 'summary.json'));
    const options = { ...DEFAULT_REPORT_OPTIONS, baseline: null, tolerance: 0.1, outDir: null };
    const { report } = await generateReport(dir, options);
    const c2 = report.cells.find((c) => c.id === 'ctx1k_c2')!;
    const c4 = report.cells.find((c) => c.id === 'ctx1k_c4')!;
    expect(c2.metrics.ttft?.count).toBe(4);
    expect(c4.metrics.ttft?.count).toBe(6);
    expect(c2.successRate).toBe(1);
    expect(c2.tokenSource).toBe('unknown');
    // A stray tag is the suite's own plumbing: a run note, no warning.
    expect(report.runNotes.some((note) => /not in its plan\.json/.test(note))).toBe(true);
    expect(report.warnings.map((w) => w.summary).join('\n')).not.toMatch(/not in its plan\.json/);
    const part = report.parts[0]!;
    expect(part.testRunDurationMs).toBeCloseTo(5015.889249, 6);
    expect(
      part.thresholds
        .filter((t) => !t.ok)
        .map((t) => `${t.metric} ${t.expression}`)
        .sort(),
    ).toEqual(['llm_decode_speed{cell:none} avg>0', 'llm_ttft{cell:ctx1k_c4} avg<1']);
    const md = readFileSync(join(dir, 'report.md'), 'utf8');
    expect(md).toMatch(/## k6 Thresholds/);
    expect(md).toContain(
      'sweep: 4 of 6 thresholds passed; failed: llm_decode_speed{cell:none} avg>0, llm_ttft{cell:ctx1k_c4} avg<1',
    );
    expect(md).toMatch(/GPU power was not measured/);
  });
});
