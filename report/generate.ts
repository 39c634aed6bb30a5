// Orchestrates a report, from the run folder to the written files. Runs in Node.
// Load the run folder, stream each part's samples, build the report object, render, and write the files.

import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadRun } from './load-run';
import type { PartInput } from './inputs';
import type { SamplesData } from './read-samples';
import { readPartSamples } from './split-inputs';
import { buildReport, DEFAULT_REPORT_OPTIONS } from './build-report';
import type { Comparison, Report, ReportOptions } from './report-types';
import { buildCharts, renderChartSvg, type ChartSpec } from './charts';
import { sessionCharts } from './charts-sessions';
import { agenticCharts } from './charts-agentic';
import { rateCharts } from './charts-rate';
import { traceCharts } from './charts-trace';
import { embedCharts } from './charts-embed';
import { frontierCharts } from './charts-frontier';
import { buildDocument } from './sections';
import { renderMarkdown } from './render-md';
import { renderHtml } from './render-html';
import { renderCapacityCsv, renderCellsCsv } from './render-csv';
import { renderActiveUsersCsv } from './render-active-users-csv';
import { compareReports } from './compare';
import { markPredictedCharts } from './predicted-charts';

/**
 * Reads a run folder (or part folder, or a split run's runner folders) and builds its report object,
 * without writing anything.
 */
export async function analyzeRun(
  folder: string | readonly string[], options: ReportOptions = DEFAULT_REPORT_OPTIONS, now = new Date(),
  samplesOf: PartSamples = readPartSamples,
): Promise<Report> {
  const input = loadRun(folder);
  const samples: SamplesData[] = [];
  // One part at a time: memory holds one CSV's accumulators at most (plus the finished cells).
  for (const part of input.parts) samples.push(await samplesOf(part));
  return buildReport(input, samples, options, now);
}

/**
 * Where a part's samples come from: by default its files (k6's CSV, or a predicted part's stored records); a
 * prediction hands over the ones it holds in memory (whatif/predict-run.ts).
 */
export type PartSamples = (part: PartInput) => Promise<SamplesData>;

export interface RenderedReport {
  readonly markdown: string;
  readonly html: string;
  readonly json: string;
  readonly cellsCsv: string;
  readonly capacityCsv: string;
  /** active-users.csv, when a sessions part ran. */
  readonly activeUsersCsv: string | null;
  readonly compareJson: string | null;
  readonly charts: readonly ChartSpec[];
  readonly svgs: ReadonlyMap<string, string>;
}

/** Renders every output of a report as strings. */
export function renderReport(report: Report): RenderedReport {
  const built = [
    ...buildCharts(report), ...frontierCharts(report), ...sessionCharts(report), ...rateCharts(report),
    ...traceCharts(report), ...embedCharts(report), ...agenticCharts(report),
  ];
  const charts = markPredictedCharts(built, report.predicted);
  const ids = new Set(charts.map((c) => c.id));
  const blocks = buildDocument(report, ids);
  const svgs = new Map(charts.map((c) => [c.id, renderChartSvg(c)]));
  return {
    markdown: renderMarkdown(blocks, charts),
    html: renderHtml(blocks, charts, report.title),
    json: `${JSON.stringify(report, null, 1)}\n`,
    cellsCsv: renderCellsCsv(report),
    capacityCsv: renderCapacityCsv(report),
    activeUsersCsv: renderActiveUsersCsv(report),
    compareJson: report.comparison
      ? `${JSON.stringify({ schemaVersion: report.schemaVersion, ...report.comparison }, null, 1)}\n`
      : null,
    charts,
    svgs,
  };
}

/**
 * Every file of a rendered report, by its path inside the report folder: report.md, report.html, report.json,
 * cells.csv, capacity.csv, active-users.csv and compare.json when there are such, charts/*.svg.
 */
export function reportFiles(r: RenderedReport): Map<string, string> {
  const files = new Map<string, string>([
    ['report.md', r.markdown], ['report.html', r.html], ['report.json', r.json], ['cells.csv', r.cellsCsv],
    ['capacity.csv', r.capacityCsv],
  ]);
  if (r.activeUsersCsv) files.set('active-users.csv', r.activeUsersCsv);
  if (r.compareJson) files.set('compare.json', r.compareJson);
  for (const [id, svg] of r.svgs) files.set(join('charts', `${id}.svg`), svg);
  return files;
}

/** The files a report may write that are written only sometimes: a stale one would be misleading. */
const OPTIONAL_FILES = ['active-users.csv', 'compare.json'];

/**
 * Writes the rendered report into a folder (report.md, report.html, report.json, cells.csv, capacity.csv,
 * active-users.csv, charts/*.svg, compare.json).
 */
export function writeReportFiles(dir: string, r: RenderedReport): string[] {
  const chartsDir = join(dir, 'charts');
  mkdirSync(chartsDir, { recursive: true });
  // Old charts of a previous report would be misleading: clear the folder's SVGs first.
  for (const f of readdirSync(chartsDir)) if (f.endsWith('.svg')) rmSync(join(chartsDir, f));
  const files = reportFiles(r);
  for (const name of OPTIONAL_FILES) if (!files.has(name)) rmSync(join(dir, name), { force: true });
  for (const [name, text] of files) writeFileSync(join(dir, name), text);
  return [...files.keys()];
}

export interface GenerateOptions extends ReportOptions {
  readonly baseline: string | null;
  /** Relative tolerance of the baseline comparison (0.1 = 10%). */
  readonly tolerance: number;
  /** Where to write; defaults to the run folder. */
  readonly outDir: string | null;
}

export interface GenerateResult {
  readonly report: Report;
  readonly outDir: string;
  readonly files: readonly string[];
  readonly comparison: Comparison | null;
}

/** The whole command: analyse, compare with a baseline when given, render, write. */
export async function generateReport(
  folder: string | readonly string[], options: GenerateOptions, samplesOf: PartSamples = readPartSamples,
): Promise<GenerateResult> {
  const report = await analyzeRun(folder, options, new Date(), samplesOf);
  if (options.baseline) {
    const baseline = await analyzeRun(options.baseline, options);
    report.comparison = compareReports(report, baseline, options.tolerance);
  }
  const outDir = options.outDir ?? report.runDir;
  mkdirSync(outDir, { recursive: true });
  const files = writeReportFiles(outDir, renderReport(report));
  return { report, outDir, files, comparison: report.comparison };
}
