// Turns a script's exported options plus CLI flags into validated scenario configs (k6 lib/executor/*_config.go). Runs in Node.
import * as v from 'valibot';
import { parseOrThrow } from '../lib/schema';
import { toDurationMs } from './durations';
import { EXIT, RunnerError } from './exit-codes';
import { setStreamInsecureSkipTLSVerify } from './modules/sse-transport';

/** The one executor the runner provides: lib/options.ts buildOptions gives every scenario of the suite this one. */
const EXECUTOR = 'per-vu-iterations';

export interface ScenarioConfig {
  readonly name: string;
  readonly executor: typeof EXECUTOR;
  readonly startTimeMs: number;
  readonly gracefulStopMs: number;
  readonly exec: string;
  readonly env: Readonly<Record<string, string>>;
  readonly tags: Readonly<Record<string, string>>;
  readonly vus: number;
  readonly iterations: number;
  readonly maxDurationMs: number;
}

export interface ThresholdSpec {
  readonly threshold: string;
  readonly abortOnFail: boolean;
  readonly delayAbortEvalMs: number;
}

export interface RunOptions {
  readonly scenarios: readonly ScenarioConfig[];
  readonly thresholds: Readonly<Record<string, readonly ThresholdSpec[]>>;
  readonly summaryTrendStats: readonly string[];
  readonly summaryTimeUnit: string;
  readonly tags: Readonly<Record<string, string>>;
  readonly setupTimeoutMs: number;
  readonly teardownTimeoutMs: number;
  /** k6's insecureSkipTLSVerify: accept any server certificate (k6/http, k6/x/llm, k6/x/sse). */
  readonly insecureSkipTLSVerify: boolean;
  /** The options object as the script sees it through exec.test.options (after CLI overrides). */
  readonly raw: Record<string, unknown>;
}

export interface CliOverrides {
  vus?: number;
  iterations?: number;
  duration?: string;
}

const DEFAULT_TREND_STATS = ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)'];
const SCENARIO_NAME = /^[0-9a-zA-Z_-]+$/;
const TREND_STAT = /^(avg|min|med|max|count|p\(\d+(\.\d+)?\))$/;

function bad(message: string): never {
  throw new RunnerError(message, EXIT.invalidConfig);
}

/** A script asking for an executor the runner lacks: k6 would run it, so say why the runner does not. */
function unsupported(what: string): string {
  return `${what} is not supported by the local runner (supported: ${EXECUTOR})`;
}

// Field schemas. Each message names its field (k6's option names), since the runner reports the
// message alone; null reads as absent, as k6 treats it.

/** A count option (vus, iterations): an integer >= 1. */
function count(what: string) {
  const message = (issue: v.BaseIssue<unknown>) => `${what} must be an integer >= 1, got ${JSON.stringify(issue.input)}`;
  return v.nullish(v.pipe(v.number(message), v.integer(message), v.minValue(1, message)), 1);
}

/** A duration option, in ms; every duration the runner reads has a k6 default. */
function duration(what: string, fallbackMs: number) {
  const ms = v.pipe(
    v.unknown(),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      const parsed = toDurationMs(dataset.value);
      if (typeof parsed === 'number') return parsed;
      addIssue({ message: `${what}: ${parsed.problem}` });
      return NEVER;
    }),
  );
  return v.nullish(ms, fallbackMs);
}

/** env and tags: an object whose values k6 turns into strings. */
function stringMap(what: string) {
  const map = v.pipe(
    v.record(v.string(), v.unknown(), `${what} must be an object`),
    v.transform((o): Record<string, string> => Object.fromEntries(Object.entries(o).map(([k, val]) => [k, String(val)]))),
  );
  return v.nullish(map, {});
}

function scenarioSchema(name: string) {
  const what = `scenario "${name}"`;
  const fields = {
    executor: v.pipe(
      v.string(`${what}: executor is required`),
      v.check((e) => e === EXECUTOR, (issue) => unsupported(`${what}: executor "${String(issue.input)}"`)),
    ),
    startTime: duration(`${what} startTime`, 0),
    gracefulStop: duration(`${what} gracefulStop`, 30_000),
    exec: v.nullish(v.pipe(v.unknown(), v.transform(String)), 'default'),
    env: stringMap(`${what} env`),
    tags: stringMap(`${what} tags`),
    options: v.optional(v.unknown()),
    vus: count(`${what} vus`),
    iterations: count(`${what} iterations`),
    maxDuration: duration(`${what} maxDuration`, 600_000),
  };
  return v.strictObject(fields, (issue) => (issue.expected === 'never' ? `${what}: unknown field "${String(issue.input)}" for executor ${EXECUTOR}` : `${what}: executor is required`));
}

/** A threshold given as an object; the plain string form needs no checks. */
function thresholdObject(key: string) {
  const entry = `thresholds "${key}": each entry must be a string or {threshold, abortOnFail, delayAbortEval}`;
  return v.object({ threshold: v.string(entry), abortOnFail: v.optional(v.unknown()), delayAbortEval: duration(`thresholds "${key}" delayAbortEval`, 0) }, entry);
}

const trendStat = (issue: v.BaseIssue<unknown>) => `summaryTrendStats: ${JSON.stringify(issue.input)} is not a trend statistic (allowed: avg, min, med, max, count, p(N))`;

const TopLevel = v.object({
  summaryTrendStats: v.optional(
    v.array(v.pipe(v.string(trendStat), v.regex(TREND_STAT, trendStat)), (issue) => `summaryTrendStats must be a list, got ${JSON.stringify(issue.input)}`),
    DEFAULT_TREND_STATS,
  ),
  insecureSkipTLSVerify: v.nullish(v.boolean((issue) => `insecureSkipTLSVerify must be a boolean, got ${JSON.stringify(issue.input)}`), false),
  summaryTimeUnit: v.fallback(v.string(), ''),
  tags: stringMap('options.tags'),
  thresholds: v.nullish(v.record(v.string(), v.unknown(), 'options.thresholds must be an object'), {}),
  setupTimeout: duration('setupTimeout', 60_000),
  teardownTimeout: duration('teardownTimeout', 60_000),
});

/** Checks `raw` against `schema`; a failure is k6's invalid-config exit with the first issue's message. */
function check<S extends v.GenericSchema>(schema: S, raw: unknown): v.InferOutput<S> {
  return parseOrThrow(schema, raw, (_field, message) => new RunnerError(message, EXIT.invalidConfig));
}

function parseScenario(name: string, raw: unknown): ScenarioConfig {
  check(v.pipe(v.string(), v.regex(SCENARIO_NAME, `scenario name "${name}" must match ^[0-9a-zA-Z_-]+$`)), name);
  const sc = check(scenarioSchema(name), raw);
  return {
    name,
    executor: EXECUTOR,
    startTimeMs: sc.startTime,
    gracefulStopMs: sc.gracefulStop,
    exec: sc.exec,
    env: sc.env,
    tags: sc.tags,
    vus: sc.vus,
    iterations: sc.iterations,
    maxDurationMs: sc.maxDuration,
  };
}

function parseThresholds(raw: Record<string, unknown>): Record<string, ThresholdSpec[]> {
  const out: Record<string, ThresholdSpec[]> = {};
  for (const [key, list] of Object.entries(raw)) {
    out[key] = (Array.isArray(list) ? list : [list]).map((item) => {
      if (typeof item === 'string') return { threshold: item, abortOnFail: false, delayAbortEvalMs: 0 };
      const o = check(thresholdObject(key), item);
      return { threshold: o.threshold, abortOnFail: o.abortOnFail === true, delayAbortEvalMs: o.delayAbortEval };
    });
  }
  return out;
}

/**
 * Builds the run's options: CLI shortcuts override the script; shortcuts with scenarios are an error, as in k6.
 * Without scenarios, k6 turns `iterations` into shared-iterations, `duration` into constant-vus and `stages`
 * into ramping-vus, which the runner lacks; only the default (per-vu-iterations, 1 iteration per VU) runs.
 */
export function resolveOptions(scriptOptions: unknown, cli: CliOverrides): RunOptions {
  const raw: Record<string, unknown> = scriptOptions && typeof scriptOptions === 'object' ? { ...(scriptOptions as Record<string, unknown>) } : {};
  if (cli.vus !== undefined) raw.vus = cli.vus;
  if (cli.iterations !== undefined) raw.iterations = cli.iterations;
  if (cli.duration !== undefined) raw.duration = cli.duration;
  const scenariosRaw = raw.scenarios as Record<string, unknown> | undefined;
  let scenarios: ScenarioConfig[];
  if (raw.stages !== undefined) bad(unsupported('options.stages (executor ramping-vus)'));
  if (scenariosRaw && typeof scenariosRaw === 'object' && Object.keys(scenariosRaw).length > 0) {
    if (raw.duration !== undefined || raw.iterations !== undefined) {
      bad('using multiple execution config shortcuts (duration, iterations) simultaneously with scenarios is not allowed');
    }
    scenarios = Object.entries(scenariosRaw).map(([name, sc]) => parseScenario(name, sc));
  } else {
    if (raw.iterations !== undefined) bad(unsupported('iterations without scenarios (executor shared-iterations)'));
    if (raw.duration !== undefined) bad(unsupported('duration without scenarios (executor constant-vus)'));
    scenarios = [parseScenario('default', { executor: EXECUTOR, vus: check(count('vus'), raw.vus), iterations: 1 })];
  }
  const top = check(TopLevel, raw);
  // Streams take it process-wide: a run is one process.
  setStreamInsecureSkipTLSVerify(top.insecureSkipTLSVerify);
  return {
    scenarios,
    thresholds: parseThresholds(top.thresholds),
    summaryTrendStats: top.summaryTrendStats,
    summaryTimeUnit: top.summaryTimeUnit,
    tags: top.tags,
    setupTimeoutMs: top.setupTimeout,
    teardownTimeoutMs: top.teardownTimeout,
    insecureSkipTLSVerify: top.insecureSkipTLSVerify,
    raw,
  };
}

/** VUs to initialise: the peak over time of the VUs that overlapping scenarios need (windows are maxDuration + gracefulStop). */
export function totalVUsNeeded(scenarios: readonly ScenarioConfig[]): number {
  const points: [number, number][] = [];
  for (const sc of scenarios) {
    const start = sc.startTimeMs;
    const end = start + sc.maxDurationMs + sc.gracefulStopMs;
    points.push([start, sc.vus], [end, -sc.vus]);
  }
  points.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let cur = 0;
  let peak = 0;
  for (const [, d] of points) {
    cur += d;
    peak = Math.max(peak, cur);
  }
  return peak;
}
