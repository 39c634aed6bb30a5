// Benchmarks the report on a k6-layout CSV of about 5 million rows, with peak RSS. Runs in Node.
// It first generates the CSV as a synthetic run folder, then times the report on it.
//
// npm run bench:report-speed [-- --rows 5000000 --keep]
// The report runs in a child process so its peak RSS is its own, not the generator's.

import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { writeRunFixture } from '../test/report/fixtures/make-run';
import { analyzeRun, renderReport, writeReportFiles } from '../report/generate';

const TARGET_SECONDS = 30;

async function child(dir: string): Promise<void> {
  const t0 = performance.now();
  const report = await analyzeRun(dir);
  const t1 = performance.now();
  const rendered = renderReport(report);
  const t2 = performance.now();
  writeReportFiles(dir, rendered);
  const t3 = performance.now();
  const rows = report.parts.reduce((n, p) => n + p.csvRows, 0);
  process.stdout.write(
    JSON.stringify({
      readMs: t1 - t0, renderMs: t2 - t1, writeMs: t3 - t2, totalMs: t3 - t0, rows, cells: report.cells.length,
      maxRssMb: process.resourceUsage().maxRSS / 1024,
    }),
  );
}

function rowsPerRequest(output: number): number {
  return output - 1 + 13;
}

async function main(): Promise<void> {
  const program = new Command()
    .option('--rows <n>', 'approximate CSV rows to generate', (v) => Number(v), 5_000_000)
    .option('--keep', 'keep the generated run folder')
    .option('--child <dir>', 'internal: run the report on <dir> and print timings as JSON')
    .parse(process.argv);
  const o = program.opts<{ rows: number; keep?: boolean; child?: string }>();
  if (o.child) return child(o.child);

  const contexts = [1024, 8192, 32768, 65536];
  const concurrencies = [1, 2, 4, 8, 16, 32];
  const output = 1024;
  const usersPerRound = contexts.length * concurrencies.reduce((a, b) => a + b, 0);
  const rounds = Math.max(1, Math.round(o.rows / (usersPerRound * rowsPerRequest(output))));
  const dir = join(mkdtempSync(join(tmpdir(), 'report-speed-')), 'run');
  const g0 = performance.now();
  const fx = writeRunFixture({
    dir,
    parts: { sweep: { name: 'speed', sweep: { contexts, concurrencies, rounds, outputTokens: output }, schedule: { cellSeconds: 60 } } },
    failEvery: 997,
    jitter: 0.1,
  });
  const genS = (performance.now() - g0) / 1000;
  const bytes = statSync(join(dir, 'sweep', 'samples.csv')).size;
  const r = spawnSync(process.execPath, ['--import', 'tsx', import.meta.filename, '--child', dir], {
    encoding: 'utf8', maxBuffer: 1 << 20,
  });
  if (r.status !== 0) {
    process.stderr.write(`bench: report failed: ${r.stderr.trim().split('\n')[0]}\n`);
    process.exit(1);
  }
  const m = JSON.parse(r.stdout) as {
    readMs: number; renderMs: number; writeMs: number; totalMs: number; rows: number; cells: number; maxRssMb: number;
  };
  const rows: [string, string][] = [
    ['CSV rows', m.rows.toLocaleString('en-US')],
    ['CSV size', `${(bytes / 1e6).toFixed(0)} MB`],
    ['cells', String(m.cells)],
    ['generate CSV (not timed as report)', `${genS.toFixed(1)} s`],
    [
      'read + aggregate',
      `${(m.readMs / 1000).toFixed(1)} s (${(((m.rows / m.readMs) * 1000) / 1e6).toFixed(2)} M rows/s)`,
    ],
    ['build charts + render', `${(m.renderMs / 1000).toFixed(1)} s`],
    ['write files', `${(m.writeMs / 1000).toFixed(2)} s`],
    [
      'report total',
      `${(m.totalMs / 1000).toFixed(1)} s (target < ${TARGET_SECONDS} s: ${m.totalMs / 1000 < TARGET_SECONDS ? 'met' : 'MISSED'})`,
    ],
    ['peak RSS (report process)', `${m.maxRssMb.toFixed(0)} MB`],
  ];
  const w = Math.max(...rows.map(([k]) => k.length));
  process.stdout.write(`report speed (${fx.rows.toLocaleString('en-US')} rows written)\n`);
  for (const [k, v] of rows) process.stdout.write(`  ${k.padEnd(w)}  ${v}\n`);
  if (o.keep) process.stdout.write(`  kept: ${dir}\n`);
  else rmSync(join(dir, '..'), { recursive: true, force: true });
  if (m.totalMs / 1000 >= TARGET_SECONDS) process.exitCode = 1;
}

main().catch((e: unknown) => {
  process.stderr.write(`bench: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
