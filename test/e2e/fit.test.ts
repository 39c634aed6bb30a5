// npm run fit on a run measured against the simulator: the profile it writes is one the simulator serves, and its fit
// record names every cell, every parameter and where the scheduler's limits came from.

import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveProfile } from '../../sim/profiles';
import { readFittedProfile } from '../../whatif/fitted-profile';
import { ROOT, runBenchCli, tempDir, writePlan } from './helpers';

const SMALL_FIT = { sweep: { contexts: [256, 2048], concurrencies: [1, 4, 16], rounds: 2, outputTokens: 32 } };

function fit(args: readonly string[]) {
  return spawnSync(process.execPath, ['--import', 'tsx', path.join(ROOT, 'scripts', 'fit.ts'), ...args], {
    cwd: ROOT, encoding: 'utf8',
  });
}

describe('npm run fit', () => {
  it('fits a profile the simulator serves to a sweep measured on the simulator, with its record', async () => {
    const dir = tempDir('fit');
    const plan = writePlan(dir, SMALL_FIT);
    const args = ['--plan', plan, '--scripts', 'sweep', '--profile', 'B', '--results', dir, '--run-id', 'r'];
    const run = await runBenchCli(args);
    expect(run.exitCode, run.stderr).toBe(0);
    const out = path.join(dir, 'fitted.json');
    const r = fit([path.join(dir, 'r'), '--base', 'B', '--max-num-seqs', '256', '--resamples', '20', '--out', out]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`wrote ${out}`);
    expect(r.stdout).toMatch(/median error [\d.]+%/);
    // The simulator takes the file as it is, and the prediction reads its record.
    expect(resolveProfile(out).hardware.experts).toBe(128);
    const { profile, fit: record, resampled } = readFittedProfile(out);
    expect(profile.scheduler.maxNumSeqs).toBe(256);
    expect(resampled).toHaveLength(20);
    expect(record.cells).toBe(6);
    expect(record.residuals).toHaveLength(12);
    const source = (name: string) => record.parameters.find((p) => p.name === name)!;
    expect(source('scheduler.maxNumSeqs')).toMatchObject({ pinned: true, note: 'stated with --max-num-seqs' });
    expect(source('scheduler.kvCapacityTokens').pinned).toBe(false);
    expect(source('requestOverheadMs').value).toBeGreaterThan(0);
    // The client's turnaround between a user's requests, measured: never nothing over HTTP, never a second here.
    expect(record.clientGapMs).toBeGreaterThan(0);
    expect(record.clientGapMs).toBeLessThan(1000);
    // The fit explains what was measured: 7% median error here on a quiet machine. A loaded one (CI runs test files
    // side by side) delays the simulator's timers and the client's reads unevenly from cell to cell, which no
    // parameter absorbs, so the bound leaves room for that.
    expect(record.medianErrorPct).toBeLessThan(25);
  }, 240_000);

  it('says in one line what a run needs when it has no sweep to fit, and exits non-zero', () => {
    // A run folder whose one part is a mix (the plan of a real one, and no requests).
    const dir = tempDir('fit-mix');
    mkdirSync(path.join(dir, 'mix'));
    const mixPlan = path.join(ROOT, 'results', 'examples', 'sim-report-c', 'mix', 'plan.json');
    copyFileSync(mixPlan, path.join(dir, 'mix', 'plan.json'));
    writeFileSync(path.join(dir, 'mix', 'samples.csv'), '');
    const r = fit([dir]);
    expect(r.status).not.toBe(0);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^fit: .*no sweep part to fit to: measure one with npm run bench -- --plan fit/);
  });

  it('refuses a bad flag in one line', () => {
    const r = fit(['somewhere', '--top-k', '8']);
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe('fit: --experts and --top-k go together');
  });
});
