// Benchmarks the project's k6 running the suite's own sweep bundle against the simulator's ground truth. Runs in Node.
// It measures timing error, client CPU per token and memory.
//
// The simulator (fixed timing: TTFT 50 ms, ITL 10 ms = 100 tok/s or 33.3 ms = 30 tok/s per stream,
// --ground-truth: when it wrote each token) is pinned to core 0 and k6 to core 1 (taskset; nice -10
// when allowed). At each speed and number of streams N, dist/sweep.js runs one cell of N users (3
// rounds up to 16 users, else 1) twice on the same k6 binary: on the default path (Go interprets the
// stream, no event reaches JavaScript) and on the per-event-callback path (EVENT_CALLBACK=1: every
// event is also handed to the script, which reads each decoded chunk, as a custom script would).
// From the run's CSV (llm_itl, llm_ttft) and the simulator's ground truth:
//   server tok/s per stream  what the simulator achieved (tokens - 1 over first to last write, mean);
//   read together            share of ITL samples under 1 ms, client against server (the server's own
//                            share is the gaps it wrote under 1 ms apart): a token read in the same
//                            read as the one before shares its time;
//   ITL p99                  of every token gap, client against server;
//   TTFT error               client TTFT mean minus server TTFT mean (first token write - arrival);
//   CPU per token            utime+stime of k6 (/proc, every 100 ms) over the streaming window the
//                            ground truth gives, per token received;
//   peak RSS                 VmHWM of k6.
// `--memory` adds peak RSS at 256 streams x 4,096 tokens on the default path.
// Usage: npm run bench:engine-overhead [-- --levels 1,16,32,64,256,512,1024 --speeds 100,30 --tokens 300
//        --paths default,callback --memory --no-build]
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Papa from 'papaparse';
import { METRICS } from '../lib/metrics';
import { startSimChild } from '../sim/child';

const REPO = resolve(import.meta.dirname, '..');
const TTFT_MS = 50;
const K6_BIN = join(REPO, '.cache/k6/k6');
const BUNDLE = join(REPO, 'dist/sweep.js');
const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
const SAMPLE_MS = 100;
const PATHS = ['default', 'callback'] as const;
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
}

export function parseArgs(argv: readonly string[]): Args {
  const args: Args = {
    levels: [1, 16, 32, 64, 256, 512, 1024], speeds: [100, 30], tokens: 300, paths: [...PATHS], context: 1024,
    memory: false, build: true,
  };
  const usage = '(use --levels 1,16,64 --speeds 100,30 --tokens 300 --paths default,callback --context 1024 --memory --no-build)';
  const list = (s: string | undefined): number[] => (s ?? '').split(',').map(Number);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--levels') args.levels = list(argv[++i]);
    else if (a === '--speeds') args.speeds = list(argv[++i]);
    else if (a === '--tokens') args.tokens = Number(argv[++i]);
    else if (a === '--context') args.context = Number(argv[++i]);
    else if (a === '--paths') {
      const names = (argv[++i] ?? '').split(',').filter((s) => s !== '');
      for (const n of names) if (!(PATHS as readonly string[]).includes(n)) throw new Error(`--paths: unknown path ${n} ${usage}`);
      args.paths = names as PathName[];
    } else if (a === '--memory') args.memory = true;
    else if (a === '--no-build') args.build = false;
    else throw new Error(`unknown argument ${a} ${usage}`);
  }
  if (args.levels.some((n) => !Number.isInteger(n) || n < 1)) throw new Error('--levels: positive integers, comma-separated');
  if (args.speeds.some((s) => !Number.isFinite(s) || s < 1 || s > 1000))
    throw new Error('--speeds: tokens per second from 1 to 1000, comma-separated');
  if (!Number.isInteger(args.tokens) || args.tokens < 10) throw new Error('--tokens: an integer >= 10');
  if (!Number.isInteger(args.context) || args.context < 16) throw new Error('--context: an integer >= 16');
  if (args.paths.length === 0) throw new Error(`--paths: at least one ${usage}`);
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

interface ProcSample {
  t: number;
  cpuMs: number;
}

const epochNow = (): number => performance.timeOrigin + performance.now();
/** Raised priority keeps other work on the machine from preempting the two measured processes, when allowed. */
const NICE = spawnSync('nice', ['-n', '-10', 'true'], { encoding: 'utf8' }).stderr === '' ? ['nice', '-n', '-10'] : [];

/** Samples utime+stime and the peak RSS of one process until stopped. */
function sampleProcess(pid: number): { stop: () => { samples: ProcSample[]; peakRssKb: number } } {
  const samples: ProcSample[] = [];
  let peakRssKb = 0;
  const tick = (): void => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // Fields 14 and 15 of stat(5); f[0] is field 3.
      samples.push({ t: epochNow(), cpuMs: ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK });
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      peakRssKb = Math.max(peakRssKb, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0));
    } catch {
      // The process has exited: keep what was sampled.
    }
  };
  tick();
  const timer = setInterval(tick, SAMPLE_MS);
  return {
    stop: () => {
      clearInterval(timer);
      return { samples, peakRssKb };
    },
  };
}

/** Cumulative CPU at epoch time t, interpolated between samples. */
function cpuAt(samples: readonly ProcSample[], t: number): number {
  if (samples.length === 0) return NaN;
  if (t <= samples[0]!.t) return samples[0]!.cpuMs;
  for (let i = 1; i < samples.length; i++) {
    const a = samples[i - 1]!;
    const b = samples[i]!;
    if (t <= b.t) return a.cpuMs + ((b.cpuMs - a.cpuMs) * (t - a.t)) / Math.max(1e-9, b.t - a.t);
  }
  return samples[samples.length - 1]!.cpuMs;
}

interface ClientRun {
  itl: number[];
  ttft: number[];
  tokens: number;
  failed: number;
  samples: ProcSample[];
  peakRssKb: number;
  code: number | null;
  stderrTail: string;
}

/** Runs dist/sweep.js on k6 (core 1) with one cell of n users; returns what its CSV says and what /proc saw. */
function runK6(base: string, n: number, rounds: number, tokens: number, context: number, path: PathName): Promise<ClientRun> {
  const dir = mkdtempSync(join(tmpdir(), 'engine-overhead-'));
  const plan = join(dir, 'plan.json');
  const streamSeconds = (TTFT_MS + tokens * 40) / 1000;
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
    EVENT_CALLBACK: path === 'callback' ? '1' : '0',
  };
  const args = [
    'run', '--quiet', '--no-usage-report', ...Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]), '--out',
    `csv=fileName=${csv},timeFormat=unix_milli`, BUNDLE,
  ];
  return new Promise((res) => {
    const child = spawn('taskset', ['-c', '1', ...NICE, K6_BIN, ...args], {
      stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, K6_NO_USAGE_REPORT: 'true' },
    });
    let tail = '';
    child.stderr!.on('data', (d: Buffer) => (tail = (tail + d.toString()).slice(-2000)));
    // taskset and nice exec: the spawned pid is k6's own.
    const sampler = child.pid !== undefined ? sampleProcess(child.pid) : null;
    child.on('close', (code) => {
      const s = sampler?.stop() ?? { samples: [], peakRssKb: 0 };
      const out: ClientRun = {
        itl: [], ttft: [], tokens: 0, failed: 0, samples: s.samples, peakRssKb: s.peakRssKb, code,
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

async function truthOf(base: string): Promise<TruthRecord[]> {
  return ((await (await fetch(`${base.replace(/\/v1$/, '')}/debug/ground-truth`)).json()) as { records: TruthRecord[] }).records;
}

async function clearTruth(base: string): Promise<void> {
  await fetch(`${base.replace(/\/v1$/, '')}/debug/ground-truth`, { method: 'DELETE' });
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
  peakRssMb?: number;
}

async function measure(base: string, speed: number, n: number, tokens: number, context: number, path: PathName): Promise<Row> {
  const rounds = n <= 16 ? 3 : 1;
  const row: Row = { speed, streams: n, path, tokens: n * rounds * tokens };
  await clearTruth(base);
  const run = await runK6(base, n, rounds, tokens, context, path);
  const server = serverSide(await truthOf(base));
  if (run.itl.length === 0) return { ...row, error: `k6 exit ${run.code}, no ITL samples: ${run.stderrTail}` };
  const cpuMs = cpuAt(run.samples, server.to + 2 * SAMPLE_MS) - cpuAt(run.samples, server.from);
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
    cpuUsPerToken: (cpuMs * 1000) / Math.max(1, run.tokens),
    peakRssMb: run.peakRssKb / 1024,
  };
}

// ---------------------------------------------------------------------------------------------
// Output

const f = (v: number | undefined, d = 2): string => (v !== undefined && Number.isFinite(v) ? v.toFixed(d) : 'n/a');
const pct = (v: number | undefined): string => (v !== undefined && Number.isFinite(v) ? `${(v * 100).toFixed(1)}%` : 'n/a');

export function renderTable(rows: readonly Row[]): string {
  const lines = [
    '| tok/s offered | streams | path | server tok/s per stream | read together client / server | ITL p99 client / ' +
    'server (ms) | TTFT mean error (ms) | CPU per token (µs) | peak RSS (MB) | note |',
    '|---:|---:|---|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.speed} | ${r.streams} | ${r.path} | ${f(r.serverRate)} | ${pct(r.togetherClient)} / ` +
      `${pct(r.togetherServer)} | ${f(r.itlP99Client)} / ${f(r.itlP99Server)} | ${f(r.ttftError)} | ` +
      `${f(r.cpuUsPerToken, 1)} | ${f(r.peakRssMb, 0)} | ${(r.error ?? '').replace(/\|/g, '\\|')} |`,
    );
  }
  return lines.join('\n');
}

/** The default path's CPU per token against the callback path's, per speed and level run on both. */
export function renderRatios(rows: readonly Row[]): string {
  const out: string[] = [];
  for (const d of rows.filter((r) => r.path === 'default')) {
    const c = rows.find((r) => r.path === 'callback' && r.speed === d.speed && r.streams === d.streams);
    if (c?.cpuUsPerToken && d.cpuUsPerToken)
      out.push(
        `${d.streams} x ${d.speed} tok/s: callback path ${f(c.cpuUsPerToken / d.cpuUsPerToken)}x the default path's CPU per token`,
      );
  }
  return out.join('\n');
}

function conditions(args: Args, version: string, loadStart: number[]): string {
  const la = (v: number[]): string => v.map((x) => x.toFixed(1)).join(' / ');
  return [
    `${new Date().toISOString()}; ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}); simulator pinned ` +
    `to core 0, k6 to core 1${NICE.length ? ', both at nice -10' : ' (nice -10 not permitted)'}; load average ` +
    `${la(loadStart)} at the start, ${la(loadavg())} at the end.`,
    `${version}; dist/sweep.js, one cell per row, ${args.tokens} tokens per stream (3 rounds up to 16 streams, ` +
    `else 1), fixed TTFT ${TTFT_MS} ms; default path = Go interprets, no event reaches JavaScript; callback = ` +
    `every event also handed to the script (EVENT_CALLBACK=1).`,
  ].join('\n');
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (spawnSync('taskset', ['-c', '0', 'true']).status !== 0)
    throw new Error('taskset is needed to pin the simulator and k6 to separate cores');
  if (args.build) {
    process.stderr.write('engine-overhead: building the bundles and the project k6...\n');
    for (const script of ['scripts/build.ts', 'scripts/build-k6.ts']) {
      const b = spawnSync(process.execPath, ['--import', 'tsx', join(REPO, script)], { cwd: REPO, encoding: 'utf8', timeout: 900_000 });
      if (b.status !== 0) throw new Error(`${script} failed: ${b.stderr.trim().split('\n').slice(-1)[0] ?? ''}`);
    }
  }
  const version = spawnSync(K6_BIN, ['version'], { encoding: 'utf8' }).stdout.trim().split('\n')[0] ?? 'k6';
  const loadStart = loadavg();
  const rows: Row[] = [];
  let memory = '';
  for (const speed of args.speeds) {
    const sim = await startSimChild(
      ['--fixed-ttft-ms', String(TTFT_MS), '--fixed-itl-ms', String(1000 / speed), '--ground-truth'],
      ['taskset', '-c', '0', ...NICE],
    );
    const base = `${sim.base}/v1`;
    try {
      for (const n of args.levels) {
        for (const path of args.paths) {
          process.stderr.write(`engine-overhead: ${speed} tok/s, ${n} streams, ${path} path...\n`);
          rows.push(await measure(base, speed, n, args.tokens, args.context, path));
        }
      }
      if (args.memory && speed === args.speeds[0]) {
        process.stderr.write('engine-overhead: memory, 256 streams x 4096 tokens...\n');
        const m = await measure(base, speed, 256, 4096, args.context, 'default');
        memory = `Memory: 256 streams x 4,096 tokens at ${speed} tok/s, default path: peak RSS ` +
          `${f(m.peakRssMb, 0)} MB, CPU ${f(m.cpuUsPerToken, 1)} µs per token${m.error ? ` (${m.error})` : ''}.`;
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
