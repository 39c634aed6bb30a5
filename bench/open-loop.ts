// Benchmarks the rate script (dist/rate.js: open-loop arrivals, lib/k6/open-loop.ts) on a stock k6 against the
// simulator's ground truth: issue 32's targets. Runs in Node.
//
// The simulator runs in its own process (fixed timing: TTFT 20 ms, ITL 5 ms, --ground-truth) pinned to the first core,
// k6 and the measuring agent to the last (nothing pinned on a one-core machine, which the output says). Each rate is
// one k6 run of one rate cell (1K-token prompts, 64 output tokens, Poisson arrivals, seeded), with a fresh agent:
//   mean rate           from the server's arrival stamps: 1 / mean gap = (n - 1) / (last - first); target within 1%
//                       of the offered rate. "intended" is the same statistic of the seeded schedule itself
//                       (lib/arrivals.ts), so a miss shows whether the sender or the draw made it;
//   CV of the gaps      sample SD / mean of the server's inter-arrival gaps; target within 5% of 1.0 (Poisson);
//   schedule lag        llm_schedule_lag p50 / p99 / max from k6's summary; target p99 <= 5 ms;
//   achieved rate       llm_achieved_rate (k6's summary); sent = llm_schedule_lag's count against the schedule's
//                       requests (target: none dropped), and the arrivals the server saw.
// Then coordinated omission: 10 requests/s for 30 s, and 15 s after k6 starts the cell (its first arrival at the
// server, less that request's intended offset) this process posts a 2 s server-wide stall (POST /debug/stall). TTFT
// from the actual send (llm_ttft) and from the intended send (llm_ttft_intended) must both show the stall in their
// p99 (an open-loop sender keeps sending, so neither hides it), with no request dropped.
// k6 runs with the bench's arguments (orchestrator/engine.ts runArguments: CSV output and summary export); --no-csv
// leaves the CSV out, whose writer shares the client's core with the sending VU.
// Usage: npm run bench:open-loop [-- --rates 5,20,50 --seconds 60 --co-seconds 30 --stall-ms 2000 --seed 1
//        --parts rates,stall,trace --trace-rows 2000 --no-csv --no-build]
// Then the trace part (bench/open-loop-trace.ts): a synthetic Mooncake trace replayed at speed 1 by dist/trace.js.

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Command } from 'commander';
import { arrivalTimesMs } from '../lib/arrivals';
import { METRICS } from '../lib/metrics';
import { drawnArrivals, resolvePlan, type Cell, type PlanInput } from '../lib/plan';
import { startAgent } from '../orchestrator/agent-process';
import { bundlePath, runArguments } from '../orchestrator/engine';
import { clearGroundTruth, corePlan, fetchGroundTruth, startSimChild, type CorePlan } from '../sim/child';
import { prepareClient } from './client-engine';
import { renderTraceTable, runTracePart, traceFigures } from './open-loop-trace';
import {
  STALL_RATE, interArrivalGapsMs, meanRatePerSecond, coefficientOfVariation, percentileOf, countWithin, type Summary,
  summaryValue, type RateRow, type Spread, type StallRow, renderRateTable, renderStallTable,
} from './open-loop-figures';

const MODEL = 'Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8';
const TTFT_MS = 20;
const ITL_MS = 5;
const CONTEXT_TOKENS = 1024;
const OUTPUT_TOKENS = 64;
/** How often the stall's timer looks for the cell's first arrival, ms. */
const POLL_MS = 20;
const PARTS = ['rates', 'stall', 'trace'] as const;
type Part = (typeof PARTS)[number];

export interface Args {
  rates: number[];
  seconds: number;
  coSeconds: number;
  stallMs: number;
  seed: number;
  parts: Part[];
  build: boolean;
  /** k6's CSV output, as the bench writes it (runArguments); --no-csv leaves it out. */
  csv: boolean;
  /** Rows of the trace part's synthetic trace. */
  traceRows: number;
}

const numberList = (s: string): number[] => s.split(',').filter((x) => x !== '').map(Number);

/** Commander's view of the flags, before they are checked. */
type Flags = Record<'rates' | 'seconds' | 'coSeconds' | 'stallMs' | 'seed' | 'parts' | 'traceRows', string> &
  Record<'build' | 'csv', boolean>;

/** The command line (after `--`), checked; errors name the flag. */
export function parseArgs(argv: readonly string[]): Args {
  const o = new Command('bench:open-loop')
    .exitOverride()
    .option('--rates <list>', 'Poisson rates, requests/s', '5,20,50')
    .option('--seconds <n>', 'seconds per rate', '60')
    .option('--co-seconds <n>', 'seconds of the coordinated-omission run (stall at its middle)', '30')
    .option('--stall-ms <n>', 'length of the server-wide stall', '2000')
    .option('--seed <n>', 'seed of the arrival schedules', '1')
    .option('--parts <list>', `any of ${PARTS.join(', ')}`, PARTS.join(','))
    .option('--trace-rows <n>', 'rows of the trace part\'s synthetic Mooncake trace (about 20 requests/s)', '2000')
    .option('--no-build', 'use dist/ and the agent as they are')
    .option('--no-csv', "leave out k6's CSV output (the bench writes it)")
    .parse([...argv], { from: 'user' })
    .opts<Flags>();
  const args: Args = {
    rates: numberList(o.rates), seconds: Number(o.seconds), coSeconds: Number(o.coSeconds), stallMs: Number(o.stallMs),
    seed: Number(o.seed), parts: o.parts.split(',').filter((p) => p !== '') as Part[], build: o.build,
    csv: o.csv, traceRows: Number(o.traceRows),
  };
  if (!Number.isInteger(args.traceRows) || args.traceRows < 2) throw new Error('--trace-rows: a whole number >= 2');
  if (args.rates.length === 0 || args.rates.some((r) => !(r > 0 && r <= 1000)))
    throw new Error('--rates: requests per second above 0 and up to 1000, comma-separated');
  if (!Number.isInteger(args.seconds) || args.seconds < 2) throw new Error('--seconds: a whole number >= 2');
  if (!Number.isInteger(args.coSeconds) || args.coSeconds < 4) throw new Error('--co-seconds: a whole number >= 4');
  if (!(args.stallMs > 0 && args.stallMs < (args.coSeconds * 1000) / 2))
    throw new Error('--stall-ms: above 0 and shorter than half of --co-seconds');
  if (!Number.isInteger(args.seed) || args.seed < 0) throw new Error('--seed: a whole number >= 0');
  const unknown = args.parts.filter((p) => !(PARTS as readonly string[]).includes(p));
  if (args.parts.length === 0 || unknown.length > 0) throw new Error(`--parts: any of ${PARTS.join(', ')}`);
  return args;
}

// ---------------------------------------------------------------------------------------------
// One k6 run of one rate cell

interface TruthRecord {
  readonly arrivalEpochMs: number;
  readonly tokenEpochMs: readonly number[];
}

interface StallWindow {
  readonly startEpochMs: number;
  readonly endEpochMs: number;
  /** The cell's start as the server saw it: its first arrival less that request's intended offset. */
  readonly cellStartEpochMs: number;
}

/** The simulator's base URL (no /v1), the k6 binary, the pinning. */
interface Rig {
  readonly base: string;
  readonly k6: string;
  readonly cores: CorePlan;
  readonly nice: readonly string[];
  readonly csv: boolean;
}

interface K6Exit {
  readonly code: number | null;
  /** The last lines of its stderr. */
  readonly tail: string;
}

interface CellRun {
  readonly cell: Cell;
  readonly summary: Summary | null;
  readonly truth: TruthRecord[];
  readonly code: number | null;
  readonly stderrTail: string;
  readonly stall: StallWindow | null;
  /** Why a stall that was asked for was not posted; empty otherwise. */
  readonly stallProblem: string;
}

const epochNow = (): number => performance.timeOrigin + performance.now();

/** One rate cell: the use case (1K in, 64 out) at `rate` requests/s, Poisson, for `seconds`. */
function planInput(rate: number, seconds: number, seed: number): PlanInput {
  return {
    target: { metricsUrl: null },
    useCases: [{
      id: 'u', contextTokens: CONTEXT_TOKENS, outputTokens: OUTPUT_TOKENS,
      limits: [{ metric: 'ttft', operator: '<', value: 2000 }],
    }],
    // The sender is measured, every request of its schedule: no warm-up left out.
    rate: { useCases: ['u'], rates: [rate], durationSeconds: seconds, arrival: 'poisson', seed, warmupSeconds: 0 },
  };
}

/**
 * Posts the stall `atMs` after the cell's start, which is the server's first arrival less the first request's
 * intended offset (k6's start-up time is unknown from here); null when k6 ended before any request arrived.
 */
async function stallAt(
  base: string, firstOffsetMs: number, atMs: number, stallMs: number, ended: () => boolean,
): Promise<StallWindow | null> {
  let first: number | null = null;
  while (first === null && !ended()) {
    const records = await fetchGroundTruth(base);
    if (records.length > 0) first = Math.min(...records.map((r) => r.arrivalEpochMs));
    else await delay(POLL_MS);
  }
  if (first === null) return null;
  const cellStartEpochMs = first - firstOffsetMs;
  await delay(Math.max(0, cellStartEpochMs + atMs - epochNow()));
  const res = await fetch(`${base}/debug/stall?ms=${stallMs}`, { method: 'POST' });
  if (!res.ok) throw new Error(`POST /debug/stall answered ${res.status}: ${await res.text()}`);
  return { ...((await res.json()) as Omit<StallWindow, 'cellStartEpochMs'>), cellStartEpochMs };
}

/** Runs an entry script on k6 with the client's pinning; resolves to its exit code and the end of its stderr. */
function runK6(
  rig: Rig, dir: string, planFile: string, agentUrl: string, script: 'rate' | 'trace' = 'rate',
  extraEnv: Record<string, string> = {},
): Promise<K6Exit> {
  const env = { PLAN: planFile, RESULTS_DIR: dir, LLM_AGENT: agentUrl, BASE_URL: `${rig.base}/v1`, MODEL, ...extraEnv };
  const all = runArguments({ bundle: bundlePath(script), partDir: dir, env, tags: {} });
  const out = all.indexOf('--out');
  const args = rig.csv || out < 0 ? all : [...all.slice(0, out), ...all.slice(out + 2)];
  const command = [...rig.cores.client, ...rig.nice, rig.k6, ...args];
  const child = spawn(command[0]!, command.slice(1), {
    stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, K6_NO_USAGE_REPORT: 'true' },
  });
  let tail = '';
  child.stderr!.on('data', (d: Buffer) => (tail = (tail + d.toString()).slice(-2000)));
  return new Promise((res) => child.on('close', (code) => {
    res({ code, tail: tail.trim().split('\n').slice(-2).join(' ') });
  }));
}

/** A rate cell to run: its offered rate, length and seed, and the stall to post at its middle (null: none). */
interface CellSpec {
  readonly rate: number;
  readonly seconds: number;
  readonly seed: number;
  readonly stallMs: number | null;
}

/** One rate cell on a fresh agent and a cleared ground truth; with stallMs, the stall at the cell's middle. */
async function runCell(rig: Rig, spec: CellSpec): Promise<CellRun> {
  const { rate, seconds, seed, stallMs } = spec;
  const dir = mkdtempSync(join(tmpdir(), 'open-loop-'));
  try {
    const input = planInput(rate, seconds, seed);
    const cell = resolvePlan(input, 'rate').cells[0]!;
    // handleSummary writes the resolved plan as plan.json: the input has a name of its own.
    const planFile = join(dir, 'plan-input.json');
    writeFileSync(planFile, JSON.stringify(input));
    await clearGroundTruth(rig.base);
    const agent = await startAgent({ prefix: [...rig.cores.client, ...rig.nice] });
    let k6: K6Exit;
    let stall: StallWindow | null = null;
    let stallProblem = '';
    try {
      let ended = false;
      const running = runK6(rig, dir, planFile, agent.url).finally(() => (ended = true));
      const firstOffsetMs = arrivalTimesMs(drawnArrivals(cell.arrivals!))[0]!;
      const middleMs = (seconds * 1000) / 2;
      // A failed stall is the row's note: k6 runs on to its end either way.
      const stalled = stallMs === null
        ? null
        : stallAt(rig.base, firstOffsetMs, middleMs, stallMs, () => ended).catch((e: unknown) => {
          stallProblem = (e as Error).message;
          return null;
        });
      [k6, stall] = await Promise.all([running, stalled]);
      if (stallMs !== null && !stall && !stallProblem) stallProblem = 'the stall was not posted (no request arrived)';
    } finally {
      await agent.stop();
    }
    let summary: Summary | null = null;
    try {
      summary = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8')) as Summary;
    } catch {
      // No summary: the row says why from k6's exit code and stderr.
    }
    return {
      cell, summary, truth: await fetchGroundTruth(rig.base), code: k6.code, stderrTail: k6.tail, stall, stallProblem,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------------------------------------
// Rows

/** k6's exit code, failed requests and a missing summary, as a note; empty when all is well. */
function problemOf(run: CellRun, failed: number): string {
  return [
    run.code !== 0 ? `k6 exit ${run.code}: ${run.stderrTail}` : '', failed > 0 ? `${failed} requests failed` : '',
    run.summary === null ? 'no summary.json' : '',
  ].filter((s) => s !== '').join('; ');
}

function rateRow(run: CellRun, seconds: number): RateRow {
  const id = run.cell.id;
  const intended = arrivalTimesMs(drawnArrivals(run.cell.arrivals!));
  const arrivals = run.truth.map((r) => r.arrivalEpochMs);
  const stat = (metric: string, s: string): number => summaryValue(run.summary, metric, id, s);
  const failed = stat(METRICS.errors.name, 'count') || 0;
  return {
    targetRate: run.cell.arrivals!.ratePerSecond, seconds, scheduled: run.cell.arrivals!.requests,
    sent: stat(METRICS.scheduleLag.name, 'count'), arrived: arrivals.length,
    meanRate: meanRatePerSecond(arrivals), intendedMeanRate: meanRatePerSecond(intended),
    cv: coefficientOfVariation(interArrivalGapsMs(arrivals)),
    intendedCv: coefficientOfVariation(interArrivalGapsMs(intended)),
    lagP50Ms: stat(METRICS.scheduleLag.name, 'med'), lagP99Ms: stat(METRICS.scheduleLag.name, 'p(99)'),
    lagMaxMs: stat(METRICS.scheduleLag.name, 'max'), achievedRate: stat(METRICS.achievedRate.name, 'value'),
    failed, problem: problemOf(run, failed),
  };
}

function stallRow(run: CellRun, seconds: number): StallRow {
  const id = run.cell.id;
  const spread = (metric: string): Spread => ({
    p50: summaryValue(run.summary, metric, id, 'med'), p99: summaryValue(run.summary, metric, id, 'p(99)'),
    max: summaryValue(run.summary, metric, id, 'max'),
  });
  const server = run.truth.filter((r) => r.tokenEpochMs.length > 0).map((r) => r.tokenEpochMs[0]! - r.arrivalEpochMs);
  const w = run.stall;
  const failed = summaryValue(run.summary, METRICS.errors.name, id, 'count') || 0;
  return {
    seconds, stallMs: w ? w.endEpochMs - w.startEpochMs : NaN, scheduled: run.cell.arrivals!.requests,
    stallAtSeconds: w ? (w.startEpochMs - w.cellStartEpochMs) / 1000 : NaN,
    sent: summaryValue(run.summary, METRICS.scheduleLag.name, id, 'count'), arrived: run.truth.length,
    arrivedInStall: w ? countWithin(run.truth.map((r) => r.arrivalEpochMs), w.startEpochMs, w.endEpochMs) : NaN,
    ttft: spread(METRICS.ttft.name), ttftIntended: spread(METRICS.ttftIntended.name),
    serverTtft: { p50: percentileOf(server, 0.5), p99: percentileOf(server, 0.99), max: Math.max(...server) },
    problem: [problemOf(run, failed), run.stallProblem].filter((s) => s !== '').join('; '),
  };
}

function conditions(rig: Rig, version: string, loadStart: number[], args: Args): string {
  const la = (v: number[]): string => v.map((x) => x.toFixed(1)).join(' / ');
  const unpinned = rig.cores.sim.length > 0 ? ', this process (the stall\'s timer) unpinned' : '';
  const rateParts = args.parts.some((p) => p !== 'trace');
  return [
    `${new Date().toISOString()}; ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}); ` +
    `${rig.cores.note}${unpinned}` +
    `${rig.nice.length ? ', all at nice -10' : ' (nice -10 not permitted)'}; load average ${la(loadStart)} at the ` +
    `start, ${la(loadavg())} at the end.`,
    !rateParts ? `${version}, stock.` :
    `${version}, stock; dist/rate.js, one rate cell per k6 run with a fresh agent, ` +
    `${rig.csv ? 'CSV output on (as the bench runs it)' : 'no CSV output (--no-csv)'}; Poisson arrivals, ` +
    `seed ${args.seed}; ${CONTEXT_TOKENS}-token prompts (approximate lengths: fixed timing ignores them), ` +
    `${OUTPUT_TOKENS} output tokens; ` +
    `simulator with fixed timing (TTFT ${TTFT_MS} ms, ITL ${ITL_MS} ms) and --ground-truth.`,
  ].join('\n');
}

/**
 * The trace part on a simulator of its own: the default profile's performance model, whose prefix cache the trace's
 * shared blocks are meant to hit (fixed timing has none).
 */
async function tracePart(rig: Rig, args: Args): Promise<string> {
  process.stderr.write(`open-loop: a ${args.traceRows}-row Mooncake trace at speed 1...\n`);
  const sim = await startSimChild(['--ground-truth'], [...rig.cores.sim, ...rig.nice]);
  try {
    const traceRig = { ...rig, base: sim.base };
    const run = await runTracePart(
      sim.base, (dir, planFile, agentUrl, env) => runK6(traceRig, dir, planFile, agentUrl, 'trace', env),
      [...rig.cores.client, ...rig.nice], args.traceRows, args.seed,
    );
    const summary = run.summaryText === null ? null : (JSON.parse(run.summaryText) as Summary);
    const stat = (metric: string, s: string): number => summaryValue(summary, metric, 'trace_s1', s);
    const figures = traceFigures(run.text, run.truth, stat, percentileOf);
    const problem = [
      run.code !== 0 ? `k6 exit ${run.code}: ${run.tail}` : '', summary === null ? 'no summary.json' : '',
    ].filter((x) => x !== '').join('; ');
    return `Trace replay: ${args.traceRows} synthetic Mooncake rows (about 20 requests/s, seed ${args.seed}), ` +
      'speed 1, ' +
      `simulator default profile (performance model, prefix cache on).\n\n${renderTraceTable(figures, problem)}`;
  } finally {
    await sim.stop();
  }
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const engine = await prepareClient('open-loop', args.build);
  const [k6, version] = [engine.command[0]!, engine.version];
  const cores = corePlan(cpus().length, spawnSync('taskset', ['-c', '0', 'true']).status === 0);
  // Raised priority keeps other work on the machine from preempting the measured processes, when allowed.
  const niceOk = spawnSync('nice', ['-n', '-10', 'true'], { encoding: 'utf8' }).stderr === '';
  const nice = niceOk ? ['nice', '-n', '-10'] : [];
  const loadStart = loadavg();
  const sim = await startSimChild(
    ['--fixed-ttft-ms', String(TTFT_MS), '--fixed-itl-ms', String(ITL_MS), '--ground-truth'], [...cores.sim, ...nice],
  );
  const rig: Rig = { base: sim.base, k6, cores, nice, csv: args.csv };
  const out: string[] = [];
  try {
    const rows: RateRow[] = [];
    for (const rate of args.parts.includes('rates') ? args.rates : []) {
      process.stderr.write(`open-loop: ${rate} requests/s for ${args.seconds} s...\n`);
      const run = await runCell(rig, { rate, seconds: args.seconds, seed: args.seed, stallMs: null });
      rows.push(rateRow(run, args.seconds));
    }
    if (rows.length > 0) out.push('', renderRateTable(rows));
    if (args.parts.includes('stall')) {
      process.stderr.write(`open-loop: ${STALL_RATE} requests/s for ${args.coSeconds} s with a stall...\n`);
      const spec = { rate: STALL_RATE, seconds: args.coSeconds, seed: args.seed, stallMs: args.stallMs };
      const run = await runCell(rig, spec);
      out.push('', renderStallTable(stallRow(run, args.coSeconds)));
    }
  } finally {
    await sim.stop();
  }
  if (args.parts.includes('trace')) out.push('', await tracePart(rig, args));
  process.stdout.write(`${conditions(rig, version, loadStart, args)}\n${out.join('\n')}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  main().catch((e: unknown) => {
    process.stderr.write(`open-loop: ${(e as Error).message}\n`);
    process.exit(1);
  });
}
