// End to end: the baseline gate under noise, on k6 against the noisy simulator. Runs in Node (vitest).
// Two runs of one plan that differ only in the noise's seed do not fail the gate; the same plan on a profile 20%
// slower (every step takes 1.25x as long) does, with exit 99, and the report prints the change beside its noise.

import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { findProfile } from '../../sim/profiles';
import { ROOT, runBenchCli, tempDir, writePlan } from './helpers';
import { nodeProgram } from '../../node/node-programs';
import { SYNC_CHILD_LIMIT } from '../sync-child';

/** One use case read off the sweep's cells (same context and output): its limits are gated cell by cell. */
const PLAN = {
  sweep: { contexts: [1024], concurrencies: [1, 4, 8], rounds: 4, outputTokens: 64 },
  useCases: [{
    id: 'chat_1k', contextTokens: 1024, outputTokens: 64,
    limits: [{ metric: 'ttft', operator: '<', value: 5000 }, { metric: 'decodeSpeed', operator: '>', value: 5 }],
  }],
};

/** Profile A with every step 1.25x as long: 20% less speed at every load. */
function slowerProfile(dir: string): string {
  const a = findProfile('A')!.hardware;
  const file = path.join(dir, 'slower.json');
  writeFileSync(file, JSON.stringify({
    base: 'A', name: 'a-20pct-slower',
    hardware: {
      etaMem: a.etaMem / 1.25, t0Ms: a.t0Ms * 1.25, lambdaUsPerToken: a.lambdaUsPerToken * 1.25,
      alphaSecondsPerPair: a.alphaSecondsPerPair * 1.25, requestOverheadMs: a.requestOverheadMs * 1.25,
    },
  }));
  return file;
}

/** The report against the baseline with no tolerance at all: any move in the bad direction must clear the noise. */
function report(runDir: string, baseline: string): { status: number; out: string } {
  const [program, ...lead] = nodeProgram('report');
  const args = [...lead, runDir, '--baseline', baseline, '--tolerance', '0'];
  const r = spawnSync(program!, args, { cwd: ROOT, encoding: 'utf8', ...SYNC_CHILD_LIMIT });
  return { status: r.status ?? -1, out: r.stdout + r.stderr };
}

interface Delta { metric: string; gated: boolean; change: number | null; noise: number | null; regression: boolean }

describe('npm run report --baseline on the noisy simulator', () => {
  const dir = tempDir('noise-gate');
  // Written once: the runs start together, and a plan rewritten while another run reads it could read empty.
  const plan = writePlan(dir, PLAN);
  const run = (id: string, extra: string[]) =>
    runBenchCli([
      '--plan', plan, '--scripts', 'sweep', '--results', dir, '--run-id', id, '--no-report', ...extra,
    ]);

  beforeAll(async () => {
    const runs = [
      ['base', ['--sim-noise-seed', '11']],
      ['reseeded', ['--sim-noise-seed', '12']],
      ['slower', ['--sim-noise-seed', '13', '--profile', slowerProfile(dir)]],
    ] as const;
    // At once: the runs compared see the same machine, each other, as they step through the same cells together.
    // One after another they took 42 s; at once 16, and the reseeded run's gated figures moved by 0.03 to 0.53 of
    // their noise (0.00 to 0.44 one after another), 2026-12-07.
    await Promise.all(runs.map(async ([id, extra]) => {
      const r = await run(id, [...extra]);
      expect(r.exitCode, `${id}: ${r.stderr.slice(-400)}`).toBe(0);
    }));
  }, 300_000);

  it('passes a rerun that differs only by the noise, a change within its own uncertainty', () => {
    const r = report(path.join(dir, 'reseeded'), path.join(dir, 'base'));
    expect(r.status, r.out).toBe(0);
    // The gated figures did move (the seeds differ), each by less than its noise: what let the gate pass.
    const json = JSON.parse(readFileSync(path.join(dir, 'reseeded', 'report.json'), 'utf8')) as {
      comparison: { cells: { deltas: Delta[] }[] };
    };
    const gated = json.comparison.cells.flatMap((c) => c.deltas).filter((d) => d.gated && d.noise !== null);
    expect(gated.length).toBeGreaterThanOrEqual(6);
    expect(gated.some((d) => d.change !== 0)).toBe(true);
    expect(gated.filter((d) => d.regression)).toEqual([]);
  }, 60_000);

  it('fails a 20% slower server with exit 99, naming the change and the noise it was weighed against', () => {
    const r = report(path.join(dir, 'slower'), path.join(dir, 'base'));
    expect(r.status, r.out).toBe(99);
    expect(r.out).toMatch(
      /regression\(s\) against the baseline: .*(fell|rose) [\d.]+% .*beyond the 0% tolerance and its noise \(±/,
    );
  }, 60_000);
});
