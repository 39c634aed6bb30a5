// Benchmarks the report on a k6-layout CSV of about 5 million rows, with peak RSS. Runs in Node.
// It first generates the CSV as a synthetic run folder, then times the report on it.
//
// npm run bench:report-speed [-- --rows 5000000 --split 4 --keep]
// The report runs in a child process so its peak RSS is its own, not the generator's. With --split n the
// same rows are also dealt out to n runner folders (a split run, docs/reference/contracts.md "Split runs") and the
// merged report is timed against the report of the one file (target: at most 1.5x its time).

import { spawnSync } from 'node:child_process';
import {
  cpSync, createReadStream, createWriteStream, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync,
  type WriteStream,
} from 'node:fs';
import { once } from 'node:events';
import { cpus, tmpdir } from 'node:os';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { Command } from 'commander';
import { writeRunFixture } from '../test/report/fixtures/make-run';
import { analyzeRun, renderReport, writeReportFiles } from '../report/generate';
import { runnerOf } from '../lib/runner';
import { operatorSegmentFlags } from '../lib/segments';

const TARGET_SECONDS = 30;
/** A split run's merged report may take at most this many times the one file's. */
const SPLIT_TARGET_RATIO = 1.5;

interface Timing {
  readMs: number; renderMs: number; writeMs: number; totalMs: number; rows: number; cells: number; maxRssMb: number;
}

/** Times the report on `dir` in a child process. */
function timeReport(dir: string): Timing {
  const r = spawnSync(process.execPath, ['--import', 'tsx', import.meta.filename, '--child', dir], {
    encoding: 'utf8', maxBuffer: 1 << 20,
  });
  if (r.status !== 0) {
    process.stderr.write(`bench: report failed: ${r.stderr.trim().split('\n')[0]}\n`);
    process.exit(1);
  }
  return JSON.parse(r.stdout) as Timing;
}

async function write(out: WriteStream, line: string): Promise<void> {
  if (!out.write(line)) await once(out, 'drain');
}

/**
 * A copy of a run folder whose sweep part is split n ways, as k6 processes with execution segments
 * would have written it: the monitor's rows to runner 1, the other rows dealt out in turn.
 */
async function splitRun(dir: string, n: number): Promise<string> {
  const to = `${dir}-split${n}`;
  const part = join(to, 'sweep');
  mkdirSync(part, { recursive: true });
  cpSync(join(dir, 'run.json'), join(to, 'run.json'));
  cpSync(join(dir, 'sweep', 'plan.json'), join(part, 'plan.json'));
  const outs = Array.from({ length: n }, (_, i) => {
    const runner = join(part, `runner-${i + 1}`);
    mkdirSync(runner);
    cpSync(join(dir, 'sweep', 'summary.json'), join(runner, 'summary.json'));
    const [segment, sequence] = operatorSegmentFlags(i + 1, n).map((flag) => flag.slice(flag.indexOf('=') + 1));
    const info = runnerOf({ executionSegment: segment, executionSegmentSequence: sequence })!.info;
    writeFileSync(join(runner, 'runner.json'), JSON.stringify(info));
    return createWriteStream(join(runner, 'samples.csv'));
  });
  let header: string | null = null;
  let next = 0;
  for await (const line of createInterface({ input: createReadStream(join(dir, 'sweep', 'samples.csv')) })) {
    if (header === null) {
      header = `${line}\n`;
      for (const out of outs) await write(out, header);
    } else await write(outs[line.includes(',monitor,') ? 0 : next++ % n]!, `${line}\n`);
  }
  await Promise.all(outs.map((out) => new Promise((resolve) => out.end(resolve))));
  return to;
}

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
    .option('--split <n>', 'also time the report of the same rows split over n runner folders', (v) => Number(v), 0)
    .option('--keep', 'keep the generated run folder')
    .option('--child <dir>', 'internal: run the report on <dir> and print timings as JSON')
    .parse(process.argv);
  const o = program.opts<{ rows: number; keep?: boolean; child?: string; split: number }>();
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
    parts: {
      sweep: {
        name: 'speed', sweep: { contexts, concurrencies, rounds, outputTokens: output }, schedule: { cellSeconds: 60 },
      },
    },
    failEvery: 997,
    jitter: 0.1,
  });
  const genS = (performance.now() - g0) / 1000;
  const bytes = statSync(join(dir, 'sweep', 'samples.csv')).size;
  const m = timeReport(dir);
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
      `${(m.totalMs / 1000).toFixed(1)} s ` +
        `(target < ${TARGET_SECONDS} s: ${m.totalMs / 1000 < TARGET_SECONDS ? 'met' : 'MISSED'})`,
    ],
    ['peak RSS (report process)', `${m.maxRssMb.toFixed(0)} MB`],
  ];
  let splitMissed = false;
  if (o.split > 1) {
    const split = timeReport(await splitRun(dir, o.split));
    const ratio = split.totalMs / m.totalMs;
    splitMissed = ratio > SPLIT_TARGET_RATIO || split.rows !== m.rows;
    rows.push(
      [`split over ${o.split} runner folders`, `${split.rows.toLocaleString('en-US')} rows, ${split.cells} cells`],
      [`  read + merge ${o.split} CSVs`, `${(split.readMs / 1000).toFixed(1)} s`],
      [
        '  report total',
        `${(split.totalMs / 1000).toFixed(1)} s = ${ratio.toFixed(2)}x one file ` +
          `(target <= ${SPLIT_TARGET_RATIO}x: ${ratio <= SPLIT_TARGET_RATIO ? 'met' : 'MISSED'})`,
      ],
      ['  peak RSS', `${split.maxRssMb.toFixed(0)} MB`],
      ['cores (the report uses one)', String(cpus().length)],
    );
  }
  const w = Math.max(...rows.map(([k]) => k.length));
  process.stdout.write(`report speed (${fx.rows.toLocaleString('en-US')} rows written)\n`);
  for (const [k, v] of rows) process.stdout.write(`  ${k.padEnd(w)}  ${v}\n`);
  if (o.keep) process.stdout.write(`  kept: ${dir}\n`);
  else rmSync(join(dir, '..'), { recursive: true, force: true });
  if (m.totalMs / 1000 >= TARGET_SECONDS || splitMissed) process.exitCode = 1;
}

main().catch((e: unknown) => {
  process.stderr.write(`bench: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
