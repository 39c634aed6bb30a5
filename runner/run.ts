// Runs a bundle end to end like `k6 run`: init VUs, setup, scenarios, teardown, thresholds, summaries, outputs. Runs in Node.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { epochMs } from './clock';
import { RunContext } from './context';
import { EXIT, RunnerError, type ExitCode } from './exit-codes';
import { runExecutor } from './executors/index';
import { collectGarbage } from './gc';
import { HealthRecorder } from './health';
import { loadBundle } from './load-bundle';
import { formatLogLine } from './log';
import { resolveOptions, totalVUsNeeded, type CliOverrides } from './options';
import { CsvOutput, parseCsvArg } from './outputs/csv';
import { JsonOutput } from './outputs/json';
import { ScenarioRuntime } from './scenario-runtime';
import { buildSummaryData, renderSummaryExport, renderTextSummary, type SummaryData } from './summary';
import { abortingThresholds, compileThresholds, crossedMetrics, evaluateThresholds, type CompiledThreshold } from './thresholds';
import { TestAbortError, VU } from './vu';
import { VUPool } from './vu-pool';
import type { RunnerEmitter } from './events';
import type { Tags } from './metrics-engine';

export interface RunConfig {
  readonly bundle: string;
  /** __ENV: the OS environment plus -e values (k6 run includes system env vars). */
  readonly env: Readonly<Record<string, string>>;
  readonly cli: CliOverrides;
  /** --tag k=v: added to every sample. */
  readonly tags: Readonly<Tags>;
  /** --out values: "csv", "csv=FILE", "csv=fileName=FILE,timeFormat=...", "json=FILE". */
  readonly outs: readonly string[];
  readonly summaryExport?: string;
  readonly healthOut?: string;
  readonly noColor: boolean;
  readonly cwd: string;
  readonly isStdOutTTY: boolean;
  readonly isStdErrTTY: boolean;
  readonly writeStdout: (text: string) => void;
  readonly writeStderr: (text: string) => void;
  /** Subscribe renderers (progress) before the run starts. */
  readonly onEvents?: (events: RunnerEmitter, run: RunHandle) => void;
}

/** What renderers and signal handlers may see and do while the test runs. */
export interface RunHandle {
  readonly scenarios: () => readonly ScenarioRuntime[];
  readonly vusMax: () => number;
  readonly elapsedMs: () => number;
  readonly iterations: () => { completed: number; interrupted: number };
  /** SIGINT/SIGTERM: stop scenarios, keep results, exit 105. */
  readonly interrupt: (signal: string) => void;
}

export interface RunResult {
  readonly exitCode: ExitCode;
  readonly summary: SummaryData | null;
}

function errorText(e: unknown): string {
  if (e instanceof Error || (e && typeof e === 'object' && 'message' in e)) {
    const err = e as Error;
    return err.stack && err.stack.includes(err.message) ? err.stack : `${err.name}: ${err.message}`;
  }
  return String(e);
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string, code: ExitCode): Promise<T> {
  let t: NodeJS.Timeout;
  return Promise.race([
    p,
    new Promise<T>((_, reject) => {
      t = setTimeout(() => reject(new RunnerError(`${what} execution timed out after ${ms / 1000} seconds`, code)), ms);
    }),
  ]).finally(() => clearTimeout(t));
}

type Log = (level: 'info' | 'warning' | 'error', msg: string, fields?: Record<string, string>) => void;

/** The exit code of a setup() or teardown() that threw, logged as k6 logs it (an abort logs nothing here). */
function lifecycleFailure(e: unknown, log: Log): ExitCode {
  if (e instanceof TestAbortError) return EXIT.scriptAborted;
  if (e instanceof RunnerError) {
    log('error', e.message);
    return e.exitCode;
  }
  log('error', errorText(e), { hint: 'script exception' });
  return EXIT.scriptError;
}

/** Adds the --out outputs to the metrics engine; an unknown or malformed one is an invalid configuration (exit 104). */
function addOutputs(cfg: RunConfig, rc: RunContext, thresholds: readonly CompiledThreshold[]): void {
  const thresholdsOf = (metric: string): string[] => thresholds.filter((t) => t.sub === null && t.metric.name === metric).map((t) => t.spec.threshold);
  for (const out of cfg.outs) {
    const eq = out.indexOf('=');
    const kind = eq < 0 ? out : out.slice(0, eq);
    const arg = eq < 0 ? '' : out.slice(eq + 1);
    try {
      if (kind === 'csv') {
        const c = parseCsvArg(arg, cfg.env);
        rc.engine.addOutput(new CsvOutput({ ...c, fileName: resolve(cfg.cwd, c.fileName) }));
      } else if (kind === 'json') {
        rc.engine.addOutput(new JsonOutput(resolve(cfg.cwd, arg || 'results.json'), thresholdsOf));
      } else throw new Error(`output "${kind}" is not supported by the local runner (use csv or json)`);
    } catch (e) {
      throw new RunnerError((e as Error).message, EXIT.invalidConfig);
    }
  }
}

/** Writes --summary-export and runs handleSummary (or prints the default text summary), as k6 does at the end. */
async function writeSummaries(cfg: RunConfig, vu0: VU, summary: SummaryData, log: Log): Promise<void> {
  if (cfg.summaryExport) writeOut(resolve(cfg.cwd, cfg.summaryExport), renderSummaryExport(summary));
  const handleSummary = vu0.exports.handleSummary;
  if (typeof handleSummary !== 'function') {
    cfg.writeStdout(renderTextSummary(summary, cfg.noColor));
    return;
  }
  vu0.phase = 'summary';
  try {
    const result = await withTimeout(Promise.resolve((handleSummary as (d: unknown) => unknown)(vu0.parseJson(JSON.stringify(summary)))), 120_000, 'handleSummary()', EXIT.scriptError);
    if (!result || typeof result !== 'object') return;
    for (const [key, value] of Object.entries(result as Record<string, unknown>)) {
      const text = typeof value === 'string' ? value : value instanceof ArrayBuffer || ArrayBuffer.isView(value) ? Buffer.from(value as ArrayBuffer) : String(value);
      if (key === 'stdout') cfg.writeStdout(text.toString());
      else if (key === 'stderr') cfg.writeStderr(text.toString());
      else writeOut(resolve(cfg.cwd, key), text);
    }
  } catch (e) {
    log('error', `failed to handle the end-of-test summary: ${errorText(e)}`);
  }
}

export async function runTest(cfg: RunConfig): Promise<RunResult> {
  const log: Log = (level, msg, fields) => cfg.writeStderr(formatLogLine(level, msg, fields));
  const bundle = loadBundle(cfg.bundle);
  const rc = new RunContext(cfg.env);
  rc.health = new HealthRecorder();

  // Init context once for options (k6's init VU), then once per VU.
  const vu0 = new VU(0, rc, bundle);
  try {
    vu0.init();
  } catch (e) {
    log('error', errorText(e), { hint: 'script exception' });
    return { exitCode: EXIT.scriptError, summary: null };
  }
  const options = resolveOptions(vu0.exports.options, cfg.cli);
  rc.options = options;
  rc.globalTags = { ...options.tags, ...cfg.tags };
  vu0.metricTags = { ...rc.globalTags };
  const thresholds = compileThresholds(options.thresholds, rc.engine);
  // k6 always reports http_req_duration for expected responses.
  rc.builtin.httpReqDuration.addSubmetric({ expected_response: 'true' });

  addOutputs(cfg, rc, thresholds);

  const vusMax = totalVUsNeeded(options.scenarios);
  const vus: VU[] = [];
  for (let id = 1; id <= vusMax; id++) {
    const vu = new VU(id, rc, bundle);
    try {
      vu.init();
    } catch (e) {
      log('error', errorText(e), { hint: 'script exception' });
      await rc.engine.closeOutputs();
      return { exitCode: EXIT.scriptError, summary: null };
    }
    vus.push(vu);
    rc.vusInitialized = id;
  }

  // Before any iteration runs: see gc.ts.
  collectGarbage();
  const runtimes = options.scenarios.map((c) => new ScenarioRuntime(c));
  let resolveAbort!: () => void;
  const aborted = new Promise<void>((r) => (resolveAbort = r));
  rc.onAbort = () => {
    resolveAbort();
    for (const sc of runtimes) {
      sc.stopping = true;
      sc.cutAll();
    }
  };
  const handle: RunHandle = {
    scenarios: () => runtimes,
    vusMax: () => vusMax,
    elapsedMs: () => rc.elapsedMs(),
    iterations: () => ({ completed: rc.iterationsCompleted, interrupted: rc.iterationsInterrupted }),
    interrupt: (signal) => rc.abort(EXIT.interrupted, `test run was aborted because k6 received a '${signal}' signal`),
  };
  cfg.onEvents?.(rc.events, handle);

  rc.markStarted();
  rc.events.emit('testStart', { scenarios: runtimes.map((s) => s.name), vusMax });
  const pushVus = (): void => {
    const now = epochMs();
    rc.engine.push(rc.builtin.vus, now, rc.vusActive, { ...rc.globalTags });
    rc.engine.push(rc.builtin.vusMax, now, vusMax, { ...rc.globalTags });
  };
  const vusTicker = setInterval(pushVus, 1000);
  let thresholdsAborted = false;
  const evalTicker = setInterval(() => {
    const results = evaluateThresholds(thresholds, rc.elapsedMs(), false);
    rc.events.emit('thresholds', { atMs: rc.elapsedMs(), final: false, results });
    const aborting = abortingThresholds(thresholds, rc.elapsedMs());
    if (aborting.length > 0 && !rc.aborted) {
      thresholdsAborted = true;
      log('error', `thresholds on metrics '${[...new Set(aborting.map((t) => t.key))].sort().join(', ')}' were crossed; at least one has abortOnFail enabled, stopping test prematurely`);
      rc.abort(EXIT.thresholdsFailed, 'thresholds crossed');
    }
  }, 2000);
  const tick = setInterval(() => rc.events.emit('tick', { atMs: rc.elapsedMs() }), 1000);

  let exitCode: ExitCode | null = null;
  let setupOk = true;
  const exported = vu0.exports;
  if (typeof exported.setup === 'function') {
    vu0.phase = 'setup';
    try {
      const data: unknown = await withTimeout(Promise.resolve((exported.setup as () => unknown)()), options.setupTimeoutMs, 'setup()', EXIT.setupTimeout);
      rc.setupDataJson = data === undefined ? undefined : JSON.stringify(data);
    } catch (e) {
      setupOk = false;
      exitCode = lifecycleFailure(e, log);
    }
  }

  if (setupOk && !rc.aborted) {
    const pool = new VUPool(vus);
    await Promise.all(runtimes.map((sc) => runScenario(rc, sc, pool, aborted)));
  }

  if (setupOk && typeof exported.teardown === 'function') {
    vu0.phase = 'teardown';
    try {
      await withTimeout(Promise.resolve((exported.teardown as (d: unknown) => unknown)(vu0.setupData())), options.teardownTimeoutMs, 'teardown()', EXIT.teardownTimeout);
    } catch (e) {
      const failure = lifecycleFailure(e, log);
      exitCode ??= failure;
    }
  }
  clearInterval(vusTicker);
  clearInterval(evalTicker);
  clearInterval(tick);
  pushVus();
  const durationMs = rc.elapsedMs();
  const finalResults = evaluateThresholds(thresholds, durationMs, true);
  rc.events.emit('thresholds', { atMs: durationMs, final: true, results: finalResults });

  let summary: SummaryData | null = null;
  if (setupOk || exitCode === EXIT.setupTimeout) {
    summary = buildSummaryData(rc, thresholds, { noColor: cfg.noColor, isStdOutTTY: cfg.isStdOutTTY, isStdErrTTY: cfg.isStdErrTTY, testRunDurationMs: durationMs });
    await writeSummaries(cfg, vu0, summary, log);
  }

  const health = rc.health.toJSON();
  for (const [name, h] of Object.entries(health.scenarios)) {
    if (h.clientBound) log('warning', `scenario ${name}: client-bound figures (${h.reason}): this process or the machine it runs on was saturated, so latencies include client delay, not only the server's`);
  }
  if (cfg.healthOut) writeOut(resolve(cfg.cwd, cfg.healthOut), JSON.stringify(health, null, 2) + '\n');
  await rc.engine.closeOutputs();
  for (const vu of [vu0, ...vus]) vu.close();

  const crossed = crossedMetrics(thresholds);
  exitCode ??= rc.aborted?.exitCode ?? null;
  if (exitCode === null && crossed.length > 0) exitCode = EXIT.thresholdsFailed;
  if (exitCode === null && rc.failedMessage !== null) exitCode = EXIT.testFailed;
  const code = exitCode ?? EXIT.ok;
  // The last progress block first, then k6's closing error lines.
  rc.events.emit('testEnd', { exitCode: code, durationMs });
  if (crossed.length > 0 && !thresholdsAborted) log('error', `thresholds on metrics '${crossed.join(', ')}' have been crossed`);
  if (rc.aborted && rc.aborted.exitCode !== EXIT.thresholdsFailed && rc.aborted.exitCode !== EXIT.interrupted) log('error', rc.aborted.message);
  return { exitCode: code, summary };
}

function writeOut(path: string, content: string | Buffer): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
}

async function runScenario(rc: RunContext, sc: ScenarioRuntime, pool: VUPool, aborted: Promise<void>): Promise<void> {
  const cfg = sc.config;
  // Node timers may fire up to a millisecond early against the monotonic run clock; a scenario must
  // never start before its startTime, so wait again for whatever is left.
  while (cfg.startTimeMs > rc.elapsedMs() && !rc.aborted) {
    let t: NodeJS.Timeout;
    await Promise.race([new Promise<void>((r) => (t = setTimeout(r, Math.max(1, Math.ceil(cfg.startTimeMs - rc.elapsedMs()))))), aborted]).finally(() => clearTimeout(t));
  }
  if (rc.aborted) return;
  sc.started = true;
  sc.startEpochMs = epochMs();
  rc.health?.start(sc.name);
  rc.events.emit('scenarioStart', { name: sc.name, executor: cfg.executor, atMs: rc.elapsedMs() });
  // At maxDuration no new iteration starts; gracefulStop later the running ones are cut.
  const tStop = setTimeout(() => (sc.stopping = true), cfg.maxDurationMs);
  const tCut = setTimeout(() => {
    sc.stopping = true;
    sc.cutAll();
  }, cfg.maxDurationMs + cfg.gracefulStopMs);
  try {
    await runExecutor(rc, sc, pool);
  } finally {
    clearTimeout(tStop);
    clearTimeout(tCut);
    sc.finished = true;
    rc.health?.finish(sc.name);
    rc.events.emit('scenarioEnd', { name: sc.name, completed: sc.completed, interrupted: sc.interrupted, atMs: rc.elapsedMs() });
  }
}

export type { CompiledThreshold };
