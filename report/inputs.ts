// Reads and validates a run folder (run.json, part folders with plan.json, summary.json) once, at the edge.
// Runs in Node.
//
// Every failure is a ReportInputError with a one-line message that says what to fix; nothing past
// this file checks shapes again. Layout: docs/reference/contracts.md, "Run folder".

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as v from 'valibot';
import { UserError } from '../lib/exit-codes';
import { PlanError, readResolvedPlan, type Plan } from '../lib/plan';
import type { RunnerInfo } from '../lib/runner';
import { parseOrThrow, record } from '../lib/schema';
import { PREDICTED_SAMPLES_FILE, PredictedSchema, type PredictedInfo } from './predicted';
import type { UseCase } from '../thresholds/use-cases';

/** Bad input to the report (exit EXIT.badInput through the CLI). */
export class ReportInputError extends UserError {
  override name = 'ReportInputError';
}

/** run.json of the bench command (contract: docs/reference/contracts.md). */
export interface RunInfo {
  readonly schemaVersion: number;
  readonly runId: string;
  /** virtual: a prediction in the simulator's virtual time (npm run bench -- --predict), no engine sent a request. */
  readonly engine: 'k6' | 'runner' | 'virtual';
  readonly engineVersion: string;
  readonly startedAt: string;
  readonly endedAt: string;
  readonly interrupted: boolean;
  readonly target: {
    readonly baseUrl: string; readonly model: string; readonly simulated: boolean; readonly simProfile?: string;
  };
  readonly tokenizer: string;
  /** The server's context window (max_model_len); null when it stated none or run.json predates the field. */
  readonly contextWindow: number | null;
  /** Contexts whose prompts were shortened to fit that window (orchestrator/context-window.ts). */
  readonly fittedPrompts: readonly { readonly contextTokens: number; readonly promptTokens: number }[];
  readonly command: readonly string[];
  readonly parts: readonly string[];
  /** Per part, the machine's longest stall under the measuring agents, ms; {} before the field. */
  readonly stallsMs: Readonly<Record<string, number>>;
  /** A predicted run's record (report/predicted.ts); null for a measured one. */
  readonly predicted: PredictedInfo | null;
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
  /**
   * The part's samples.csv; for a predicted part its predicted-samples.jsonl; for a split part, its first runner's
   * samples.csv (the runners' are in `split`).
   */
  readonly samplesPath: string;
  /** k6's summary; null for a split part, whose runners each have their own. */
  readonly summary: SummaryInfo | null;
  /** Why summary.json is absent (null when present): a run killed hard (SIGKILL) never writes it. */
  readonly summaryProblem: string | null;
  /** The runners of a part split across k6 processes (report/split-inputs.ts); null for one process. */
  readonly split: SplitPart | null;
}

/** One k6 process of a split part: its folder (samples.csv, summary.json, runner.json). */
export interface RunnerInput {
  /** The folder as the report names it (its path relative to the part, or as given). */
  readonly name: string;
  readonly dir: string;
  /** runner.json; null when the runner never wrote it (killed before its end). */
  readonly info: RunnerInfo | null;
  readonly samplesPath: string;
  readonly summary: SummaryInfo | null;
  readonly summaryProblem: string | null;
}

/** A part run as n k6 processes with execution segments (docs/reference/contracts.md, "Split runs"). */
export interface SplitPart {
  /** In runner order; folders without runner.json last. */
  readonly runners: readonly RunnerInput[];
  /** How many runners the split had (runner.json); null when no runner wrote one. */
  readonly count: number | null;
  /** The runners with no folder, as "runner 2 of 4 (segment 1/4:1/2)". */
  readonly missing: readonly string[];
}

export interface RunInput {
  readonly dir: string;
  readonly run: RunInfo | null;
  readonly parts: readonly PartInput[];
}

export function readJson(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new ReportInputError(`cannot read ${path}: ${(e as Error).message}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (e) {
    throw new ReportInputError(
      `${path} is not valid JSON (${(e as Error).message}): re-run the bench or restore the file`,
    );
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
  engine: v.fallback(v.picklist(['k6', 'runner', 'virtual']), 'k6'),
  engineVersion: str('unknown'),
  startedAt: str(''),
  endedAt: str(''),
  interrupted: flag,
  target: record(v.unknown()),
  tokenizer: str('unknown'),
  contextWindow: v.fallback(v.nullable(v.number()), null),
  fittedPrompts: v.fallback(v.array(v.object({ contextTokens: v.number(), promptTokens: v.number() })), []),
  command: strings,
  parts: strings,
  stallsMs: v.fallback(v.record(v.string(), v.number()), {}),
  predicted: PredictedSchema,
});

const RunTargetSchema = v.object({
  baseUrl: str(''), model: str(''), simulated: flag, simProfile: v.fallback(v.optional(v.string()), undefined),
});

/** A summary whose metrics or state are not objects reads as having none: the report can stand without them. */
const ThresholdsSchema = v.fallback(record(v.fallback(v.object({ ok: flag }), { ok: false })), {});
const SummarySchema = v.object({
  metrics: record(v.fallback(v.object({ thresholds: ThresholdsSchema }), { thresholds: {} })),
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
    `${path} is not k6 handleSummary data (no "metrics" object): ` +
      'write it with handleSummary(data) => JSON.stringify(data)',
  );
  const thresholds: ThresholdOutcome[] = [];
  for (const [metric, m] of Object.entries(summary.metrics)) {
    for (const [expression, r] of Object.entries(m.thresholds)) thresholds.push({ metric, expression, ok: r.ok });
  }
  thresholds.sort((a, b) => a.metric.localeCompare(b.metric) || a.expression.localeCompare(b.expression));
  return { testRunDurationMs: summary.state.testRunDurationMs, thresholds };
}

/**
 * A part's plan.json: the resolved plan, through the plan's own checks (lib/plan.ts readResolvedPlan). The one
 * reader of plan.json.
 */
export function readPlanFile(path: string): Plan {
  try {
    return readResolvedPlan(readJson(path));
  } catch (e) {
    if (e instanceof PlanError) throw new ReportInputError(`${path}: ${e.message}`);
    throw e;
  }
}

export function readPart(dir: string, name: string): PartInput {
  const plan = readPlanFile(join(dir, 'plan.json'));
  // A measured part's samples are k6's CSV; a predicted part's, the prediction's own records (predicted.ts).
  const predictedPath = join(dir, PREDICTED_SAMPLES_FILE);
  const csvPath = join(dir, 'samples.csv');
  const samplesPath = !existsSync(csvPath) && existsSync(predictedPath) ? predictedPath : csvPath;
  if (!existsSync(samplesPath)) {
    throw new ReportInputError(
      `${samplesPath} is missing: run k6 with --out csv=fileName=${samplesPath},timeFormat=unix_milli`,
    );
  }
  return { name, dir, plan, samplesPath, ...readSummaryFile(dir), split: null };
}

/**
 * A folder's summary.json, or why there is none. k6 writes summary.json last: a run killed hard has
 * none (or, rarely, a cut one). The report then stands on plan.json and samples.csv alone, and says so.
 */
export function readSummaryFile(dir: string): { summary: SummaryInfo | null; summaryProblem: string | null } {
  const summaryPath = join(dir, 'summary.json');
  if (!existsSync(summaryPath)) return { summary: null, summaryProblem: 'no summary.json' };
  try {
    return { summary: parseSummary(readJson(summaryPath), summaryPath), summaryProblem: null };
  } catch (e) {
    if (!(e instanceof ReportInputError)) throw e;
    return { summary: null, summaryProblem: `an unreadable summary.json (${e.message})` };
  }
}

/** The plans' goodput threshold: a top-level field, so every part carries the same; one written before it, null. */
export function runMinGoodput(input: RunInput): number | null {
  return input.parts.find((part) => part.plan.minGoodput !== null)?.plan.minGoodput ?? null;
}

/** Every use case of the parts' plans, the first definition of an id winning. */
export function runUseCases(input: RunInput): UseCase[] {
  const useCaseList: UseCase[] = [];
  for (const part of input.parts) {
    for (const useCase of part.plan.useCases) {
      if (!useCaseList.some((known) => known.id === useCase.id)) useCaseList.push(useCase);
    }
  }
  return useCaseList;
}
