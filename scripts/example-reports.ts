// The committed example reports (results/examples/<name>/): import a run as one, remake one from its committed
// samples with the current report code, and check that what is committed is what that code writes. Runs in Node.
//
// An example keeps what its report reads: run.json, plan-input.json, each part's plan.json and summary.json, and
// each part's samples gzipped (k6's samples.csv.gz, a tenth of the size; a predicted run's predicted-samples.jsonl.gz).
// So the report code can change and every example
// is re-rendered, not re-run; only a change to what k6 measures needs a new run (`--rerun`).

import { createReadStream, createWriteStream, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync,
  rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip, constants as zlib } from 'node:zlib';
import { UserError } from './cli';
import { analyzeRun, renderReport, reportFiles, writeReportFiles, type RenderedReport } from '../report/generate';
import { DEFAULT_REPORT_OPTIONS } from '../report/build-report';
import { PREDICTED_SAMPLES_FILE } from '../report/predicted';
import type { ReportOptions } from '../report/report-types';

export const EXAMPLES_DIR = resolve(import.meta.dirname, '..', 'results', 'examples');

/** A run's files an example keeps, beside its parts' folders. */
const RUN_FILES = ['run.json', 'plan-input.json'];
/** A part's files an example keeps, beside its gzipped samples. */
const PART_FILES = ['plan.json', 'summary.json'];
/** A part's samples: a measured part's k6 CSV, or a predicted part's own records (report/predicted-samples.ts). */
const SAMPLES_FILES = ['samples.csv', PREDICTED_SAMPLES_FILE];
const gz = (file: string) => `${file}.gz`;

/** The samples file a part folder holds (`zipped`: its gzipped copy, as an example keeps it), or null. */
function samplesFileIn(partDir: string, zipped: boolean): string | null {
  return SAMPLES_FILES.find((file) => existsSync(join(partDir, zipped ? gz(file) : file))) ?? null;
}

interface RunFile {
  readonly parts: readonly string[];
  readonly endedAt: string | null;
}

function readRunFile(dir: string): RunFile {
  const path = join(dir, 'run.json');
  if (!existsSync(path)) throw new UserError(`${dir} has no run.json: not a run folder of npm run bench`);
  const run = JSON.parse(readFileSync(path, 'utf8')) as { parts?: unknown; endedAt?: unknown };
  if (!Array.isArray(run.parts) || run.parts.some((p) => typeof p !== 'string')) {
    throw new UserError(`${path} has no list of parts`);
  }
  return { parts: run.parts as string[], endedAt: typeof run.endedAt === 'string' ? run.endedAt : null };
}

/** The names of the committed examples, in order. */
export function exampleNames(): string[] {
  return readdirSync(EXAMPLES_DIR, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name).sort();
}

/** The parts of an example whose samples are not committed (the example cannot be remade without a new run). */
export function partsWithoutSamples(name: string): string[] {
  const dir = join(EXAMPLES_DIR, name);
  return readRunFile(dir).parts.filter((part) => samplesFileIn(join(dir, part), true) === null);
}

/** Copies a finished run (results/<run-id>) in as an example: its report inputs, the samples gzipped. */
export async function importRun(runDir: string, name: string): Promise<void> {
  if (!/^[a-z0-9][a-z0-9-]*$/.test(name)) throw new UserError(`example name "${name}": use a-z, 0-9 and -`);
  const run = readRunFile(runDir);
  for (const part of run.parts) {
    if (!samplesFileIn(join(runDir, part), false)) throw new UserError(`${runDir}/${part}/samples.csv is missing`);
  }
  const dir = join(EXAMPLES_DIR, name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const file of RUN_FILES) if (existsSync(join(runDir, file))) cpSync(join(runDir, file), join(dir, file));
  for (const part of run.parts) {
    mkdirSync(join(dir, part));
    for (const file of PART_FILES) {
      if (existsSync(join(runDir, part, file))) cpSync(join(runDir, part, file), join(dir, part, file));
    }
    const samples = samplesFileIn(join(runDir, part), false)!;
    await pipeline(
      createReadStream(join(runDir, part, samples)), createGzip({ level: zlib.Z_BEST_COMPRESSION }),
      createWriteStream(join(dir, part, gz(samples))),
    );
  }
}

/** The report options an example was rendered with (from its report.json), else the defaults. */
function exampleOptions(dir: string): ReportOptions {
  const path = join(dir, 'report.json');
  if (!existsSync(path)) return DEFAULT_REPORT_OPTIONS;
  const stored = (JSON.parse(readFileSync(path, 'utf8')) as { options?: Partial<ReportOptions> }).options ?? {};
  return { ...DEFAULT_REPORT_OPTIONS, ...stored };
}

/**
 * Renders an example's report from its committed inputs with the current report code: every file by its path in
 * the example's folder. The samples are unzipped into a scratch copy, removed afterwards. The report's clock is
 * the run's end and its folder the example's path in the repository, so the same inputs render the same bytes.
 */
export async function renderExample(name: string): Promise<RenderedReport> {
  const dir = join(EXAMPLES_DIR, name);
  const run = readRunFile(dir);
  const missing = partsWithoutSamples(name);
  if (missing.length > 0) throw new UserError(`${name}: no ${gz('samples.csv')} for ${missing.join(', ')}: rerun it`);
  const scratch = mkdtempSync(join(tmpdir(), `k6llm-example-${name}-`));
  try {
    for (const file of RUN_FILES) if (existsSync(join(dir, file))) cpSync(join(dir, file), join(scratch, file));
    for (const part of run.parts) {
      mkdirSync(join(scratch, part));
      for (const file of PART_FILES) {
        if (existsSync(join(dir, part, file))) cpSync(join(dir, part, file), join(scratch, part, file));
      }
      const samples = samplesFileIn(join(dir, part), true)!;
      await pipeline(
        createReadStream(join(dir, part, gz(samples))), createGunzip(), createWriteStream(join(scratch, part, samples)),
      );
    }
    const now = run.endedAt ? new Date(run.endedAt) : new Date(0);
    const report = await analyzeRun(scratch, exampleOptions(dir), now);
    return renderReport({ ...report, runDir: `results/examples/${name}` });
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Writes an example's report files from renderExample, replacing the old report and charts. */
export async function remakeExample(name: string): Promise<number> {
  return writeReportFiles(join(EXAMPLES_DIR, name), await renderExample(name)).length;
}

/**
 * What differs between an example's committed report and what the current code renders from its inputs: one line
 * per file that differs, is missing, or is committed but no longer written (charts included).
 */
export async function checkExample(name: string): Promise<string[]> {
  const dir = join(EXAMPLES_DIR, name);
  const files = reportFiles(await renderExample(name));
  const problems: string[] = [];
  for (const [path, text] of files) {
    const committed = join(dir, path);
    if (!existsSync(committed)) problems.push(`${name}/${path}: not committed`);
    else if (readFileSync(committed, 'utf8') !== text) problems.push(`${name}/${path}: differs`);
  }
  const charts = existsSync(join(dir, 'charts')) ? readdirSync(join(dir, 'charts')) : [];
  for (const chart of charts) {
    if (!files.has(join('charts', chart))) problems.push(`${name}/charts/${chart}: no longer written`);
  }
  return problems;
}
