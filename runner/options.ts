// Turns a script's exported options plus CLI flags into validated scenario configs (k6 lib/executor/*_config.go). Runs in Node.
import { parseDurationMs } from './durations';
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

const KEYS = ['executor', 'startTime', 'gracefulStop', 'exec', 'env', 'tags', 'options', 'vus', 'iterations', 'maxDuration'];

function bad(message: string): never {
  throw new RunnerError(message, EXIT.invalidConfig);
}

/** A script asking for an executor the runner lacks: k6 would run it, so say why the runner does not. */
function unsupportedExecutor(what: string): never {
  return bad(`${what} is not supported by the local runner (supported: ${EXECUTOR})`);
}

/** A duration option, `fallback` when absent (every duration the runner reads has a k6 default). */
function dur(v: unknown, what: string, fallback: number): number {
  if (v === undefined || v === null) return fallback;
  try {
    return parseDurationMs(v, what);
  } catch (e) {
    return bad((e as Error).message);
  }
}

/** A count option (vus, iterations): an integer >= 1, `fallback` when absent. */
function count(v: unknown, what: string, fallback: number): number {
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) bad(`${what} must be an integer >= 1, got ${JSON.stringify(v)}`);
  return v;
}

function stringMap(v: unknown, what: string): Record<string, string> {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object') bad(`${what} must be an object`);
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(v as Record<string, unknown>)) out[k] = String(val);
  return out;
}

function parseScenario(name: string, raw: Record<string, unknown>): ScenarioConfig {
  if (!SCENARIO_NAME.test(name)) bad(`scenario name "${name}" must match ^[0-9a-zA-Z_-]+$`);
  const executor = raw.executor;
  if (typeof executor !== 'string') bad(`scenario "${name}": executor is required`);
  if (executor !== EXECUTOR) unsupportedExecutor(`scenario "${name}": executor "${executor}"`);
  for (const key of Object.keys(raw)) {
    if (!KEYS.includes(key)) bad(`scenario "${name}": unknown field "${key}" for executor ${executor}`);
  }
  return {
    name,
    executor,
    startTimeMs: dur(raw.startTime, `scenario "${name}" startTime`, 0),
    gracefulStopMs: dur(raw.gracefulStop, `scenario "${name}" gracefulStop`, 30_000),
    exec: raw.exec === undefined ? 'default' : String(raw.exec),
    env: stringMap(raw.env, `scenario "${name}" env`),
    tags: stringMap(raw.tags, `scenario "${name}" tags`),
    vus: count(raw.vus, `scenario "${name}" vus`, 1),
    iterations: count(raw.iterations, `scenario "${name}" iterations`, 1),
    maxDurationMs: dur(raw.maxDuration, `scenario "${name}" maxDuration`, 600_000),
  };
}

function parseThresholds(raw: unknown): Record<string, ThresholdSpec[]> {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object') bad('options.thresholds must be an object');
  const out: Record<string, ThresholdSpec[]> = {};
  for (const [key, list] of Object.entries(raw as Record<string, unknown>)) {
    const items = Array.isArray(list) ? list : [list];
    out[key] = items.map((item) => {
      if (typeof item === 'string') return { threshold: item, abortOnFail: false, delayAbortEvalMs: 0 };
      if (item && typeof item === 'object' && typeof (item as { threshold?: unknown }).threshold === 'string') {
        const o = item as { threshold: string; abortOnFail?: unknown; delayAbortEval?: unknown };
        return { threshold: o.threshold, abortOnFail: o.abortOnFail === true, delayAbortEvalMs: dur(o.delayAbortEval, `threshold "${o.threshold}" delayAbortEval`, 0) };
      }
      return bad(`thresholds "${key}": each entry must be a string or {threshold, abortOnFail, delayAbortEval}`);
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
  const scenariosRaw = raw.scenarios as Record<string, Record<string, unknown>> | undefined;
  let scenarios: ScenarioConfig[];
  if (raw.stages !== undefined) unsupportedExecutor('options.stages (executor ramping-vus)');
  if (scenariosRaw && typeof scenariosRaw === 'object' && Object.keys(scenariosRaw).length > 0) {
    if (raw.duration !== undefined || raw.iterations !== undefined) {
      bad('using multiple execution config shortcuts (duration, iterations) simultaneously with scenarios is not allowed');
    }
    scenarios = Object.entries(scenariosRaw).map(([name, sc]) => parseScenario(name, sc));
  } else {
    if (raw.iterations !== undefined) unsupportedExecutor('iterations without scenarios (executor shared-iterations)');
    if (raw.duration !== undefined) unsupportedExecutor('duration without scenarios (executor constant-vus)');
    scenarios = [parseScenario('default', { executor: EXECUTOR, vus: count(raw.vus, 'vus', 1), iterations: 1 })];
  }
  const stats = raw.summaryTrendStats;
  if (stats !== undefined && (!Array.isArray(stats) || stats.some((s) => typeof s !== 'string' || !/^(avg|min|med|max|count|p\(\d+(\.\d+)?\))$/.test(s)))) {
    bad(`summaryTrendStats: ${JSON.stringify(stats)} (allowed: avg, min, med, max, count, p(N))`);
  }
  const insecure = raw.insecureSkipTLSVerify;
  if (insecure !== undefined && insecure !== null && typeof insecure !== 'boolean') bad(`insecureSkipTLSVerify must be a boolean, got ${JSON.stringify(insecure)}`);
  const insecureSkipTLSVerify = insecure === true;
  // Streams take it process-wide: a run is one process.
  setStreamInsecureSkipTLSVerify(insecureSkipTLSVerify);
  return {
    scenarios,
    thresholds: parseThresholds(raw.thresholds),
    summaryTrendStats: (stats as string[] | undefined) ?? DEFAULT_TREND_STATS,
    summaryTimeUnit: typeof raw.summaryTimeUnit === 'string' ? raw.summaryTimeUnit : '',
    tags: stringMap(raw.tags, 'options.tags'),
    setupTimeoutMs: dur(raw.setupTimeout, 'setupTimeout', 60_000),
    teardownTimeoutMs: dur(raw.teardownTimeout, 'teardownTimeout', 60_000),
    insecureSkipTLSVerify,
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
