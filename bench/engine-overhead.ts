// Benchmarks the client, a stock k6 running the suite's own sweep bundle with the measuring agent beside it, against
// the simulator's ground truth. Runs in Node. It measures timing error, client CPU per token and memory.
//
// The simulator (fixed timing: TTFT 50 ms, ITL 10 ms = 100 tok/s or 33.3 ms = 30 tok/s per stream,
// --ground-truth: when it wrote each token) is pinned to core 0, and the client, k6 and the agent, to core 1
// (taskset; nice -10 when allowed). At each speed and number of streams N, dist/sweep.js runs one cell of N
// users (3 rounds up to 16 users, else 1; --rounds sets it) on the default path (the agent interprets the stream
// and answers with the record; no event reaches JavaScript) and on the events path (EVENT_CALLBACK=1: every
// event also comes back with the record, and the script decodes each chunk, as a custom script would).
// From the run's CSV (llm_itl, llm_ttft) and the simulator's ground truth:
//   server tok/s per stream  what the simulator achieved (tokens - 1 over first to last write, mean);
//   read together            share of ITL samples under 1 ms, client against server (the server's own
//                            share is the gaps it wrote under 1 ms apart): a token read in the same
//                            read as the one before shares its time;
//   ITL p99                  of every token gap, client against server;
//   TTFT error               client TTFT mean minus server TTFT mean (first token write - arrival);
//   CPU per token            utime+stime of k6 and the agent together (/proc, every 100 ms) over the streaming
//                            window the ground truth gives, per token received (also each apart);
//   peak RSS                 VmHWM of k6 plus VmHWM of the agent.
// `--memory` adds peak RSS at 256 streams x 4,096 tokens on the default path.
// Usage: npm run bench:engine-overhead [-- --levels 1,16,32,64,256,512,1024 --speeds 100,30 --tokens 300
//        --paths default,events --rounds 3 --ttft-ms 50 --k6-nice 0 --memory --no-build]
// --k6-nice N runs k6 N nice levels below the agent, so the agent's reads preempt k6 on their shared core.
// The sweep's own shape (issue 30): -- --levels 1,8,32,128 --speeds 66.667 --tokens 128 --rounds 4 --ttft-ms 60
//        --paths default
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Papa from 'papaparse';
import { METRICS } from '../lib/metrics';
import { startAgent, type AgentProcess } from '../orchestrator/agent-process';
import { clearGroundTruth, fetchGroundTruth, startSimChild } from '../sim/child';
import { prepareClient } from './client-engine';
import { cpuAt, NICE, SAMPLE_MS, sampleProcess, type ProcSample } from './proc-sample';

const REPO = resolve(import.meta.dirname, '..');
const BUNDLE = join(REPO, 'dist/sweep.js');
const PATHS = ['default', 'events'] as const;
type PathName = (typeof PATHS)[number];
/** A read under this gap means the token was read with the one before (one read, one receive time). */
const TOGETHER_MS = 1;

export interface Args {
  levels: number[];
  /** Tokens per second offered per stream. */
  speeds: number[];
  tokens: number;
  paths: PathName[];
  /** Context length of the prompts (approximate lengths: the simulator's fixed timing ignores them). */
  context: number;
  memory: boolean;
  build: boolean;
  /** Rounds per cell; null: 3 up to 16 streams, else 1. */
  rounds: number | null;
  ttftMs: number;
  /** > 0: users start this far apart (bench/k6/staggered.js) instead of all at once (the sweep's cell). */
  staggerMs: number;
  /** k6's nice value above the agent's: > 0 lets the agent's reads preempt k6's sample pushes on a shared core. */
  k6Nice: number;
}

export function parseArgs(argv: readonly string[]): Args {
  const args: Args = {
    levels: [1, 16, 32, 64, 256, 512, 1024], speeds: [100, 30], tokens: 300, paths: [...PATHS], context: 1024,
    memory: false, build: true, rounds: null, ttftMs: 50, staggerMs: 0, k6Nice: 0,
  };
  const usage = '(use --levels 1,16,64 --speeds 100,30 --tokens 300 --paths default,events --context 1024 ' +
    '--rounds 3 --ttft-ms 50 --stagger-ms 0 --k6-nice 0 --memory --no-build)';
  const list = (s: string | undefined): number[] => (s ?? '').split(',').map(Number);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--levels') args.levels = list(argv[++i]);
    else if (a === '--speeds') args.speeds = list(argv[++i]);
    else if (a === '--tokens') args.tokens = Number(argv[++i]);
    else if (a === '--context') args.context = Number(argv[++i]);
    else if (a === '--paths') {
      const names = (argv[++i] ?? '').split(',').filter((s) => s !== '');
      for (const n of names)
        if (!(PATHS as readonly string[]).includes(n)) throw new Error(`--paths: unknown path ${n} ${usage}`);
      args.paths = names as PathName[];
    } else if (a === '--memory') args.memory = true;
    else if (a === '--no-build') args.build = false;
    else if (a === '--rounds') args.rounds = Number(argv[++i]);
    else if (a === '--ttft-ms') args.ttftMs = Number(argv[++i]);
    else if (a === '--stagger-ms') args.staggerMs = Number(argv[++i]);
    else if (a === '--k6-nice') args.k6Nice = Number(argv[++i]);
    else throw new Error(`unknown argument ${a} ${usage}`);
  }
  if (args.levels.some((n) => !Number.isInteger(n) || n < 1))
    throw new Error('--levels: positive integers, comma-separated');
  if (args.speeds.some((s) => !Number.isFinite(s) || s < 1 || s > 1000))
    throw new Error('--speeds: tokens per second from 1 to 1000, comma-separated');
  if (!Number.isInteger(args.tokens) || args.tokens < 10) throw new Error('--tokens: an integer >= 10');
  if (!Number.isInteger(args.context) || args.context < 16) throw new Error('--context: an integer >= 16');
  if (args.paths.length === 0) throw new Error(`--paths: at least one ${usage}`);
  if (args.rounds !== null && (!Number.isInteger(args.rounds) || args.rounds < 1))
    throw new Error('--rounds: an integer >= 1');
  if (!Number.isFinite(args.ttftMs) || args.ttftMs < 1) throw new Error('--ttft-ms: a number of ms >= 1');
  if (!Number.isFinite(args.staggerMs) || args.staggerMs < 0) throw new Error('--stagger-ms: a number of ms >= 0');
  if (!Number.isInteger(args.k6Nice) || args.k6Nice < 0 || args.k6Nice > 19) throw new Error('--k6-nice: 0 to 19');
  return args;
}

// ---------------------------------------------------------------------------------------------
// Measurement maths (pure)

export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const s = Float64Array.from(values).sort();
  const i = q * (s.length - 1);
  const lo = Math.floor(i);
  const hi = Math.ceil(i);
  return s[lo]! + (s[hi]! - s[lo]!) * (i - lo);
}

export function mean(values: readonly number[]): number {
  return values.length === 0 ? NaN : values.reduce((a, b) => a + b, 0) / values.length;
}

export interface TruthRecord {
  requestId: string;
  arrivalEpochMs: number;
  tokenEpochMs: number[];
}

/** What the server did: every gap between token writes, each stream's TTFT and rate, and the streaming window. */
export function serverSide(truth: readonly TruthRecord[]): {
  gaps: number[]; ttfts: number[]; ratePerStream: number; from: number; to: number; tokens: number;
} {
  const gaps: number[] = [];
  const ttfts: number[] = [];
  const rates: number[] = [];
  let from = Infinity;
  let to = -Infinity;
  let tokens = 0;
  for (const t of truth) {
    const w = t.tokenEpochMs;
    tokens += w.length;
    from = Math.min(from, t.arrivalEpochMs);
    if (w.length === 0) continue;
    to = Math.max(to, w[w.length - 1]!);
    ttfts.push(w[0]! - t.arrivalEpochMs);
    for (let i = 1; i < w.length; i++) gaps.push(w[i]! - w[i - 1]!);
    if (w.length > 1 && w[w.length - 1]! > w[0]!) rates.push(((w.length - 1) * 1000) / (w[w.length - 1]! - w[0]!));
  }
  return { gaps, ttfts, ratePerStream: mean(rates), from, to, tokens };
}

export function shareBelow(values: readonly number[], limit: number): number {
  let n = 0;
  for (const v of values) if (v < limit) n++;
  return values.length === 0 ? NaN : n / values.length;
}

// ---------------------------------------------------------------------------------------------
// One k6 run

/** k6's nice prefix: the agent's (NICE, or 0) plus k6Nice. */
function k6NicePrefix(k6Nice: number): string[] {
  const base = NICE.length > 0 ? -10 : 0;
  return base + k6Nice === 0 ? [] : ['nice', '-n', String(base + k6Nice)];
}

interface ClientRun {
  itl: number[];
  ttft: number[];
  tokens: number;
  failed: number;
  samples: ProcSample[];
  peakRssKb: number;
  agentSamples: ProcSample[];
  agentPeakRssKb: number;
  code: number | null;
  stderrTail: string;
}

/** The client of a run: the k6 binary and the agent beside it, both on core 1. */
interface Client {
  readonly k6: string;
  /** The nice prefix k6 runs under. */
  readonly k6Nice: readonly string[];
  readonly agent: AgentProcess;
  readonly ttftMs: number;
}

/** One cell: n users, their rounds, their tokens per request, the path, how far apart the users start. */
interface CellShape {
  readonly n: number;
  readonly rounds: number;
  readonly tokens: number;
  readonly context: number;
  readonly path: PathName;
  readonly staggerMs: number;
}

const STAGGERED = join(REPO, 'bench/k6/staggered.js');

/** Runs dist/sweep.js on k6 (core 1) with one cell; returns what its CSV says and what /proc saw of k6. */
function runK6(base: string, client: Client, cell: CellShape): Promise<ClientRun> {
  const { n, rounds, tokens, context, path } = cell;
  const dir = mkdtempSync(join(tmpdir(), 'engine-overhead-'));
  const plan = join(dir, 'plan.json');
  const streamSeconds = (client.ttftMs + tokens * 40) / 1000;
  writeFileSync(
    plan,
    JSON.stringify({
      target: { metricsUrl: null }, sweep: { contexts: [context], concurrencies: [n], rounds, outputTokens: tokens },
      schedule: { cellSeconds: Math.ceil(rounds * streamSeconds * 3 + 60) },
    }),
  );
  const csv = join(dir, 'samples.csv');
  const env = {
    PLAN: plan, BASE_URL: base, MODEL: 'Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8', RESULTS_DIR: dir,
    LLM_AGENT: client.agent.url, EVENT_CALLBACK: path === 'events' ? '1' : '0',
  };
  const staggered = cell.staggerMs > 0
    ? { USERS: String(n), ROUNDS: String(rounds), TOKENS: String(tokens), STAGGER_MS: String(cell.staggerMs) }
    : {};
  const args = [
    'run', '--quiet', '--no-usage-report',
    ...Object.entries({ ...env, ...staggered }).flatMap(([k, v]) => ['-e', `${k}=${v}`]),
    '--out', `csv=fileName=${csv},timeFormat=unix_milli`, cell.staggerMs > 0 ? STAGGERED : BUNDLE,
  ];
  return new Promise((res) => {
    const child = spawn('taskset', ['-c', '1', ...client.k6Nice, client.k6, ...args], {
      stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, K6_NO_USAGE_REPORT: 'true' },
    });
    let tail = '';
    child.stderr!.on('data', (d: Buffer) => (tail = (tail + d.toString()).slice(-2000)));
    // taskset and nice exec: the spawned pid is k6's own.
    const sampler = child.pid !== undefined ? sampleProcess(child.pid) : null;
    const agentSampler = sampleProcess(client.agent.pid);
    child.on('close', (code) => {
      const s = sampler?.stop() ?? { samples: [], peakRssKb: 0 };
      const a = agentSampler.stop();
      const out: ClientRun = {
        itl: [], ttft: [], tokens: 0, failed: 0, samples: s.samples, peakRssKb: s.peakRssKb,
        agentSamples: a.samples, agentPeakRssKb: a.peakRssKb, code,
        stderrTail: tail.trim().split('\n').slice(-2).join(' '),
      };
      try {
        const rows = Papa.parse<string[]>(readFileSync(csv, 'utf8'), { skipEmptyLines: true }).data;
        for (const r of rows) {
          const v = Number(r[2]);
          if (r[0] === METRICS.itl.name) out.itl.push(v);
          else if (r[0] === METRICS.ttft.name) out.ttft.push(v);
          else if (r[0] === METRICS.outputTokens.name) out.tokens += v;
          else if (r[0] === METRICS.errors.name) out.failed += v;
        }
      } catch {
        // No CSV: the row says why from k6's exit code and stderr.
      }
      res(out);
    });
  });
}

export interface Row {
  speed: number;
  streams: number;
  path: PathName;
  tokens: number;
  error?: string;
  serverRate?: number;
  togetherClient?: number;
  togetherServer?: number;
  itlP99Client?: number;
  itlP99Server?: number;
  ttftError?: number;
  cpuUsPerToken?: number;
  /** The agent's and k6's parts of cpuUsPerToken. */
  agentCpuUsPerToken?: number;
  k6CpuUsPerToken?: number;
  peakRssMb?: number;
  k6PeakRssMb?: number;
  agentPeakRssMb?: number;
}

interface Measured {
  readonly base: string;
  readonly k6: string;
  readonly k6Nice: readonly string[];
  readonly speed: number;
  readonly ttftMs: number;
}

/** One row: a fresh agent (its peak RSS is this row's), k6, the ground truth. */
async function measure(m: Measured, cell: Omit<CellShape, 'rounds'> & { rounds: number | null }): Promise<Row> {
  const rounds = cell.rounds ?? (cell.n <= 16 ? 3 : 1);
  const row: Row = { speed: m.speed, streams: cell.n, path: cell.path, tokens: cell.n * rounds * cell.tokens };
  await clearGroundTruth(m.base);
  const agent = await startAgent({ prefix: ['taskset', '-c', '1', ...NICE] });
  let run: ClientRun;
  try {
    run = await runK6(m.base, { k6: m.k6, k6Nice: m.k6Nice, agent, ttftMs: m.ttftMs }, { ...cell, rounds });
  } finally {
    await agent.stop();
  }
  const server = serverSide(await fetchGroundTruth(m.base));
  if (run.itl.length === 0) return { ...row, error: `k6 exit ${run.code}, no ITL samples: ${run.stderrTail}` };
  const window = (samples: readonly ProcSample[]): number =>
    cpuAt(samples, server.to + 2 * SAMPLE_MS) - cpuAt(samples, server.from);
  const k6CpuMs = window(run.samples);
  const agentCpuMs = window(run.agentSamples);
  const cpuMs = k6CpuMs + agentCpuMs;
  const perToken = (ms: number): number => (ms * 1000) / Math.max(1, run.tokens);
  const problems = [
    run.code !== 0 ? `k6 exit ${run.code}` : '', run.failed > 0 ? `${run.failed} requests failed` : '',
  ].filter((s) => s !== '');
  return {
    ...row,
    ...(problems.length > 0 ? { error: problems.join('; ') } : {}),
    serverRate: server.ratePerStream,
    togetherClient: shareBelow(run.itl, TOGETHER_MS),
    togetherServer: shareBelow(server.gaps, TOGETHER_MS),
    itlP99Client: quantile(run.itl, 0.99),
    itlP99Server: quantile(server.gaps, 0.99),
    ttftError: mean(run.ttft) - mean(server.ttfts),
    cpuUsPerToken: perToken(cpuMs),
    agentCpuUsPerToken: perToken(agentCpuMs),
    k6CpuUsPerToken: perToken(k6CpuMs),
    peakRssMb: (run.peakRssKb + run.agentPeakRssKb) / 1024,
    k6PeakRssMb: run.peakRssKb / 1024,
    agentPeakRssMb: run.agentPeakRssKb / 1024,
  };
}

// ---------------------------------------------------------------------------------------------
// Output

const f = (v: number | undefined, d = 2): string => (v !== undefined && Number.isFinite(v) ? v.toFixed(d) : 'n/a');
const pct = (v: number | undefined): string =>
  v !== undefined && Number.isFinite(v) ? `${(v * 100).toFixed(1)}%` : 'n/a';

export function renderTable(rows: readonly Row[]): string {
  const lines = [
    '| tok/s offered | streams | path | server tok/s per stream | read together client / server | ITL p99 client / ' +
    'server (ms) | TTFT mean error (ms) | CPU per token, k6 + agent (µs) | peak RSS, k6 + agent (MB) | note |',
    '|---:|---:|---|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${f(r.speed, r.speed % 1 === 0 ? 0 : 1)} | ${r.streams} | ${r.path} | ${f(r.serverRate)} | ` +
      `${pct(r.togetherClient)} / ${pct(r.togetherServer)} | ${f(r.itlP99Client)} / ${f(r.itlP99Server)} | ` +
      `${f(r.ttftError)} | ${f(r.cpuUsPerToken, 1)} (${f(r.k6CpuUsPerToken, 1)} + ${f(r.agentCpuUsPerToken, 1)}) | ` +
      `${f(r.peakRssMb, 0)} (${f(r.k6PeakRssMb, 0)} + ${f(r.agentPeakRssMb, 0)}) | ` +
      `${(r.error ?? '').replace(/\|/g, '\\|')} |`,
    );
  }
  return lines.join('\n');
}

/** The default path's CPU per token against the events path's, per speed and level run on both. */
export function renderRatios(rows: readonly Row[]): string {
  const out: string[] = [];
  for (const d of rows.filter((r) => r.path === 'default')) {
    const c = rows.find((r) => r.path === 'events' && r.speed === d.speed && r.streams === d.streams);
    if (c?.cpuUsPerToken && d.cpuUsPerToken)
      out.push(
        `${d.streams} x ${d.speed} tok/s: events path ${f(c.cpuUsPerToken / d.cpuUsPerToken)}x ` +
          "the default path's CPU per token",
      );
  }
  return out.join('\n');
}

function conditions(args: Args, version: string, loadStart: number[]): string {
  const la = (v: number[]): string => v.map((x) => x.toFixed(1)).join(' / ');
  const rounds = args.rounds === null ? '3 rounds up to 16 streams, else 1' : `${args.rounds} rounds`;
  const script = args.staggerMs > 0
    ? `bench/k6/staggered.js (users start ${args.staggerMs} ms apart, then back to back)`
    : 'dist/sweep.js (a cell\'s users start at once)';
  return [
    `${new Date().toISOString()}; ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}); simulator pinned ` +
    'to core 0, the client (k6 and the agent) to core 1' +
    `${NICE.length ? ', all at nice -10' : ' (nice -10 not permitted)'}` +
    `; load average ${la(loadStart)} at the start, ${la(loadavg())} at the end.`,
    `${version}, stock; ${script}, one cell per row, ${args.tokens} tokens per stream (${rounds}), fixed TTFT ` +
    `${args.ttftMs} ms; default path = the agent interprets, the script gets the record; events = every event also ` +
    `comes back with the record and the script decodes each (EVENT_CALLBACK=1).`,
  ].join('\n');
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (spawnSync('taskset', ['-c', '0', 'true']).status !== 0)
    throw new Error('taskset is needed to pin the simulator and the client to separate cores');
  const engine = await prepareClient('engine-overhead', args.build);
  const [k6, version] = [engine.command[0]!, engine.version];
  const loadStart = loadavg();
  const rows: Row[] = [];
  let memory = '';
  for (const speed of args.speeds) {
    const sim = await startSimChild(
      ['--fixed-ttft-ms', String(args.ttftMs), '--fixed-itl-ms', String(1000 / speed), '--ground-truth'],
      ['taskset', '-c', '0', ...NICE],
    );
    const m: Measured = { base: `${sim.base}/v1`, k6, k6Nice: k6NicePrefix(args.k6Nice), speed, ttftMs: args.ttftMs };
    const cell = { tokens: args.tokens, context: args.context, rounds: args.rounds, staggerMs: args.staggerMs };
    try {
      for (const n of args.levels) {
        for (const path of args.paths) {
          process.stderr.write(`engine-overhead: ${speed} tok/s, ${n} streams, ${path} path...\n`);
          rows.push(await measure(m, { ...cell, n, path }));
        }
      }
      if (args.memory && speed === args.speeds[0]) {
        process.stderr.write('engine-overhead: memory, 256 streams x 4096 tokens...\n');
        const r = await measure(m, { ...cell, n: 256, tokens: 4096, rounds: 1, path: 'default', staggerMs: 0 });
        memory = `Memory: 256 streams x 4,096 tokens at ${speed} tok/s, default path: peak RSS k6 + agent ` +
          `${f(r.peakRssMb, 0)} MB (${f(r.k6PeakRssMb, 0)} + ${f(r.agentPeakRssMb, 0)}), ` +
          `CPU ${f(r.cpuUsPerToken, 1)} µs per token${r.error ? ` (${r.error})` : ''}.`;
      }
    } finally {
      await sim.stop();
    }
  }
  const text = [
    conditions(args, version, loadStart), '', renderTable(rows), '', renderRatios(rows), memory ? `\n${memory}` : '',
  ].join('\n');
  process.stdout.write(`${text}\n`);
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  main().catch((e: unknown) => {
    process.stderr.write(`engine-overhead: ${(e as Error).message}\n`);
    process.exit(1);
  });
}

export { main };
