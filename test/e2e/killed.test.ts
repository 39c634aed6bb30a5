// A run killed hard (SIGKILL) mid-run on a stock k6 (with the measuring agent) still gets a report. Runs in Node
// (vitest).
// The report reads its folder, drops a cut last CSV line, and says the run is incomplete and which cells it lacks.

import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyEnvToPlan } from '../../lib/env';
import { resolvePlan, type PlanInput } from '../../lib/plan';
import { analyzeRun, renderReport } from '../../report/generate';
import { DEFAULT_REPORT_OPTIONS } from '../../report/build-report';
import { buildBundles } from '../../orchestrator/bundles';
import { startSim } from '../../sim/server';
import { runScript } from './helpers';

const MODEL = 'Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8';

beforeAll(async () => {
  await buildBundles();
}, 120_000);

describe('a run killed with SIGKILL', () => {
  let sim: Awaited<ReturnType<typeof startSim>>;
  beforeAll(async () => {
    sim = await startSim({ port: 0, fixed: { ttftMs: 20, itlMs: 20 } });
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('leaves a folder the report reads, saying it is incomplete and which cells it lacks', async () => {
    const input: PlanInput = {
      sweep: { contexts: [256, 512], concurrencies: [1, 2], rounds: 3, outputTokens: 32 },
      schedule: {
        prefillTokensPerSecond: 100_000, decodeTokensPerSecond: 50, safetyFactor: 3, minCellSeconds: 2, gapSeconds: 0,
      },
    };
    const env = { BASE_URL: sim.url, MODEL };
    let killedAfterSamples = false;
    const r = await runScript('sweep', input, env, {
      onStart: (child) => {
        // Kill as soon as the first request has been recorded (the first cell of four is running).
        const started = Date.now();
        const out = child.spawnargs.find((a) => a.startsWith('csv=fileName='))!;
        const csv = out.slice('csv=fileName='.length).split(',')[0]!;
        const poll = setInterval(() => {
          const ready = existsSync(csv) && readFileSync(csv, 'utf8').includes('llm_request_ok,');
          if (ready || Date.now() - started > 60_000) {
            clearInterval(poll);
            killedAfterSamples = ready;
            child.kill('SIGKILL');
          }
        }, 50);
      },
    });
    expect(r.exitCode, r.stderr).not.toBe(0);
    expect(killedAfterSamples).toBe(true);
    expect(existsSync(path.join(r.dir, 'summary.json'))).toBe(false);
    // The bench writes plan.json before starting a part (the script writes it only at its end).
    const plan = resolvePlan(applyEnvToPlan(input, env), 'sweep');
    writeFileSync(path.join(r.dir, 'plan.json'), JSON.stringify(plan, null, 1));
    // Whatever the kill left, make sure the file ends inside a line, as a flush cut by SIGKILL does.
    appendFileSync(path.join(r.dir, 'samples.csv'), 'llm_ttft,17953246');

    const report = await analyzeRun(r.dir, DEFAULT_REPORT_OPTIONS);
    expect(report.incomplete).toBe(true);
    expect(report.missingCells.length).toBeGreaterThan(0);
    expect(report.missingCells).toContain(plan.cells[plan.cells.length - 1]!.id);
    // The first warning, and its details say why, part by part.
    expect(report.warnings[0]!.kind).toBe('incomplete');
    expect(report.warnings[0]!.summary).toMatch(/^The run is incomplete/);
    const causes = report.warnings[0]!.details.join('\n');
    expect(causes).toMatch(/no summary\.json/);
    expect(causes).toMatch(/cut mid-line/);
    for (const id of report.missingCells) expect(causes).toContain(id);
    // The cut line is not a row: no request figure comes from it, and the measured cell is intact.
    const measured = report.cells.filter((c) => c.requests > 0);
    expect(measured.length).toBeGreaterThan(0);
    for (const c of measured) expect(c.metrics.ttft === null || c.metrics.ttft.min > 1).toBe(true);
    const md = renderReport(report).markdown;
    expect(md).toContain('The run is incomplete');
  }, 120_000);
});
