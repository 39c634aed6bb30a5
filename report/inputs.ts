// Reads and validates a run folder (run.json, part folders with plan.json, summary.json, runner-health.json) once, at the edge. Runs in Node.
//
// Every failure is a ReportInputError with a one-line message that says what to fix; nothing past
// this file checks shapes again. Layout: docs/contracts.md, "Run folder".

import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { UserError } from '../lib/exit-codes';
import { PlanError, readResolvedPlan, SCRIPT_NAMES, type Plan } from '../lib/plan';

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

export interface ScenarioHealth {
  readonly eventLoopLagMs: { readonly p50: number; readonly p99: number; readonly max: number };
  readonly cpuPercent: number;
  readonly deliveryBacklogMs: { readonly p99: number; readonly max: number };
  readonly clientBound: boolean;
  readonly reason: string | null;
}

export interface RunnerHealth {
  readonly scenarios: Readonly<Record<string, ScenarioHealth>>;
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
  readonly health: RunnerHealth | null;
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

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function parseRunInfo(raw: unknown, path: string): RunInfo {
  if (!isObject(raw) || typeof raw.runId !== 'string' || !isObject(raw.target)) {
    throw new ReportInputError(`${path} is not a run.json of this suite (expected runId and target): re-run npm run bench`);
  }
  const t = raw.target;
  const str = (v: unknown, d: string): string => (typeof v === 'string' ? v : d);
  return {
    schemaVersion: typeof raw.schemaVersion === 'number' ? raw.schemaVersion : 1,
    runId: raw.runId,
    engine: raw.engine === 'runner' ? 'runner' : 'k6',
    engineVersion: str(raw.engineVersion, 'unknown'),
    startedAt: str(raw.startedAt, ''),
    endedAt: str(raw.endedAt, ''),
    interrupted: raw.interrupted === true,
    target: {
      baseUrl: str(t.baseUrl, ''),
      model: str(t.model, ''),
      simulated: t.simulated === true,
      ...(typeof t.simProfile === 'string' ? { simProfile: t.simProfile } : {}),
    },
    tokenizer: str(raw.tokenizer, 'unknown'),
    command: Array.isArray(raw.command) ? raw.command.map(String) : [],
    parts: Array.isArray(raw.parts) ? raw.parts.map(String) : [],
  };
}

/** Reads the parts of k6's handleSummary data the report uses: threshold outcomes and the run duration. */
export function parseSummary(raw: unknown, path: string): SummaryInfo {
  if (!isObject(raw) || !isObject(raw.metrics)) {
    throw new ReportInputError(`${path} is not k6 handleSummary data (no "metrics" object): write it with handleSummary(data) => JSON.stringify(data)`);
  }
  const thresholds: ThresholdOutcome[] = [];
  for (const [metric, m] of Object.entries(raw.metrics)) {
    if (!isObject(m) || !isObject(m.thresholds)) continue;
    for (const [expression, r] of Object.entries(m.thresholds)) {
      thresholds.push({ metric, expression, ok: isObject(r) && r.ok === true });
    }
  }
  thresholds.sort((a, b) => a.metric.localeCompare(b.metric) || a.expression.localeCompare(b.expression));
  const state = isObject(raw.state) ? raw.state : {};
  return { testRunDurationMs: typeof state.testRunDurationMs === 'number' ? state.testRunDurationMs : null, thresholds };
}

export function parseRunnerHealth(raw: unknown, path: string): RunnerHealth {
  if (!isObject(raw) || !isObject(raw.scenarios)) {
    throw new ReportInputError(`${path} is not a runner-health.json (expected a "scenarios" object)`);
  }
  const scenarios: Record<string, ScenarioHealth> = {};
  const num = (v: unknown): number => (typeof v === 'number' && isFinite(v) ? v : 0);
  for (const [id, s] of Object.entries(raw.scenarios)) {
    if (!isObject(s)) continue;
    const lag = isObject(s.eventLoopLagMs) ? s.eventLoopLagMs : {};
    const backlog = isObject(s.deliveryBacklogMs) ? s.deliveryBacklogMs : {};
    scenarios[id] = {
      eventLoopLagMs: { p50: num(lag.p50), p99: num(lag.p99), max: num(lag.max) },
      cpuPercent: num(s.cpuPercent),
      deliveryBacklogMs: { p99: num(backlog.p99), max: num(backlog.max) },
      clientBound: s.clientBound === true,
      reason: typeof s.reason === 'string' ? s.reason : null,
    };
  }
  return { scenarios };
}

function readPart(dir: string, name: string): PartInput {
  const planPath = join(dir, 'plan.json');
  let plan: Plan;
  try {
    plan = readResolvedPlan(readJson(planPath));
  } catch (e) {
    if (e instanceof PlanError) throw new ReportInputError(`${planPath}: ${e.message}`);
    throw e;
  }
  const samplesPath = join(dir, 'samples.csv');
  if (!existsSync(samplesPath)) {
    throw new ReportInputError(`${samplesPath} is missing: run k6 with --out csv=fileName=${samplesPath},timeFormat=unix_milli`);
  }
  const summaryPath = join(dir, 'summary.json');
  const healthPath = join(dir, 'runner-health.json');
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
    health: existsSync(healthPath) ? parseRunnerHealth(readJson(healthPath), healthPath) : null,
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
    throw new ReportInputError(`no plan.json in ${folder} or its part folders (sweep/, capacity/, burst/, mix/, gate/): is this a run folder written by npm run bench?`);
  }
  return { dir, run, parts: found.map((name) => readPart(join(dir, name), name)) };
}
