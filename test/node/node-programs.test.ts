// Tests that the suite's bundled Node programs (node/node-programs.ts, dist-node/) are the TypeScript's: the bench
// and the simulator start them in place of scripts/*.ts while current, so the bundled report must write what the
// TypeScript writes, and the bundled simulator must serve. Real builds, real processes, real files. Runs in Node.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildNodeBundles, currentBundle, NODE_BUNDLE_DIR, nodeProgram } from '../../node/node-programs';
import { startSimChild } from '../../sim/child';
import { SYNC_CHILD_LIMIT } from '../sync-child';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const RUN = path.join(ROOT, 'test', 'report', 'fixtures', 'suite-run');

beforeAll(async () => {
  await buildNodeBundles();
}, 60_000);

/** report.json and report.md as a command writes them for the fixture run, without when and where it wrote them. */
function reportOf(command: readonly string[]): { json: unknown; md: string } {
  const out = mkdtempSync(path.join(tmpdir(), 'node-program-'));
  const r = spawnSync(command[0]!, [...command.slice(1), RUN, '--out', out], {
    cwd: ROOT, encoding: 'utf8', ...SYNC_CHILD_LIMIT,
  });
  expect(r.status, r.stderr).toBe(0);
  const report = JSON.parse(readFileSync(path.join(out, 'report.json'), 'utf8')) as Record<string, unknown>;
  const options = { ...(report.options as object), outDir: null };
  const md = readFileSync(path.join(out, 'report.md'), 'utf8').replace(/^Generated .*$/m, '');
  return { json: { ...report, generatedAt: null, options }, md };
}

describe('bundled Node programs', () => {
  it('start from dist-node/ once built, and the bundled report writes what the TypeScript writes', () => {
    expect(nodeProgram('report')).toEqual([process.execPath, path.join(NODE_BUNDLE_DIR, 'report.mjs')]);
    const typescript = [process.execPath, '--import', 'tsx', path.join(ROOT, 'scripts', 'report.ts')];
    const bundled = reportOf(nodeProgram('report'));
    expect(bundled.md).toContain('## ');
    expect(bundled).toEqual(reportOf(typescript));
  }, 60_000);

  it('run the simulator from its bundle, tokenizer worker included', async () => {
    expect(currentBundle('tokenize-worker')).toBe(path.join(NODE_BUNDLE_DIR, 'tokenize-worker.mjs'));
    const sim = await startSimChild(['--fixed-ttft-ms', '5', '--fixed-itl-ms', '1']);
    try {
      expect(sim.child.spawnargs).toContain(path.join(NODE_BUNDLE_DIR, 'sim.mjs'));
      const body = JSON.stringify({ prompt: 'hello world' });
      const headers = { 'content-type': 'application/json' };
      const res = await fetch(`${sim.base}/tokenize`, { method: 'POST', headers, body });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { count: number }).count).toBe(2);
    } finally {
      await sim.stop();
    }
  }, 60_000);
});
