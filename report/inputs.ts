// Reads and validates a run folder (run.json, part folders with plan.json, summary.json) once, at the edge.
// Runs in Node.
//
// Every failure is a ReportInputError with a one-line message that says what to fix; nothing past
// this file checks shapes again. Layout: docs/contracts.md, "Run folder".

import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import * as v from 'valibot';
import { UserError } from '../lib/exit-codes';
import { PlanError, readResolvedPlan, SCRIPT_NAMES, type Plan } from '../lib/plan';
import { parseOrThrow, record } from '../lib/schema';

/** Bad input to the report (exit EXIT.badInput through the CLI). */
export class ReportInputError extends UserError {
  override name = 'ReportInputError';
}

/** run.json of the bench command (contract: docs/contracts.md). */
export interface RunInfo {
  readonly schemaVersion: number;
  readonly runId: string;
  readonly engine: 'k6' | 'runner';
  readonly engineVersion: string;
  readonly startedAt: string;
  readonly endedAt: string;
  readonly interrupted: boolean;
  readonly target: { readonly baseUrl: string; readonly model: string; readonly simulated: boolean; readonly simProfile?: string };
  readonly tokenizer: string;
  readonly command: readonly string[];
  readonly parts: readonly string[];
}

/** One threshold outcome from k6's handleSummary data. */
export interface ThresholdOutcome {
  readonly metric: string;
  readonly expression: string;
  readonly ok: boolean;
}

/** What the report uses of summary.json (k6 handleSummary `data`). */
export interface SummaryInfo {
  readonly testRunDurationMs: number | null;
  readonly thresholds: readonly ThresholdOutcome[];
}

export interface PartInput {
  /** Folder name of the part (sweep, capacity, burst, mix, gate, or the folder's own name). */
  readonly name: string;
  readonly dir: string;
  readonly plan: Plan;
  readonly samplesPath: string;
  readonly summary: SummaryInfo | null;
  /** Why summary.json is absent (null when present): a run killed hard (SIGKILL) never writes it. */
  readonly summaryProblem: string | null;
}

export interface RunInput {
  readonly dir: string;
  readonly run: RunInfo | null;
  readonly parts: readonly PartInput[];
}

function readJson(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ReportInputError(`cannot read ${path}: ${(e as Error).message}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new ReportInputError(`${path} is not valid JSON (${(e as Error).message}): re-run the bench or restore the file`);
  }
}

// What the report needs of each file is required; the rest falls back to what an older or partial
// file means (a run.json from before a field existed, a summary without thresholds), as k6 and the
// bench have written them over time.

const str = (fallback: string) => v.fallback(v.string(), fallback);
const flag = v.fallback(v.boolean(), false);
const strings = v.fallback(v.array(v.pipe(v.unknown(), v.transform(String))), []);

const RunInfoSchema = v.object({
  schemaVersion: v.fallback(v.number(), 1),
  runId: v.string(),
  engine: v.fallback(v.picklist(['k6', 'runner']), 'k6'),
  engineVersion: str('unknown'),
  startedAt: str(''),
  endedAt: str(''),
  interrupted: flag,
  target: record(v.unknown()),
  tokenizer: str('unknown'),
  command: strings,
  parts: strings,
});

const RunTargetSchema = v.object({
  baseUrl: str(''), model: str(''), simulated: flag, simProfile: v.fallback(v.optional(v.string()), undefined),
});

/** A summary whose metrics or state are not objects reads as having none: the report can stand without them. */
const SummarySchema = v.object({
  metrics: record(v.fallback(v.object({ thresholds: v.fallback(record(v.fallback(v.object({ ok: flag }), { ok: false })), {}) }), {
    thresholds: {},
  })),
  state: v.fallback(v.object({ testRunDurationMs: v.fallback(v.nullable(v.number()), null) }), {
    testRunDurationMs: null,
  }),
});

function parse<S extends v.GenericSchema>(schema: S, raw: unknown, problem: string): v.InferOutput<S> {
  return parseOrThrow(schema, raw, () => new ReportInputError(problem));
}

export function parseRunInfo(raw: unknown, path: string): RunInfo {
  const problem = `${path} is not a run.json of this suite (expected runId and target): re-run npm run bench`;
  const run = parse(RunInfoSchema, raw, problem);
  const { simProfile, ...target } = parse(RunTargetSchema, run.target, problem);
  return { ...run, target: simProfile === undefined ? target : { ...target, simProfile } };
}

/** Reads the parts of k6's handleSummary data the report uses: threshold outcomes and the run duration. */
export function parseSummary(raw: unknown, path: string): SummaryInfo {
  const summary = parse(
    SummarySchema, raw,
    `${path} is not k6 handleSummary data (no "metrics" object): write it with handleSummary(data) => JSON.stringify(data)`,
  );
  const thresholds: ThresholdOutcome[] = [];
  for (const [metric, m] of Object.entries(summary.metrics)) {
    for (const [expression, r] of Object.entries(m.thresholds)) thresholds.push({ metric, expression, ok: r.ok });
  }
  thresholds.sort((a, b) => a.metric.localeCompare(b.metric) || a.expression.localeCompare(b.expression));
  return { testRunDurationMs: summary.state.testRunDurationMs, thresholds };
}

/** A part's plan.json: the resolved plan, through the plan's own checks (lib/plan.ts readResolvedPlan). The one reader of plan.json. */
export function readPlanFile(path: string): Plan {
  try {
    return readResolvedPlan(readJson(path));
  } catch (e) {
    if (e instanceof PlanError) throw new ReportInputError(`${path}: ${e.message}`);
    throw e;
  }
}

function readPart(dir: string, name: string): PartInput {
  const plan = readPlanFile(join(dir, 'plan.json'));
  const samplesPath = join(dir, 'samples.csv');
  if (!existsSync(samplesPath)) {
    throw new ReportInputError(`${samplesPath} is missing: run k6 with --out csv=fileName=${samplesPath},timeFormat=unix_milli`);
  }
  const summaryPath = join(dir, 'summary.json');
  // k6 writes summary.json last: a run killed hard has none (or, rarely, a cut one). The report then
  // stands on plan.json and samples.csv alone, and says so.
  let summary: SummaryInfo | null = null;
  let summaryProblem: string | null = null;
  if (!existsSync(summaryPath)) summaryProblem = 'no summary.json';
  else {
    try {
      summary = parseSummary(readJson(summaryPath), summaryPath);
    } catch (e) {
      if (!(e instanceof ReportInputError)) throw e;
      summaryProblem = `an unreadable summary.json (${e.message})`;
    }
  }
  return {
    name,
    dir,
    plan,
    samplesPath,
    summary,
    summaryProblem,
  };
}

/**
 * Loads a run folder (results/<run-id>, holding run.json and part folders) or a single part folder
 * (one that holds plan.json itself). Parts are ordered as in run.json, else sweep, capacity, burst, mix, gate.
 */
export function loadRun(folder: string): RunInput {
  const dir = resolve(folder);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new ReportInputError(`${folder} is not a folder: pass results/<run-id> (a run folder) or one of its part folders`);
  }
  const runPath = join(dir, 'run.json');
  const run = existsSync(runPath) ? parseRunInfo(readJson(runPath), runPath) : null;
  if (existsSync(join(dir, 'plan.json'))) {
    return { dir, run, parts: [readPart(dir, basename(dir))] };
  }
  const found = readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(dir, d.name, 'plan.json')))
    .map((d) => d.name);
  const order = run && run.parts.length > 0 ? [...run.parts] : [...SCRIPT_NAMES];
  const rank = (n: string): number => {
    const i = order.indexOf(n);
    return i < 0 ? order.length : i;
  };
  found.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  if (found.length === 0) {
    throw new ReportInputError(
      `no plan.json in ${folder} or its part folders (sweep/, capacity/, burst/, mix/, gate/): is this a run ` +
      `folder written by npm run bench?`,
    );
  }
  return { dir, run, parts: found.map((name) => readPart(join(dir, name), name)) };
}
