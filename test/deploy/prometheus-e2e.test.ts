// End to end through a real Prometheus: the dashboard's panels show the run's own figures. Runs in Node (vitest).
// Needs `prometheus` and `promtool` (scripts/ensure-prometheus.sh). A stock k6, each run with a measuring agent of its
// own, pushes a sweep + capacity run with
// -o experimental-prometheus-rw (as the README documents), Prometheus also scrapes the simulators' /metrics with the
// shipped prometheus.yml's jobs, and every target of every dashboard panel, with its template variables filled in as
// Grafana would, must return data whose spot values equal the run's own summary. The recording rules must pass promtool
// and produce series. Prometheus, started from the shipped config, and the targets run as Grafana runs them:
// prometheus-harness.ts.

import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRICS } from '../../lib/metrics';
import { readSummaryData, cellMetricKey } from '../../lib/summary-data';
import { buildBundles } from '../../orchestrator/bundles';
import { readPlanFile } from '../../report/inputs';
import { startSim } from '../../sim/server';
import { ensureLlamaArtefacts, startLlamaServer, type LlamaServer } from '../../orchestrator/llama-server';
import type { Dashboard, Target } from '../../deploy/grafana/dashboard';
import { extraTags, readCsv, ROOT, runBenchCli, tempDir, testEngine } from '../e2e/helpers';
import { preparePrompts } from '../../tokenizer/prepare-prompts';
import {
  allPanels, allVariables, finiteValues, GRAFANA_TIME_INTERVAL_SECONDS, interpolate, lastValue, PROMETHEUS_SELF,
  readDashboard, requirePrometheusTools, runTarget as runTargetOn, startPrometheus, type PromResult, type PrometheusRun,
  type Window,
} from './prometheus-harness';
import {
  TTFT_MS, ITL_MS, OUTPUT, MODEL, TESTID, SCRAPE_SECONDS, SWEEP_PLAN, CAPACITY_IDS, CAPACITY_PLAN, FAULT_PLAN,
  PREFIX_PLAN, SESSIONS_PLAN, RATE_PLAN, EMBED_PLAN, NATIVE_PLAN, NATIVE_PUSH_INTERVAL,
} from './prometheus-e2e-plans';
import { runK6, type K6Run } from './prometheus-e2e-k6';
import { SYNC_CHILD_LIMIT } from '../sync-child';

// ---------------------------------------------------------------------------------------------
// Processes and helpers.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let prom: PrometheusRun | null = null;
let promUrl = '';

/** Prometheus' HTTP API (see prometheus-harness.ts), once beforeAll has started it. */
function promApi<T = PromResult>(endpoint: string, params: Record<string, string | string[]>): Promise<T> {
  return prom!.api<T>(endpoint, params);
}

/**
 * Cells of the sweep and capacity runs with no measured-phase TTFT series in Prometheus under this attempt's testid.
 */
async function cellsWithoutMeasuredSeries(): Promise<string[]> {
  const query = `count by (cell) (k6_llm_ttft_count{testid="${TESTID}", phase!~"warmup|transition"})`;
  const r = await promApi('query', { query, time: String(window.end) });
  const present = new Set(r.result.map((x) => x.metric.cell));
  const cells = [runs.sweep, runs.capacity].flatMap((run) =>
    readPlanFile(path.join(run.dir, 'plan.json')).cells.map((c) => c.id),
  );
  return cells.filter((c) => !present.has(c));
}

/** Panels only a bench-driven search fills (llm_capacity_users): checked against `npm run bench` below. */
const BENCH_SEARCH_PANEL = /npm run bench search/;

/** A panel target as Grafana runs it (see prometheus-harness.ts), against this test's Prometheus. */
function runTarget(t: Target, vars: Record<string, string>, w: Window): Promise<PromResult> {
  return runTargetOn(prom!.api, t, vars, w);
}

// ---------------------------------------------------------------------------------------------
// The run.

let sims: Awaited<ReturnType<typeof startSim>>[] = [];
let llama: LlamaServer | null = null;
let dashboard: Dashboard;
let rulesFile = '';
let window: Window;
/** When the last k6 process had exited (its last push done), s since the epoch. */
let lastPushAt = 0;
const runs: Record<'sweep' | 'capacity' | 'fault' | 'native' | 'prefix' | 'sessions' | 'rate' | 'embed', K6Run> =
  {} as never;
let allVars: Record<string, string> = {};

/** The simulators the runs talk to: fixed timing, SGLang-flavoured, failing, with its performance model, reasoning. */
async function startSimulators() {
const main = await startSim({ port: 0, host: '127.0.0.1', fixed: { ttftMs: TTFT_MS, itlMs: ITL_MS } });
const sglang = await startSim({
  port: 0, host: '127.0.0.1', flavour: 'sglang', fixed: { ttftMs: TTFT_MS, itlMs: ITL_MS },
});
const faulty = await startSim({
  port: 0, host: '127.0.0.1', fixed: { ttftMs: TTFT_MS, itlMs: ITL_MS }, faults: 'error-status;status=503',
});
const physics = await startSim({ port: 0, host: '127.0.0.1', tokenizerWorkers: 1 });
// Unscraped, so the server panels' totals stay the main simulator's own runs'. A reasoning model, for the
// reasoning-token series.
const arrivals = await startSim({
  port: 0, host: '127.0.0.1', fixed: { ttftMs: TTFT_MS, itlMs: ITL_MS }, reasoningTokens: 2,
});
  return { main, sglang, faulty, physics, arrivals };
}

/** The sessions run's prompts (1K first turns, 64-token follow-ups), written to a file; resolves to its path. */
async function writeSessionPrompts(): Promise<string> {
const promptsFile = path.join(tempDir('prom-prompts'), 'prompts.json');
const prompts = await preparePrompts({
  model: MODEL, api: 'chat', contexts: [1024], followUps: [64], tokenizer: 'qwen3',
});
writeFileSync(promptsFile, JSON.stringify(prompts));
  return promptsFile;
}

// Traffic for the SGLang-flavoured simulator and llama-server, so their rate and mean series move during the run.
async function sendServerTraffic(sglangUrl: string, llamaBase: string): Promise<void> {
  for (let i = 0; i < 6; i++) {
    for (const base of [sglangUrl, `${llamaBase}/v1`]) {
      const body = JSON.stringify({
        model: MODEL, messages: [{ role: 'user', content: 'hello there' }], max_tokens: 4,
      });
      const res = await fetch(`${base}/chat/completions`, {
        method: 'POST', headers: { 'content-type': 'application/json' }, body,
      });
      await res.text();
    }
    await sleep(2000);
  }
}

// The bench's two parts one after the other; the fault and native-histogram cells alongside the sweep,
// each as its own runner (instance_id, as k6-operator labels runners): two k6 processes writing the
// same series (k6_vus{testid}) would have Prometheus reject their pushes as out of order.
async function runAllParts(
  { main, faulty, physics, arrivals }: Record<'main' | 'faulty' | 'physics' | 'arrivals', { url: string }>, rw: string,
  promptsFile: string,
): Promise<void> {
  const sweepAndCapacity = (async () => {
    runs.sweep = await runK6('sweep', SWEEP_PLAN, main.url, rw);
    runs.capacity = await runK6('capacity', CAPACITY_PLAN, main.url, rw);
  })();
  const [[fault, rate, embed], [prefix, native]] = await Promise.all([
    // The rate cell after the fault cell, not beside it: four k6 processes at once are already two per core.
    (async () => [
      await runK6('sweep', FAULT_PLAN, faulty.url, rw, {}, { instance_id: 'fault' }),
      await runK6('rate', RATE_PLAN, arrivals.url, rw, {}, { instance_id: 'rate' }),
      await runK6('embed', EMBED_PLAN, arrivals.url, rw, {}, { instance_id: 'embed' }),
    ] as const)(),
    (async () => {
      // One simulator for the three, one after another, so no monitor reads another's requests.
      const p = await runK6('sweep', PREFIX_PLAN, physics.url, rw, {}, { instance_id: 'prefix' });
      runs.sessions = await runK6(
        'sessions', SESSIONS_PLAN, physics.url, rw, { PROMPTS: promptsFile }, { instance_id: 'sessions' },
      );
      const native = await runK6(
        'sweep', NATIVE_PLAN, physics.url, rw,
        { K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM: 'true', K6_PROMETHEUS_RW_PUSH_INTERVAL: NATIVE_PUSH_INTERVAL },
        { instance_id: 'native' },
      );
      return [p, native] as const;
    })(),
    sweepAndCapacity,
  ]);
  runs.rate = rate;
  runs.embed = embed;
  runs.fault = fault;
  runs.native = native;
  runs.prefix = prefix;
  lastPushAt = Date.now() / 1000;
  // k6 pushes a last time as it exits. Grafana's range queries are evaluated on a grid of $__interval
  // steps (at least the datasource's 5 s) ending at or before the range's end, so a push less than
  // one step before the end can fall after the last evaluation: the last cell then looked lost in
  // about one run in five while Prometheus held it. Ending the window more than a step after the
  // last push keeps every push inside the grid; it also gives the scrapes and the rules more rounds.
  await sleep((GRAFANA_TIME_INTERVAL_SECONDS + 1.5) * 1000);
}

beforeAll(async () => {
  requirePrometheusTools(['prometheus', 'promtool']);
  await buildBundles();
  testEngine(); // fails early with a clear message when no k6 is found

  const { main, sglang, faulty, physics, arrivals } = await startSimulators();
  const promptsFile = await writeSessionPrompts();
  sims = [main, sglang, faulty, physics, arrivals];
  // A real llama-server for the dashboard's llama.cpp lines (npm test builds it first).
  llama = await startLlamaServer(await ensureLlamaArtefacts(() => {}), { slots: 2, contextPerSlot: 2048, threads: 1 });
  const hostPort = (url: string) => new URL(url).host;

  // The shipped prometheus.yml with the simulators as targets: vllm -> the main simulator, sglang and
  // dcgm -> the SGLang-flavoured one (it serves the DCGM power gauge too). Short intervals, rules copied.
  prom = await startPrometheus({
    targets: {
      prometheus: PROMETHEUS_SELF, vllm: hostPort(main.url), sglang: hostPort(sglang.url), dcgm: hostPort(sglang.url),
      llamacpp: hostPort(llama.base),
    },
    unmappedJobs: 'error',
    scrapeSeconds: SCRAPE_SECONDS,
  });
  promUrl = prom.url;
  rulesFile = prom.rulesFile;

  const start = Date.now() / 1000 - 5;
  const rw = `${promUrl}/api/v1/write`;
  const sglangTraffic = sendServerTraffic(sglang.url, llama.base);
  await Promise.all([runAllParts({ main, faulty, physics, arrivals }, rw, promptsFile), sglangTraffic]);
  window = { start, end: Date.now() / 1000 };

  dashboard = readDashboard();
  // Every query variable at "All" (its allValue), testid at this run.
  allVars = allVariables(dashboard, TESTID);
}, 300_000);

afterAll(async () => {
  await prom?.stop();
  await Promise.all(sims.map((s) => s.close()));
  await llama?.stop();
});

describe('k6 -> Prometheus remote write: every run, request, series and push arrived', () => {
  it('the k6 runs finished (0, or 99 where the fault cell breaks thresholds)', () => {
    for (const [name, run] of Object.entries(runs))
      expect([0, 99], `${name}: ${run.stderr.slice(-2000)}`).toContain(run.exitCode);
    expect(runs.sweep.exitCode, runs.sweep.stderr.slice(-2000)).toBe(0);
    expect(runs.capacity.exitCode, runs.capacity.stderr.slice(-2000)).toBe(0);
  });

  it('every cell measured its requests, and k6 logged no error and no slow push (a failed push is only ' +
    'logged)', () => {
    for (const run of [runs.sweep, runs.capacity]) {
      const plan = readPlanFile(path.join(run.dir, 'plan.json'));
      for (const c of plan.cells) {
        const measured = run.summary.metrics[cellMetricKey(METRICS.ttft.name, c)]?.values.count ?? 0;
        // A slot ends on k6's clock: a loaded machine can leave a request of it unsent or cut (CI, 2026-12-07: the
        // first cell's second request, its slot 2.8 times what the fixed timing needs), as the bench means it to.
        // What reached Prometheus is compared with what k6 measured, not with the plan; each cell needs a series.
        expect(measured, `${c.id}: measured requests`).toBeGreaterThan(0);
        expect(measured, `${c.id}: measured requests`).toBeLessThanOrEqual(c.concurrency * (c.rounds - c.warmupRounds));
      }
    }
    for (const [name, run] of Object.entries(runs)) {
      expect(
        run.stderr.split('\n').filter((l) => /level=error|remote write/.test(l) && !l.includes('source=console')),
        `${name}: k6's log`,
      ).toEqual([]);
    }
  });

  it("every cell's measured series reached Prometheus, the last cell of the run included", async () => {
    // The last range-query step lies after k6's last push (see runParts).
    const step = interpolate('', {}, window).step;
    const start = Math.floor(window.start / step) * step;
    expect(start + Math.floor((window.end - start) / step) * step).toBeGreaterThan(lastPushAt);
    const lost = await cellsWithoutMeasuredSeries();
    expect(lost, `cells without a measured TTFT series (Prometheus log tail:\n${prom!.log().slice(-3000)})`).toEqual(
      [],
    );
  });

  it('Prometheus accepted every push (no out-of-order or rejected remote write)', () => {
    expect(prom!.log()).not.toMatch(/level=(?:error|warn).*remote write/i);
  });
});

describe('the dashboard over the run: template variables and every target', () => {
  it('the template variables list this run and its cells, as Grafana asks for them (label values)', async () => {
    const testids = await promApi<string[]>('label/testid/values', { 'match[]': 'k6_llm_request_ok_rate' });
    expect(testids).toContain(TESTID);
    const cells = await promApi<string[]>('label/cell/values', {
      'match[]': `k6_llm_request_ok_rate{testid=~"${TESTID}"}`,
    });
    for (const run of [runs.sweep, runs.capacity]) {
      const plan = readPlanFile(path.join(run.dir, 'plan.json'));
      for (const c of plan.cells) expect(cells).toContain(c.id);
    }
    const useCases = await promApi<string[]>('label/use_case/values', {
      'match[]': `k6_llm_request_ok_rate{testid=~"${TESTID}"}`,
    });
    expect(useCases.sort()).toEqual([...CAPACITY_IDS].sort());
    const jobs = await promApi<string[]>('label/job/values', { 'match[]': 'up' });
    expect(jobs.sort()).toEqual(['dcgm', 'llamacpp', 'prometheus', 'sglang', 'vllm']);
  });

  it('every target of every panel returns data for the run', async () => {
    const report: string[] = [];
    const empty: string[] = [];
    for (const panel of allPanels(dashboard).filter((p) => !BENCH_SEARCH_PANEL.test(p.title))) {
      for (const t of panel.targets ?? []) {
        const r = await runTarget(t, allVars, window);
        const values = finiteValues(r);
        const line = `${panel.id} ${panel.title} [${t.refId}] ${t.legendFormat}: ${r.result.length} series, ` +
          `${values.length} values${values.length > 0 ? `, last ${values[values.length - 1]!.toPrecision(4)}` : ''}`;
        report.push(line);
        if (values.length === 0) empty.push(`${line}\n    ${interpolate(t.expr, allVars, window).expr}`);
      }
    }
    // What each target returned, for the log (PROM_E2E_REPORT=file keeps it).
    if (process.env.PROM_E2E_REPORT) writeFileSync(process.env.PROM_E2E_REPORT, report.join('\n') + '\n');
    expect(empty, `targets without data:\n${empty.join('\n')}`).toEqual([]);
  });
});

describe("the dashboard's figures: a cell's TTFT and tokens, and the prefix cache's usage", () => {
  it("a cell's TTFT p50/p95/p99, mean and output tokens in the dashboard equal the run's summary", async () => {
    const byId = (title: string) => allPanels(dashboard).find((p) => p.title === title)!;
    const table = byId('Cells (final values over the time range)');
    const targetOf = (legend: string) => table.targets!.find((t) => t.legendFormat === legend)!;
    for (const run of [runs.sweep, runs.capacity]) {
      const plan = readPlanFile(path.join(run.dir, 'plan.json'));
      for (const planCell of plan.cells) {
        const cell = planCell.id;
        const vars = { ...allVars, cell };
        // A capacity step's figures are of its measured requests, in the summary and on the dashboard alike.
        const ttft = run.summary.metrics[cellMetricKey(METRICS.ttft.name, planCell)]!.values;
        const legends = [
          ['TTFT p50', 'med'], ['TTFT p95', 'p(95)'], ['TTFT p99', 'p(99)'], ['TTFT mean', 'avg'],
        ] as const;
        for (const [legend, stat] of legends) {
          const got = lastValue(await runTarget(targetOf(legend), vars, window), { cell });
          expect(got, `${cell} ${legend}`).toBeCloseTo(ttft[stat]! / 1000, 6);
        }
        const tokens = run.summary.metrics[cellMetricKey(METRICS.outputTokens.name, planCell)]?.values.count ?? null;
        const gotTokens = lastValue(await runTarget(targetOf('Output tokens'), vars, window), { cell });
        if (tokens !== null) expect(gotTokens, `${cell} output tokens`).toBe(tokens);
        expect(gotTokens, `${cell} output tokens`).toBe(OUTPUT * Number(ttft.count));
        // The time series panel's last point is the same cumulative value.
        const series = await runTarget(
          byId('TTFT p50 / p95 / p99').targets!.find((t) => t.refId === 'B')!, vars, window,
        );
        expect(lastValue(series, { cell }), `${cell} TTFT p95 (time series)`).toBeCloseTo(ttft['p(95)']! / 1000, 6);
      }
    }
    // The run-wide output-token stat equals the sum over every part of this testid.
    const total = Object.values(runs).reduce(
      (n, r) => n + (r.summary.metrics[METRICS.outputTokens.name]?.values.count ?? 0), 0,
    );
    const stat = lastValue(await runTarget(byId('Output tokens').targets![0]!, allVars, window));
    expect(stat).toBe(total);
  });

  it("the prefix-cache panel's usage line is the cell's cached / input tokens", async () => {
    const cell = 'sweep_c768_o32_n2';
    const m = runs.prefix.summary.metrics;
    const cached = m[METRICS.cachedTokens.name]?.values.count ?? 0;
    const input = m[METRICS.inputTokens.name]!.values.count!;
    // Every request after the first of the two users finds the shared prompt cached (all but its last token's block).
    expect(cached).toBeGreaterThan(0);
    const panel = allPanels(dashboard).find((p) => p.title === 'Prefix-cache hit rate')!;
    const got = lastValue(await runTarget(panel.targets![0]!, { ...allVars, cell }, window), { cell });
    expect(got).toBeCloseTo(cached / input, 9);
  });
});

describe("the dashboard's Sessions, error and server panels", () => {
  it("the Sessions row's TTFT and hit rate by turn equal the sessions run's own samples, turn by turn", async () => {
    const rows = readCsv(path.join(runs.sessions.dir, 'samples.csv')).rows.filter(
      (r) => extraTags(r).phase === 'measured',
    );
    const byTurn = (metric: string) => {
      const out = new Map<string, { sum: number; n: number }>();
      for (const r of rows.filter((x) => x.metric_name === metric)) {
        const t = extraTags(r).turn!;
        const acc = out.get(t) ?? { sum: 0, n: 0 };
        acc.sum += Number(r.metric_value);
        acc.n++;
        out.set(t, acc);
      }
      return out;
    };
    const ttft = byTurn(METRICS.ttft.name);
    const cached = byTurn(METRICS.cachedTokens.name);
    const input = byTurn(METRICS.inputTokens.name);
    expect([...ttft.keys()].sort()).toEqual(['1', '2', '3']);
    const panel = (title: string) => allPanels(dashboard).find((p) => p.title === title)!.targets![0]!;
    const ttftPanel = await runTarget(panel('TTFT by turn (mean)'), allVars, window);
    const hitPanel = await runTarget(panel('Prefix-cache hit rate by turn'), allVars, window);
    for (const [turn, t] of ttft) {
      expect(lastValue(ttftPanel, { turn }), `turn ${turn} TTFT`).toBeCloseTo(t.sum / t.n / 1000, 6);
      if (turn === '1') continue; // a new conversation: nothing cached (usage states 0)
      expect(lastValue(hitPanel, { turn }), `turn ${turn} hit rate`).toBeCloseTo(
        cached.get(turn)!.sum / input.get(turn)!.sum, 9,
      );
      expect(lastValue(hitPanel, { turn })).toBeGreaterThan(0.9);
    }
    const users = await runTarget(panel('Active users'), allVars, window);
    expect(Math.max(...finiteValues(users))).toBe(3);
  });

  it('the failed requests of the fault cell reach the error panels with their kind', async () => {
    const errors = runs.fault.summary.metrics[METRICS.errors.name]!.values.count!;
    expect(errors).toBe(2);
    const panel = allPanels(dashboard).find((p) => p.title.startsWith('Failed requests by'))!;
    const r = await runTarget(panel.targets![0]!, allVars, window);
    expect(r.result.map((s) => s.metric.error_kind)).toEqual(['http_5xx']);
    expect(lastValue(r)).toBe(errors);
    const failed = await runTarget(
      allPanels(dashboard).find((p) => p.title === 'Failed requests')!.targets![0]!, allVars, window,
    );
    expect(lastValue(failed)).toBe(errors);
  });

  it('the server panels show the scraped simulator: generation tokens equal what the run received', async () => {
    const r = await promApi('query', {
      query: `max_over_time(vllm:generation_tokens_total{job="vllm"}[10m])`, time: String(window.end),
    });
    // The scraped simulator (job vllm) served the sweep and the capacity part; the native cell ran on another.
    const k6Tokens =
      runs.sweep.summary.metrics[METRICS.outputTokens.name]!.values.count! +
      runs.capacity.summary.metrics[METRICS.outputTokens.name]!.values.count!;
    expect(lastValue(r)).toBe(k6Tokens);
    // The monitor's gauge and the scrape agree on the server's TTFT count at the end of the run.
    const power = await promApi('query', {
      query: 'max_over_time(DCGM_FI_DEV_POWER_USAGE{job="dcgm"}[10m])', time: String(window.end),
    });
    expect(lastValue(power)).toBeGreaterThan(0);
  });
});

describe('the recording rules: promtool accepts them and every rule produces series', () => {
  it('promtool accepts the recording rules, and every rule produces series', async () => {
    const check = spawnSync('promtool', ['check', 'rules', path.join(ROOT, 'deploy/prometheus/recording-rules.yml')], {
      encoding: 'utf8', ...SYNC_CHILD_LIMIT,
    });
    expect(check.status, check.stdout + check.stderr).toBe(0);
    const records = [...readFileSync(rulesFile, 'utf8').matchAll(/record:\s*(\S+)/g)].map((m) => m[1]!);
    expect(records.length).toBeGreaterThan(10);
    const missing: string[] = [];
    for (const record of records) {
      const r = await promApi('query', { query: `${record}{testid="${TESTID}"}`, time: String(window.end) });
      const rr = await promApi('query_range', {
        query: `${record}{testid="${TESTID}"}`, start: String(window.start), end: String(window.end), step: '1',
      });
      if (finiteValues(r).length === 0 && finiteValues(rr).length === 0) missing.push(record);
    }
    expect(missing, 'recording rules without series').toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// npm run bench -- --prometheus-rw <url>

const benchCli = (args: string[]) => runBenchCli(args);

describe('npm run bench -- --prometheus-rw', () => {
  it('on k6: the run arrives live in Prometheus under testid = the run id, with the summary\'s values', async () => {
    const dir = tempDir('bench-rw');
    const planFile = path.join(dir, 'plan.json');
    writeFileSync(planFile, JSON.stringify({
      sweep: { contexts: [512], concurrencies: [2], rounds: 2, outputTokens: 16 },
      // One quick search (1, 2, 3 users, no limit broken): its capacity reaches the dashboard's capacity table.
      capacity: {
        useCases: ['code_completion'], maxUsers: 3, rounds: 1, minMeasuredSeconds: 1,
        outputTokens: { code_completion: 16 },
      },
    }));
    const runId = `bench-rw-${process.pid}`;
    // A Prometheus base URL: the bench adds /api/v1/write.
    const r = await benchCli([
      '--plan', planFile, '--scripts', 'sweep,capacity', '--results', dir, '--run-id', runId, '--tokenizer',
      'approximate', '--prometheus-rw', promUrl,
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(`remote write: k6 sends the metrics live to ${promUrl}/api/v1/write (testid=${runId})`);
    const summary = readSummaryData(
      JSON.parse(readFileSync(path.join(dir, runId, 'sweep', 'summary.json'), 'utf8')), 'summary.json',
    );
    const cell = 'sweep_c512_o16_n2';
    const p95 = summary.metrics[cellMetricKey(METRICS.ttft.name, cell)]!.values['p(95)']!;
    const tokens = summary.metrics[METRICS.outputTokens.name]!.values.count!;
    await sleep(1500); // the final push
    const now = String(Date.now() / 1000);
    const got = await promApi('query', {
      query: `last_over_time(k6_llm_ttft_p95{testid="${runId}", cell="${cell}"}[5m])`, time: now,
    });
    expect(lastValue(got)).toBeCloseTo(p95 / 1000, 6);
    const tokensQuery = `sum(max_over_time(k6_llm_output_tokens_total{testid="${runId}", cell="${cell}"}[5m]))`;
    const gotTokens = await promApi('query', { query: tokensQuery, time: now });
    expect(lastValue(gotTokens)).toBe(tokens);
    // The dashboard's capacity table, as Grafana asks for it, states the report's capacity of the search.
    const report = JSON.parse(readFileSync(path.join(dir, runId, 'report.json'), 'utf8')) as {
      useCases: { useCase: { id: string }; result: { estimate: number } }[];
    };
    const stated = report.useCases.find((u) => u.useCase.id === 'code_completion')!.result.estimate;
    const board = readDashboard();
    const table = allPanels(board).find((p) => BENCH_SEARCH_PANEL.test(p.title))!;
    const vars = { testid: runId };
    const w = { start: Date.now() / 1000 - 300, end: Date.now() / 1000 };
    const capacity = await runTarget(table.targets![0]!, vars, w);
    expect(capacity.result.map((s) => [s.metric.use_case, s.metric.limit])).toEqual([['code_completion', 'none']]);
    expect(finiteValues(capacity).at(-1)).toBe(stated);
  }, 240_000);
});
