// The dashboard's server panels against a real vLLM or SGLang scraped by a real Prometheus, as was done for
// llama.cpp in test/deploy/prometheus-e2e.test.ts. Runs in Node: vitest (the real-server tests), and plain tsx
// (no vitest import: a failure is a thrown error naming the targets).
//
// The simulator serves the names the dashboard queries because the dashboard asks for them; only the real
// server says whether they are its names, its labels, and whether they move while requests run.

import type { Dashboard, Target } from '../../deploy/grafana/dashboard';
import { SERVER_JOB_VAR } from '../../deploy/grafana/variables';
import { parsePrometheusText, sumSamples, SERVER_METRIC_SOURCES, type ServerSnapshot } from '../../lib/prometheus';
import {
  allPanels, allVariables, finiteValues, interpolate, readDashboard, runTarget, startPrometheus, type PromApi,
  type Window,
} from '../deploy/prometheus-harness';

/** The shipped prometheus.yml job of the engine, which is also the prefix of its series (vllm:, sglang:). */
export type ScrapedEngine = 'vllm' | 'sglang';

export interface ServerRowsOptions {
  readonly job: ScrapedEngine;
  /** http://127.0.0.1:PORT, the server's API port: /metrics is there. */
  readonly base: string;
  /**
   * Sends streamed requests to the server while Prometheus scrapes it every second. They should run for a few
   * seconds, so that scrapes see them running. When it resolves to a number (the tokens the requests generated,
   * their usage.completion_tokens summed), the server's generation counter must have grown by exactly that.
   */
  readonly drive: () => Promise<number | void>;
}

export interface ServerTargetResult {
  readonly panel: string;
  readonly refId: string;
  readonly legend: string;
  readonly series: number;
  readonly values: number;
}

export interface ServerRowsLive {
  /** Every target that reads the engine's series and returned finite data. */
  readonly live: readonly ServerTargetResult[];
  /** Targets of a series the server creates at its first event (see FIRST_EVENT), absent from its /metrics. */
  readonly notYetCreated: readonly string[];
  /** Tokens the server's generation counter grew by during drive(), in its /metrics and in Prometheus alike. */
  readonly generationTokens: number;
  /** Wall time of the whole check, drive() included, ms. */
  readonly elapsedMs: number;
  /** One line per target, for the log. */
  readonly lines: readonly string[];
}

/**
 * Figures whose series the engine creates only with their first event: SGLang 0.5.23's retraction counter
 * appears with the first retraction (test/e2e/sglang-server.test.ts), which a few requests on a cache of
 * 131K tokens never cause. Their targets may be empty while the server's /metrics lacks every one of their names.
 */
const FIRST_EVENT: Readonly<Record<ScrapedEngine, readonly (keyof ServerSnapshot)[]>> = {
  vllm: [],
  sglang: ['preemptionsTotal'],
};

const SCRAPE_SECONDS = 1;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The engine's own name for a figure (SERVER_METRIC_SOURCES, first of its prefix). */
function engineName(job: ScrapedEngine, key: keyof ServerSnapshot): string {
  const name = SERVER_METRIC_SOURCES[key].find((n) => n.startsWith(`${job}:`));
  if (!name) throw new Error(`lib/prometheus.ts SERVER_METRIC_SOURCES.${key} names no ${job}: series`);
  return name;
}

async function scrapeText(base: string): Promise<string> {
  const res = await fetch(`${base}/metrics`);
  if (!res.ok) throw new Error(`${base}/metrics answered ${res.status}`);
  return res.text();
}

/** A figure as the server's /metrics states it now, summed over label sets; throws when it is not there. */
async function ownFigure(base: string, name: string): Promise<number> {
  const value = sumSamples(parsePrometheusText(await scrapeText(base)), name);
  if (value === null) throw new Error(`${base}/metrics has no ${name}`);
  return value;
}

/** Polls `check` every 250 ms until it returns null; throws its last complaint after `seconds`. */
async function waitUntil(seconds: number, check: () => Promise<string | null>): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const complaint = await check();
    if (complaint === null) return;
    if (Date.now() > deadline) throw new Error(`after ${seconds} s: ${complaint}`);
    await sleep(250);
  }
}

/**
 * A selector of `name` spelt as the server writes it or with its ':' escaped to '_'. prometheus_client 0.26 (SGLang's
 * /metrics) writes ':' as '_' in its sample lines when the scraper asks for OpenMetrics without escaping=allow-utf-8,
 * as Prometheus 2.x does (prometheus/client_python#1177). The waiting here reads either spelling, so that such a
 * mismatch fails where it matters, in the dashboard's own targets (run as they are), and is named there.
 */
function eitherSpelling(name: string, job: ScrapedEngine): string {
  return `{__name__=~"${name.replaceAll(':', '[:_]')}", job="${job}"}`;
}

/** The series of `names`, ':' escaped to '_', that Prometheus holds for the job at `time`. */
async function heldEscaped(api: PromApi, names: string[], job: ScrapedEngine, time: number): Promise<string[]> {
  const escaped = names.map((n) => n.replaceAll(':', '_'));
  const query = `count by (__name__) ({__name__=~"${escaped.join('|')}", job="${job}"})`;
  return (await api('query', { query, time: String(time) })).result.map((r) => r.metric.__name__!);
}

/** The sum of `name`'s series (either spelling) as Prometheus holds it now, or null without a sample. */
async function scraped(api: PromApi, job: ScrapedEngine, name: string): Promise<number | null> {
  const r = await api('query', { query: `sum(${eitherSpelling(name, job)})`, time: String(Date.now() / 1000) });
  const v = finiteValues(r);
  return v.length > 0 ? v[0]! : null;
}

/** Waits until Prometheus' latest scrape of `name` equals `expected` (read from /metrics just before). */
function waitScrapedEquals(api: PromApi, job: ScrapedEngine, name: string, expected: number): Promise<void> {
  return waitUntil(30, async () => {
    const got = await scraped(api, job, name);
    return got === expected ? null : `Prometheus holds ${name}{job="${job}"} = ${got}, /metrics says ${expected}`;
  });
}

/** The dashboard targets that read the engine's own series (vllm:..., sglang:...), with their panel's title. */
function engineTargets(d: Dashboard, job: ScrapedEngine): { panel: string; target: Target }[] {
  const reads = new RegExp(`(^|[^A-Za-z_:])${job}:`);
  return allPanels(d).flatMap((p) =>
    (p.targets ?? []).filter((t) => reads.test(t.expr)).map((target) => ({ panel: p.title, target })));
}

/** The scraped series names a target's expression reads, of this engine. */
function namesIn(expr: string, job: ScrapedEngine): string[] {
  return [...expr.matchAll(new RegExp(`${job}:[A-Za-z0-9_:]+`, 'g'))].map((m) => m[0]);
}

/**
 * Starts Prometheus scraping only the engine's job of the shipped prometheus.yml (every second), runs `drive`,
 * waits until the scrapes hold the server's state after it, then runs every dashboard target that reads the
 * engine's series as Grafana would (server_job = the job) and throws unless each returns finite data. Ties the
 * "Running requests" line to the server: it rose to 1 or more during drive and is back to the server's own 0
 * after; the scraped generation counter grew by what /metrics says (and by drive's tokens when it returns them).
 * Leaves no Prometheus process or data behind, whatever happens.
 */
export async function expectServerRowsLive(opts: ServerRowsOptions): Promise<ServerRowsLive> {
  const began = Date.now();
  const { job, base } = opts;
  const dashboard = readDashboard();
  const targets = engineTargets(dashboard, job);
  if (targets.length === 0) throw new Error(`no dashboard target reads a ${job}: series`);
  const prom = await startPrometheus({
    targets: { [job]: new URL(base).host }, unmappedJobs: 'drop', scrapeSeconds: SCRAPE_SECONDS,
  });
  try {
    const running = engineName(job, 'running');
    const generated = engineName(job, 'generationTokensTotal');
    // Two scrapes before the requests: every rate() has a sample to start from, every counter its baseline.
    const before = await ownFigure(base, generated);
    await waitScrapedEquals(prom.api, job, generated, before);
    await sleep(2 * SCRAPE_SECONDS * 1000);
    const start = Date.now() / 1000 - 2 * SCRAPE_SECONDS;
    const driven = await opts.drive();
    // The server's own word that nothing runs any more, then a scrape that has seen it.
    await waitUntil(60, async () => {
      const n = await ownFigure(base, running);
      return n === 0 ? null : `${base}/metrics still says ${running} = ${n} after drive()`;
    });
    const after = await ownFigure(base, generated);
    await waitScrapedEquals(prom.api, job, running, 0);
    await waitScrapedEquals(prom.api, job, generated, after);
    const generationTokens = after - before;
    if (generationTokens <= 0) throw new Error(`${generated} did not grow during drive(): did it send requests?`);
    if (typeof driven === 'number' && driven !== generationTokens)
      throw new Error(`${generated} grew by ${generationTokens}; the requests generated ${driven}`);
    const window = await windowPastLastScrape(start);
    // The job picked in server_job, as a user would; the engine's targets read no k6 series, so testid is moot.
    const vars = { ...allVariables(dashboard, 'none'), [SERVER_JOB_VAR]: job };
    const summary = await runEngineTargets(prom.api, targets, vars, window, opts);
    const runningTarget = targets.find(({ target }) => namesIn(target.expr, job).includes(running));
    if (!runningTarget) throw new Error(`the dashboard has no target of ${running}`);
    await checkRunningLine(prom.api, runningTarget.target, vars, window, running);
    return { ...summary, generationTokens, elapsedMs: Date.now() - began };
  } finally {
    await prom.stop();
  }
}

/**
 * The window from `start` to now, once now is a range-query step past the present: Grafana evaluates on a grid of
 * steps ending at or before the window's end, and the last point must come after the scrape that saw the server idle.
 */
async function windowPastLastScrape(start: number): Promise<Window> {
  const { step } = interpolate('', {}, { start, end: Date.now() / 1000 });
  const now = Date.now() / 1000;
  await sleep(((Math.floor(now / step) + 1) * step - now) * 1000 + 500);
  return { start, end: Date.now() / 1000 };
}

async function runEngineTargets(
  api: PromApi, targets: { panel: string; target: Target }[], vars: Record<string, string>, w: Window,
  opts: ServerRowsOptions,
): Promise<Omit<ServerRowsLive, 'generationTokens' | 'elapsedMs'>> {
  const { job, base } = opts;
  const own = parsePrometheusText(await scrapeText(base));
  const firstEventNames = new Set(FIRST_EVENT[job].flatMap((key) => SERVER_METRIC_SOURCES[key]));
  const live: ServerTargetResult[] = [];
  const notYetCreated: string[] = [];
  const empty: string[] = [];
  const lines: string[] = [];
  for (const { panel, target } of targets) {
    const r = await runTarget(api, target, vars, w);
    const values = finiteValues(r);
    const legend = target.legendFormat;
    const label = `${panel} [${target.refId}] ${legend}`;
    lines.push(`${label}: ${r.result.length} series, ${values.length} values` +
      (values.length > 0 ? `, last ${values.at(-1)!.toPrecision(4)}` : ''));
    if (values.length > 0) {
      live.push({ panel, refId: target.refId, legend, series: r.result.length, values: values.length });
      continue;
    }
    const names = namesIn(target.expr, job);
    const created = names.filter((n) => own.some((s) => s.name === n));
    if (names.every((n) => firstEventNames.has(n)) && created.length === 0) {
      notYetCreated.push(label);
      continue;
    }
    const escaped = await heldEscaped(api, names, job, w.end);
    const note = escaped.length === 0 ? '' :
      `\n    Prometheus holds ${escaped.join(', ')}: ':' escaped to '_' by the scrape`;
    empty.push(`${label}\n    ${interpolate(target.expr, vars, w).expr}${note}`);
  }
  if (empty.length > 0) {
    const all = lines.join('\n');
    throw new Error(`dashboard targets without data on the real ${job}:\n${empty.join('\n')}\nevery target:\n${all}`);
  }
  return { live, notYetCreated, lines };
}

/**
 * The running line ends at the server's own 0 (its last point on Grafana's grid), and rose to 1 or more while
 * drive() ran. The rise is looked for at every scrape, as a zoomed-in panel shows it: Grafana's 5 s grid can fall
 * either side of a few seconds of requests.
 */
async function checkRunningLine(
  api: PromApi, t: Target, vars: Record<string, string>, w: Window, running: string,
): Promise<void> {
  const last = finiteValues(await runTarget(api, t, vars, w)).at(-1);
  if (last !== 0) throw new Error(`${running}'s last point is ${last}, the server's /metrics says 0`);
  const { expr } = interpolate(t.expr, vars, w);
  const fine = await api('query_range', {
    query: expr, start: String(w.start), end: String(w.end), step: String(SCRAPE_SECONDS),
  });
  const peak = Math.max(...finiteValues(fine));
  if (!(peak >= 1)) throw new Error(`${running} never showed a running request (peak ${peak}): drive() too short?`);
}
