// A real Prometheus started from the shipped deploy/prometheus/prometheus.yml, and the dashboard's targets run
// against it as Grafana runs them. Runs in Node: vitest, and plain tsx (no vitest import: failures are thrown errors).
//
// Shared by test/deploy/prometheus-e2e.test.ts (k6's remote write and the simulators) and
// test/e2e/real-server-grafana.ts (a real vLLM or SGLang scraped alone).

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { dump as yamlDump, load as yamlLoad } from 'js-yaml';
import type { Dashboard, Panel, Target } from '../../deploy/grafana/dashboard';
import { freePort } from '../../node/free-port';
import { ROOT, tempDir } from '../e2e/helpers';

/**
 * Grafana's datasource "scrape interval" (jsonData.timeInterval) of deploy/grafana/provisioning, s: the floor of
 * $__interval.
 */
export const GRAFANA_TIME_INTERVAL_SECONDS = 5;

/** A target value meaning "this Prometheus itself" (the shipped `prometheus` job scrapes localhost:9090). */
export const PROMETHEUS_SELF = 'self';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface PromResult {
  readonly resultType: 'vector' | 'matrix' | 'scalar' | 'string';
  readonly result: {
    metric: Record<string, string>; value?: [number, string]; values?: [number, string][]; histogram?: unknown;
    histograms?: unknown[];
  }[];
}

/** A query of Prometheus' HTTP API: `query`, `query_range`, `label/<name>/values`, ... */
export type PromApi = <T = PromResult>(endpoint: string, params: Record<string, string | string[]>) => Promise<T>;

export interface PrometheusOptions {
  /** host:port (or PROMETHEUS_SELF) for each job of the shipped prometheus.yml, by job_name. */
  readonly targets: Readonly<Record<string, string>>;
  /** A shipped job with no target: an error (the test must cover every job), or left out of the config. */
  readonly unmappedJobs: 'error' | 'drop';
  /** Scrape and rule-evaluation interval, s (the shipped 5 s / 15 s are too slow for a test's run). */
  readonly scrapeSeconds: number;
}

export interface PrometheusRun {
  /** http://127.0.0.1:<port> */
  readonly url: string;
  /** The recording rules as loaded, at the scrape interval (the shipped file with only its interval changed). */
  readonly rulesFile: string;
  readonly api: PromApi;
  /** The last 20,000 characters Prometheus logged. */
  log(): string;
  /** SIGTERM, resolves once the process has exited; deletes its config and data. Safe to call twice. */
  stop(): Promise<void>;
}

function which(cmd: string): string | null {
  const r = spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}

/** Throws, saying how to install them, unless every one of `tools` is on PATH. */
export function requirePrometheusTools(tools: readonly string[] = ['prometheus']): void {
  if (tools.some((t) => which(t) === null)) {
    throw new Error(
      `${tools.join(' and ')} ${tools.length > 1 ? 'are' : 'is'} not on PATH: ` +
      'run `sh scripts/ensure-prometheus.sh` (npm test does) or install Prometheus 2.40+',
    );
  }
}

interface ShippedConfig {
  global: Record<string, string>;
  rule_files: string[];
  scrape_configs: { job_name: string; static_configs: { targets: string[] }[] }[];
}

/** The shipped prometheus.yml and its rules, pointed at `opts.targets`, written into `dir`; returns both paths. */
function writeConfig(opts: PrometheusOptions, self: string, dir: string): { configFile: string; rulesFile: string } {
  const shipped = yamlLoad(readFileSync(path.join(ROOT, 'deploy/prometheus/prometheus.yml'), 'utf8')) as ShippedConfig;
  const jobs = shipped.scrape_configs.filter((job) => {
    const t = opts.targets[job.job_name];
    if (t === undefined && opts.unmappedJobs === 'error')
      throw new Error(`deploy/prometheus/prometheus.yml has a job "${job.job_name}" the test maps to no target`);
    if (t === undefined) return false;
    for (const sc of job.static_configs) sc.targets = [t === PROMETHEUS_SELF ? self : t];
    return true;
  });
  const unknown = Object.keys(opts.targets).filter((name) => !jobs.some((j) => j.job_name === name));
  if (unknown.length > 0) throw new Error(`no job ${unknown.join(', ')} in deploy/prometheus/prometheus.yml`);
  shipped.scrape_configs = jobs;
  const interval = `${opts.scrapeSeconds}s`;
  shipped.global = { ...shipped.global, scrape_interval: interval, evaluation_interval: interval };
  const shippedRules = readFileSync(path.join(ROOT, 'deploy/prometheus', shipped.rule_files[0]!), 'utf8');
  const rulesFile = path.join(dir, 'recording-rules.yml');
  writeFileSync(rulesFile, shippedRules.replace(/^(\s+interval:\s*)\S+$/m, `$1${interval}`));
  shipped.rule_files = [rulesFile];
  const configFile = path.join(dir, 'prometheus.yml');
  writeFileSync(configFile, yamlDump(shipped));
  return { configFile, rulesFile };
}

/**
 * Starts Prometheus on a free loopback port with the remote-write receiver and native histograms, as
 * docs/guides/grafana.md documents, and resolves once /-/ready answers. On failure it leaves no process and no
 * data behind.
 */
export async function startPrometheus(opts: PrometheusOptions): Promise<PrometheusRun> {
  requirePrometheusTools();
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const dir = tempDir('prometheus');
  let child: ChildProcess | null = null;
  let log = '';
  const stop = async (): Promise<void> => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const closed = new Promise((r) => child!.once('close', r));
      child.kill('SIGTERM');
      await closed;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const { configFile, rulesFile } = writeConfig(opts, `127.0.0.1:${port}`, dir);
    mkdirSync(path.join(dir, 'data'));
    child = spawn(
      'prometheus',
      [
        `--config.file=${configFile}`,
        `--storage.tsdb.path=${path.join(dir, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--web.enable-remote-write-receiver',
        '--enable-feature=native-histograms',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    child.stderr!.on('data', (d: Buffer) => (log = (log + d.toString()).slice(-20_000)));
    await waitReady(url, child, () => log);
    return { url, rulesFile, api: promApiAt(url), log: () => log, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

async function waitReady(url: string, child: ChildProcess, log: () => string): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${url}/-/ready`)).ok) return;
    } catch {
      // not listening yet
    }
    if (i > 100 || child.exitCode !== null) throw new Error(`Prometheus did not start:\n${log()}`);
    await sleep(200);
  }
}

/** Prometheus' HTTP API at `url`; an answer other than success is thrown with its error. */
export function promApiAt(url: string): PromApi {
  return async <T = PromResult>(endpoint: string, params: Record<string, string | string[]>): Promise<T> => {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) for (const one of Array.isArray(v) ? v : [v]) body.append(k, one);
    // GET, as Grafana does for label values (Prometheus allows POST only on query endpoints).
    const res = await fetch(`${url}/api/v1/${endpoint}?${body.toString()}`);
    const json = (await res.json()) as { status: string; data: T; error?: string };
    if (json.status !== 'success') throw new Error(`Prometheus ${endpoint} ${JSON.stringify(params)}: ${json.error}`);
    return json.data;
  };
}

/** Finite numbers a query result holds (instant or range). */
export function finiteValues(r: PromResult): number[] {
  const out: number[] = [];
  for (const s of r.result) {
    for (const [, v] of s.values ?? (s.value ? [s.value] : [])) {
      const n = Number(v);
      if (Number.isFinite(n)) out.push(n);
    }
  }
  return out;
}

/** The last value of the first series whose labels include `match`. */
export function lastValue(r: PromResult, match: Record<string, string> = {}): number {
  const s = r.result.find((x) => Object.entries(match).every(([k, v]) => x.metric[k] === v));
  if (!s) {
    throw new Error(`no series with ${JSON.stringify(match)} in ${JSON.stringify(r.result.map((x) => x.metric))}`);
  }
  const v = s.value ?? s.values?.[s.values.length - 1];
  return Number(v![1]);
}

// ---------------------------------------------------------------------------------------------
// The dashboard, and Grafana's variable interpolation.

/** deploy/grafana/k6-llm-capacity.json as generated by `npm run dashboard`. */
export function readDashboard(): Dashboard {
  return JSON.parse(readFileSync(path.join(ROOT, 'deploy/grafana/k6-llm-capacity.json'), 'utf8')) as Dashboard;
}

/** Every query variable at "All" (its allValue), testid at `testid`: what Grafana fills in with those choices. */
export function allVariables(d: Dashboard, testid: string): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const v of d.templating.list) {
    if (v.type !== 'query') continue;
    vars[v.name] = v.name === 'testid' ? testid : v.allValue ?? '.*';
  }
  return vars;
}

export interface Window {
  readonly start: number;
  readonly end: number;
}

/**
 * Fills in a target's expression as Grafana does for a Prometheus datasource with the provisioned
 * timeInterval: $__interval = max(timeInterval, range / maxDataPoints), rounded to whole seconds;
 * $__rate_interval = max($__interval + timeInterval, 4 * timeInterval); $__range = the dashboard range
 * in seconds; query variables by value, "All" by the variable's allValue.
 */
export function interpolate(
  expr: string, vars: Record<string, string>, w: Window, maxDataPoints = 1000,
): { expr: string; step: number } {
  const rangeSeconds = Math.ceil(w.end - w.start);
  const interval = Math.max(GRAFANA_TIME_INTERVAL_SECONDS, Math.ceil(rangeSeconds / maxDataPoints));
  const rateInterval = Math.max(interval + GRAFANA_TIME_INTERVAL_SECONDS, 4 * GRAFANA_TIME_INTERVAL_SECONDS);
  let out = expr
    .replaceAll('$__rate_interval', `${rateInterval}s`)
    .replaceAll('$__interval', `${interval}s`)
    .replaceAll('$__range', `${rangeSeconds}s`);
  // Longest names first so $cell does not eat into a $cell_x.
  for (const name of Object.keys(vars).sort((a, b) => b.length - a.length)) {
    out = out.replaceAll(`$${name}`, vars[name]!);
  }
  if (/\$[A-Za-z_]/.test(out)) throw new Error(`uninterpolated variable in ${out}`);
  return { expr: out, step: interval };
}

/** Every panel but the rows, those inside collapsed rows included. */
export function allPanels(d: Dashboard): Panel[] {
  return d.panels.flatMap((p) => [p, ...(p.panels ?? [])]).filter((p) => p.type !== 'row');
}

/** A panel target as Grafana runs it over `w`: instant at the end, or a range query aligned to the step. */
export async function runTarget(api: PromApi, t: Target, vars: Record<string, string>, w: Window): Promise<PromResult> {
  const { expr, step } = interpolate(t.expr, vars, w);
  if (t.instant) return api('query', { query: expr, time: String(w.end) });
  // Grafana aligns range queries to the step.
  const start = Math.floor(w.start / step) * step;
  return api('query_range', { query: expr, start: String(start), end: String(w.end), step: String(step) });
}
