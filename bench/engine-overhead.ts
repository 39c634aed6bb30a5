// Benchmark of each load-generating engine's own cost and timing error on SSE streams, against the simulator's ground truth. Runs in Node.
//
// The simulator (sim/, fixed timing: TTFT 50 ms, ITL 10 ms = 100 tok/s per stream or --itl-ms, --ground-truth)
// is pinned to core 0 and the client engine to core 1 (taskset; nice -10 when allowed). At each
// concurrency N, and for each engine back to back against the same simulator, the client opens N
// streams (3 rounds up to 16 streams, else 1). Engines:
//   k6-llm     .cache/k6/k6 (npm run build:k6) running a k6/x/llm script; token times are the events'
//              `time` stamps (the kernel's receive time of the event's bytes).
//   runner-llm the local runner (runner/cli.ts) running the same k6/x/llm script.
//   runner-sse the local runner running a k6/x/sse script; token times are taken in the handler with
//              exec.instance.currentTestRunDuration (what a k6/x/sse script can do).
//   k6-sse     K6_SSE_BIN (a k6 built with the community xk6-sse) running the k6/x/sse script; when unset,
//              a row says why there is none.
// Ground truth is when the simulator wrote each token to the socket (epoch ms of its clock). The
// client's times (ms since the test started) become epoch ms with the largest `Date.now() -
// currentTestRunDuration` seen by the script (Date.now() is whole ms, so the largest difference is the
// offset); the two processes' epoch clocks still differ by a few ms, so delivery delay is measured from
// the fastest delivery seen in the level (loopback latency = 0). ITL and TTFT errors are differences of
// differences, so need no alignment: |client gap - server gap| per token, |client TTFT - server TTFT|
// per stream (client TTFT from the request start the script sees: k6/x/llm's result.startTime, or the
// clock before sse.open). Client CPU is utime+stime of the client process (/proc/<pid>/stat, sampled
// every 100 ms), interpolated to the streaming window the ground truth gives (first arrival to last
// token), so start-up, VU init and the final log dump do not count; peak RSS is the largest VmHWM seen.
// `--memory` adds the memory target: peak RSS at 256 streams x 4,096 output tokens (the script only
// counts tokens, so the RSS is the engine's, not the script's arrays).
// Usage: npm run bench:engine-overhead [-- --levels 1,16,64,256,512 --tokens 300 --itl-ms 10
//        --engines k6-llm,runner-llm,runner-sse,k6-sse --memory --memory-streams 256 --memory-tokens 4096 --no-build]
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startSimChild } from '../sim/child';

const REPO = resolve(import.meta.dirname, '..');
const TTFT_MS = 50;
/** Tokens per second a stream is offered at a fixed inter-token latency. */
const offeredPerStream = (itlMs: number): number => 1000 / itlMs;
const K6_BIN = join(REPO, '.cache/k6/k6');
const SSE_UNBUILDABLE = 'k6 + xk6-sse: not buildable here (github.com/phymbert/xk6-sse not served by the module proxy)';
const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;
const SAMPLE_MS = 100;
/** tsx's loader by absolute URL: the clients run in a temporary directory, where a bare 'tsx' does not resolve. */
const TSX_LOADER = import.meta.resolve('tsx');

const ENGINES = ['k6-llm', 'runner-llm', 'runner-sse', 'k6-sse'] as const;
type EngineName = (typeof ENGINES)[number];

export interface Args {
  levels: number[];
  tokens: number;
  /** The simulator's fixed inter-token latency: 10 ms is 100 tok/s per stream. */
  itlMs: number;
  engines: EngineName[];
  memory: boolean;
  memoryStreams: number;
  memoryTokens: number;
  build: boolean;
  /** Write the timing table between <!-- NAME:start --> and <!-- NAME:end --> in runner/README.md. */
  readmeBlock: string | null;
}

export function parseArgs(argv: readonly string[]): Args {
  const args: Args = { levels: [1, 16, 64, 256, 512], tokens: 300, itlMs: 10, engines: [...ENGINES], memory: false, memoryStreams: 256, memoryTokens: 4096, build: true, readmeBlock: null };
  const usage = '(use --levels 1,16,64 --tokens 300 --itl-ms 10 --engines k6-llm,runner-llm,runner-sse,k6-sse --memory --memory-streams 256 --memory-tokens 4096 --no-build)';
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--levels') args.levels = (argv[++i] ?? '').split(',').map(Number);
    else if (a === '--tokens') args.tokens = Number(argv[++i]);
    else if (a === '--itl-ms') args.itlMs = Number(argv[++i]);
    else if (a === '--engines') {
      const names = (argv[++i] ?? '').split(',').filter((s) => s !== '');
      for (const n of names) if (!(ENGINES as readonly string[]).includes(n)) throw new Error(`--engines: unknown engine ${n} ${usage}`);
      args.engines = names as EngineName[];
    } else if (a === '--memory') args.memory = true;
    else if (a === '--memory-streams') args.memoryStreams = Number(argv[++i]);
    else if (a === '--memory-tokens') args.memoryTokens = Number(argv[++i]);
    else if (a === '--no-build') args.build = false;
    else if (a === '--readme-block') args.readmeBlock = argv[++i] ?? '';
    else throw new Error(`unknown argument ${a} ${usage}`);
  }
  if (args.levels.some((n) => !Number.isInteger(n) || n < 1)) throw new Error('--levels: positive integers, comma-separated');
  if (!Number.isInteger(args.tokens) || args.tokens < 10) throw new Error('--tokens: an integer >= 10');
  if (!Number.isFinite(args.itlMs) || args.itlMs < 1 || args.itlMs > 1000) throw new Error('--itl-ms: a number of ms from 1 to 1000');
  if (!Number.isInteger(args.memoryStreams) || args.memoryStreams < 1) throw new Error('--memory-streams: a positive integer');
  if (!Number.isInteger(args.memoryTokens) || args.memoryTokens < 10) throw new Error('--memory-tokens: an integer >= 10');
  if (args.engines.length === 0) throw new Error(`--engines: at least one ${usage}`);
  return args;
}

// ---------------------------------------------------------------------------------------------
// Client scripts. Both log one JSON record per stream on console (stderr), after every stream of the
// round has ended (stderr writes can block while the pipe is full). MODE=count logs counts only.

const COMMON = `
import exec from 'k6/execution';
import { sleep } from 'k6';

export const options = {
  scenarios: { streams: { executor: 'per-vu-iterations', vus: Number(__ENV.N), iterations: Number(__ENV.ROUNDS), maxDuration: __ENV.MAX_DURATION } },
};
const body = JSON.stringify({ model: __ENV.MODEL, stream: true, max_tokens: Number(__ENV.TOKENS), ignore_eos: true, messages: [{ role: 'user', content: 'hi' }] });
const COUNT = __ENV.MODE === 'count';

function record(rid, start, off, status, error, times, count, first, last) {
  return JSON.stringify(COUNT ? { rid, start, off, status, error, count, first, last } : { rid, start, off, status, error, times });
}
`;

const LLM_SCRIPT = `
import llm from 'k6/x/llm';
${COMMON}
export default async function () {
  const rid = 'bench-' + __ENV.TAG + '-' + exec.vu.idInTest + '-' + __ITER;
  const times = [];
  let count = 0, first = -1, last = -1;
  let off = -1e18;
  let offSamples = 0;
  // k6 builds a new exec.instance object on every read of it, which costs more than a token;
  // the object's properties are live, so one per iteration serves.
  const instance = exec.instance;
  const start = instance.currentTestRunDuration;
  // parseJson as the suite's transport (lib/k6/transport-llm.ts) asks for it.
  const res = await llm.stream({
    url: __ENV.BASE_URL + '/chat/completions', method: 'POST', body, timeout: '600s', parseJson: true,
    headers: { 'Content-Type': 'application/json', 'x-request-id': rid },
  }, (events) => {
    // Date.now() is whole ms: its largest difference to the float clock is the epoch offset.
    // A few hundred samples pin it to well under 0.1 ms; the probe's own cost stays off later tokens.
    if (offSamples < 256) {
      offSamples++;
      const x = Date.now() - instance.currentTestRunDuration;
      if (x > off) off = x;
    }
    for (let i = 0; i < events.length; i++) {
      const e = events[i];
      if (!e.data || e.data === '[DONE]') continue;
      const o = e.json !== undefined ? e.json : JSON.parse(e.data);
      const d = o.choices && o.choices[0] && o.choices[0].delta;
      if (d && d.content) {
        if (COUNT) { if (count === 0) first = e.time; last = e.time; count++; } else times.push(e.time);
      }
    }
  });
  await sleep(1);
  console.log(record(rid, res.startTime > 0 ? res.startTime : start, off, res.status, res.error, times, count, first, last));
}
`;

const SSE_SCRIPT = `
import sse from 'k6/x/sse';
${COMMON}
export default async function () {
  const rid = 'bench-' + __ENV.TAG + '-' + exec.vu.idInTest + '-' + __ITER;
  const times = [];
  let count = 0, first = -1, last = -1;
  let off = -1e18;
  let error = '';
  const instance = exec.instance; // one object per iteration: its properties are live
  const start = instance.currentTestRunDuration;
  const res = await sse.open(__ENV.BASE_URL + '/chat/completions', {
    method: 'POST', body, timeout: '600s',
    headers: { 'Content-Type': 'application/json', 'x-request-id': rid },
  }, (client) => {
    client.on('event', (e) => {
      if (!e.data || e.data === '[DONE]') return;
      const now = instance.currentTestRunDuration;
      const o = e.json !== undefined ? e.json : JSON.parse(e.data);
      const d = o.choices && o.choices[0] && o.choices[0].delta;
      if (d && d.content) {
        if (COUNT) { if (count === 0) first = now; last = now; count++; } else times.push(now);
        const x = Date.now() - now;
        if (x > off) off = x;
      }
    });
    client.on('error', (e) => { error = String(e && e.error ? e.error() : e); });
  });
  await sleep(1);
  console.log(record(rid, start, off, res ? res.status : 0, error, times, count, first, last));
}
`;

interface ClientRecord {
  rid: string;
  start: number;
  off: number;
  status: number;
  error?: string;
  times?: number[];
  count?: number;
  first?: number;
  last?: number;
}

interface TruthRecord {
  requestId: string;
  arrivalEpochMs: number;
  tokenEpochMs: number[];
}

function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return NaN;
  const s = Float64Array.from(values).sort();
  const i = q * (s.length - 1);
  const lo = Math.floor(i);
  const hi = Math.ceil(i);
  return s[lo]! + (s[hi]! - s[lo]!) * (i - lo);
}

/** Raised priority keeps other work on the machine from preempting the two measured processes, when allowed. */
const NICE = spawnSync('nice', ['-n', '-10', 'true'], { encoding: 'utf8' }).stderr === '' ? ['nice', '-n', '-10'] : [];
const epochNow = (): number => performance.timeOrigin + performance.now();

async function startSim(itlMs: number): Promise<{ url: string; stop: () => void }> {
  const sim = await startSimChild(['--fixed-ttft-ms', String(TTFT_MS), '--fixed-itl-ms', String(itlMs), '--ground-truth'], ['taskset', '-c', '0', ...NICE]);
  return { url: `${sim.base}/v1`, stop: () => void sim.stop() };
}

// ---------------------------------------------------------------------------------------------
// Engines

interface Engine {
  name: EngineName;
  script: 'llm' | 'sse';
  /** The command before the script's arguments, or why there is none. */
  command: string[] | { unavailable: string };
  version: string;
}

function firstLine(s: string): string {
  return s.trim().split('\n')[0] ?? '';
}

function resolveEngines(args: Args): Engine[] {
  const runner = [process.execPath, '--import', TSX_LOADER, join(REPO, 'runner/cli.ts'), 'run', '-q'];
  const nodeVersion = `local runner on Node ${process.version}`;
  const out: Engine[] = [];
  for (const name of args.engines) {
    if (name === 'runner-llm' || name === 'runner-sse') {
      out.push({ name, script: name === 'runner-llm' ? 'llm' : 'sse', command: runner, version: nodeVersion });
    } else if (name === 'k6-llm') {
      let why = '';
      if (args.build) {
        process.stderr.write('engine-overhead: npm run build:k6 (reuses .cache/k6/k6 when up to date)...\n');
        const b = spawnSync(process.execPath, ['--import', TSX_LOADER, join(REPO, 'scripts/build-k6.ts')], { cwd: REPO, encoding: 'utf8', timeout: 900_000 });
        if (b.status !== 0) why = `npm run build:k6 failed (exit ${b.status}): ${b.stderr.trim().split('\n').slice(-1)[0] ?? ''}`;
      }
      if (!existsSync(K6_BIN)) {
        out.push({ name, script: 'llm', command: { unavailable: `no .cache/k6/k6${why ? `; ${why}` : ' (run npm run build:k6)'}` }, version: '' });
        continue;
      }
      const v = spawnSync(K6_BIN, ['version'], { encoding: 'utf8', timeout: 30_000 });
      if (v.status !== 0) out.push({ name, script: 'llm', command: { unavailable: `.cache/k6/k6 version failed: ${firstLine(v.stderr ?? String(v.error))}` }, version: '' });
      else out.push({ name, script: 'llm', command: [K6_BIN, 'run', '-q', '--no-usage-report'], version: firstLine(v.stdout) + (why ? ` (stale binary: ${why})` : '') });
    } else {
      const bin = process.env.K6_SSE_BIN;
      if (!bin) {
        out.push({ name, script: 'sse', command: { unavailable: `${SSE_UNBUILDABLE}; set K6_SSE_BIN to such a k6 to measure it` }, version: '' });
        continue;
      }
      const v = spawnSync(bin, ['version'], { encoding: 'utf8', timeout: 30_000 });
      if (v.status !== 0) out.push({ name, script: 'sse', command: { unavailable: `K6_SSE_BIN=${bin}: \`version\` failed (exit ${v.status}) ${firstLine(v.stderr ?? String(v.error))}` }, version: '' });
      else out.push({ name, script: 'sse', command: [bin, 'run', '-q', '--no-usage-report'], version: firstLine(v.stdout) });
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// One run of one engine at one level

interface ProcSample {
  t: number;
  cpuMs: number;
}

/** Samples utime+stime and VmHWM/VmRSS of one process until stopped. */
function sampleProcess(pid: number): { stop: () => { samples: ProcSample[]; peakRssKb: number } } {
  const samples: ProcSample[] = [];
  let peakRssKb = 0;
  const tick = (): void => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // Fields 14 and 15 of stat(5); f[0] is field 3.
      const cpuMs = ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK;
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const hwm = /VmHWM:\s+(\d+)/.exec(status);
      const rss = /VmRSS:\s+(\d+)/.exec(status);
      peakRssKb = Math.max(peakRssKb, Number(hwm?.[1] ?? 0), Number(rss?.[1] ?? 0));
      samples.push({ t: epochNow(), cpuMs });
    } catch {
      // The process has exited (or is a zombie): keep what was sampled.
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

interface RunOutput {
  records: ClientRecord[];
  samples: ProcSample[];
  peakRssKb: number;
  code: number | null;
  timedOut: boolean;
  stderrTail: string;
}

const CONSOLE_LINE = /level=info msg=("(?:[^"\\]|\\.)*") source=console/;

function runClient(engine: Engine & { command: string[] }, base: string, model: string, n: number, tokens: number, itlMs: number, rounds: number, mode: 'times' | 'count', tag: string): Promise<RunOutput> {
  const dir = mkdtempSync(join(tmpdir(), 'engine-overhead-'));
  const script = join(dir, 'streams.js');
  writeFileSync(script, engine.script === 'llm' ? LLM_SCRIPT : SSE_SCRIPT);
  const perRoundS = (TTFT_MS + tokens * itlMs) / 1000 + 1;
  const maxDurationS = Math.ceil(rounds * perRoundS * 3 + 30);
  // A bounded level: VU init and the log dump on top of the streaming, then the process group is killed.
  const limitMs = (maxDurationS + 60 + n * 0.1) * 1000;
  const env = { BASE_URL: base, MODEL: model, N: String(n), TOKENS: String(tokens), ROUNDS: String(rounds), MODE: mode, TAG: tag, MAX_DURATION: `${maxDurationS}s` };
  const envArgs = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  const [bin, ...rest] = engine.command;
  return new Promise((res) => {
    const child = spawn('taskset', ['-c', '1', ...NICE, bin!, ...rest, ...envArgs, script], {
      cwd: dir,
      stdio: ['ignore', 'ignore', 'pipe'],
      detached: true,
      env: { ...process.env, K6_NO_USAGE_REPORT: 'true' },
    });
    const records: ClientRecord[] = [];
    let tail = '';
    let partial = '';
    let timedOut = false;
    // taskset and nice exec: the spawned pid is the client's own.
    const sampler = child.pid !== undefined ? sampleProcess(child.pid) : null;
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }, limitMs);
    child.stderr!.on('data', (d: Buffer) => {
      const lines = (partial + d.toString()).split('\n');
      partial = lines.pop()!;
      for (const line of lines) {
        const m = CONSOLE_LINE.exec(line);
        if (m) {
          try {
            records.push(JSON.parse(JSON.parse(m[1]!) as string) as ClientRecord);
            continue;
          } catch {
            // fall through: keep it in the tail
          }
        }
        if (line.trim() !== '') tail = (tail + '\n' + line).slice(-2000);
      }
    });
    const done = (code: number | null, err?: Error): void => {
      clearTimeout(timer);
      const s = sampler?.stop() ?? { samples: [], peakRssKb: 0 };
      res({ records, samples: s.samples, peakRssKb: s.peakRssKb, code, timedOut, stderrTail: err ? err.message : (tail + '\n' + partial).trim() });
    };
    child.on('error', (e) => done(null, e));
    child.on('close', (code) => done(code));
  });
}

export interface Row {
  engine: EngineName;
  streams: number;
  tokens: number;
  error?: string;
  achieved?: number;
  /** Tokens per second offered per stream (1000 / ITL). */
  offered?: number;
  keepsUp?: boolean;
  itlMed?: number;
  itlP99?: number;
  ttftMed?: number;
  ttftP99?: number;
  delayP99?: number;
  cpuPer1k?: number;
  peakRssMb?: number;
  received?: number;
  expected?: number;
  matched?: number;
  total?: number;
  note?: string;
}

async function groundTruth(base: string): Promise<Map<string, TruthRecord>> {
  const root = base.replace(/\/v1$/, '');
  const truth = ((await (await fetch(`${root}/debug/ground-truth`)).json()) as { records: TruthRecord[] }).records;
  return new Map(truth.map((t) => [t.requestId, t]));
}

async function clearGroundTruth(base: string): Promise<void> {
  await fetch(`${base.replace(/\/v1$/, '')}/debug/ground-truth`, { method: 'DELETE' });
}

function failureNote(out: RunOutput, expected: number): string | undefined {
  const parts: string[] = [];
  if (out.timedOut) parts.push('killed at the time limit');
  else if (out.code !== 0) parts.push(`exit ${out.code}`);
  if (out.records.length < expected) parts.push(`${out.records.length}/${expected} streams reported`);
  const errs = out.records.filter((r) => r.error || r.status !== 200);
  if (errs.length > 0) parts.push(`${errs.length} streams failed (first: status ${errs[0]!.status} ${errs[0]!.error ?? ''})`);
  if (parts.length === 0) return undefined;
  const tail = out.stderrTail.split('\n').filter((l) => !CONSOLE_LINE.test(l)).slice(-2).join(' ').slice(0, 300);
  return parts.join('; ') + (tail && (out.code !== 0 || out.records.length === 0) ? `: ${tail}` : '');
}

/** CPU of the client during the streaming window the ground truth gives (first arrival to last token written). */
function windowCpu(out: RunOutput, truth: readonly TruthRecord[]): number {
  let from = Infinity;
  let to = -Infinity;
  for (const t of truth) {
    from = Math.min(from, t.arrivalEpochMs);
    if (t.tokenEpochMs.length > 0) to = Math.max(to, t.tokenEpochMs[t.tokenEpochMs.length - 1]!);
  }
  // Tokens still in flight to a late client: extend by the last sample interval's worth of slack.
  return cpuAt(out.samples, to + 2 * SAMPLE_MS) - cpuAt(out.samples, from);
}

async function measureTiming(engine: Engine & { command: string[] }, base: string, model: string, n: number, tokens: number, itlMs: number): Promise<Row> {
  const rounds = n <= 16 ? 3 : 1;
  const tag = `${engine.name}-${n}`;
  await clearGroundTruth(base);
  const out = await runClient(engine, base, model, n, tokens, itlMs, rounds, 'times', tag);
  const byId = await groundTruth(base);
  // ENGINE_OVERHEAD_DUMP=DIR keeps each level's raw client records and ground truth, to look into an odd row.
  if (process.env.ENGINE_OVERHEAD_DUMP) writeFileSync(join(process.env.ENGINE_OVERHEAD_DUMP, `${tag}.json`), JSON.stringify({ records: out.records, truth: [...byId.values()], samples: out.samples }));
  const row: Row = { engine: engine.name, streams: n, tokens, total: n * rounds };
  const ok = out.records.filter((r) => r.status === 200 && !r.error && r.times);
  if (ok.length === 0) return { ...row, error: failureNote(out, n * rounds) ?? 'no stream records' };
  const offset = Math.max(...ok.map((r) => r.off));
  const itlErr: number[] = [];
  const ttftErr: number[] = [];
  const delay: number[] = [];
  let gapsSum = 0;
  let spanSum = 0;
  let received = 0;
  let matched = 0;
  const truths: TruthRecord[] = [];
  for (const r of ok) {
    const times = r.times!;
    received += times.length;
    const t = byId.get(r.rid);
    if (!t) continue;
    truths.push(t);
    // One content token per chunk in fixed mode; collapse equal emission times in case a chunk carried several.
    const chunks = t.tokenEpochMs.filter((v, i, a) => i === 0 || v !== a[i - 1]);
    if (chunks.length !== times.length || chunks.length < 2) continue;
    matched++;
    for (let i = 1; i < chunks.length; i++) itlErr.push(Math.abs(times[i]! - times[i - 1]! - (chunks[i]! - chunks[i - 1]!)));
    ttftErr.push(Math.abs(times[0]! - r.start - (chunks[0]! - t.arrivalEpochMs)));
    for (let i = 0; i < chunks.length; i++) delay.push(times[i]! + offset - chunks[i]!);
    gapsSum += times.length - 1;
    spanSum += times[times.length - 1]! - times[0]!;
  }
  // Summed over streams (gaps / time first to last token), so one stream delivered in a burst cannot dominate.
  const achieved = (gapsSum / spanSum) * 1000;
  let fastest = Infinity;
  for (const d of delay) if (d < fastest) fastest = d;
  const delayP99 = quantile(delay, 0.99) - fastest;
  const cpu = windowCpu(out, truths);
  const offered = offeredPerStream(itlMs);
  return {
    ...row,
    achieved,
    offered,
    keepsUp: achieved >= 0.99 * offered && delayP99 < itlMs && matched === n * rounds,
    itlMed: quantile(itlErr, 0.5),
    itlP99: quantile(itlErr, 0.99),
    ttftMed: quantile(ttftErr, 0.5),
    ttftP99: quantile(ttftErr, 0.99),
    delayP99,
    cpuPer1k: (cpu / Math.max(1, received)) * 1000,
    peakRssMb: out.peakRssKb / 1024,
    received,
    expected: n * rounds * tokens,
    matched,
    note: failureNote(out, n * rounds),
  };
}

async function measureMemory(engine: Engine & { command: string[] }, base: string, model: string, n: number, tokens: number, itlMs: number): Promise<Row> {
  await clearGroundTruth(base);
  const out = await runClient(engine, base, model, n, tokens, itlMs, 1, 'count', `${engine.name}-mem-${n}`);
  const byId = await groundTruth(base);
  const row: Row = { engine: engine.name, streams: n, tokens, total: n };
  const ok = out.records.filter((r) => r.status === 200 && !r.error && typeof r.count === 'number');
  if (ok.length === 0) return { ...row, error: failureNote(out, n) ?? 'no stream records' };
  let received = 0;
  let gapsSum = 0;
  let spanSum = 0;
  const truths: TruthRecord[] = [];
  for (const r of ok) {
    received += r.count!;
    if (r.count! > 1) {
      gapsSum += r.count! - 1;
      spanSum += r.last! - r.first!;
    }
    const t = byId.get(r.rid);
    if (t) truths.push(t);
  }
  const cpu = windowCpu(out, truths);
  return {
    ...row,
    achieved: (gapsSum / spanSum) * 1000,
    cpuPer1k: (cpu / Math.max(1, received)) * 1000,
    peakRssMb: out.peakRssKb / 1024,
    received,
    expected: n * tokens,
    matched: ok.length,
    note: failureNote(out, n),
  };
}

// ---------------------------------------------------------------------------------------------
// Output

const f = (v: number | undefined, d = 2): string => (v !== undefined && Number.isFinite(v) ? v.toFixed(d) : 'n/a');
const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');

export function renderTiming(rows: readonly Row[]): string {
  const lines = [
    '| engine | streams | achieved tok/s per stream (of 100) | keeps up | ITL error median / p99 (ms) | TTFT error median / p99 (ms) | delivery delay p99 (ms) | client CPU ms / 1k tokens | peak client RSS (MB) | streams matched | note |',
    '|---|---:|---:|:---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const r of rows) {
    if (r.error !== undefined) {
      lines.push(`| ${r.engine} | ${r.streams || 'all'} | - | - | - | - | - | - | - | - | ${cell(r.error)} |`);
      continue;
    }
    lines.push(
      `| ${r.engine} | ${r.streams} | ${f(r.achieved)} (${f((r.achieved ?? NaN) / (r.offered ?? NaN) * 100, 1)}%) | ${r.keepsUp ? 'yes' : 'no'} | ${f(r.itlMed, 3)} / ${f(r.itlP99, 3)} | ${f(r.ttftMed)} / ${f(r.ttftP99)} | ${f(r.delayP99)} | ${f(r.cpuPer1k, 1)} | ${f(r.peakRssMb, 0)} | ${r.matched}/${r.total} | ${cell(r.note ?? '')} |`,
    );
  }
  return lines.join('\n');
}

export function renderMemory(rows: readonly Row[]): string {
  const lines = [
    '| engine | streams x output tokens | peak client RSS (MB) | RSS per stream (KB) | tokens received | achieved tok/s per stream | client CPU ms / 1k tokens | note |',
    '|---|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const r of rows) {
    if (r.error !== undefined) {
      lines.push(`| ${r.engine} | ${r.streams} x ${r.tokens} | - | - | - | - | - | ${cell(r.error)} |`);
      continue;
    }
    lines.push(`| ${r.engine} | ${r.streams} x ${r.tokens} | ${f(r.peakRssMb, 0)} | ${f(((r.peakRssMb ?? NaN) * 1024) / r.streams, 0)} | ${r.received}/${r.expected} | ${f(r.achieved)} | ${f(r.cpuPer1k, 1)} | ${cell(r.note ?? '')} |`);
  }
  return lines.join('\n');
}

/** CPU pressure of the whole machine (PSI "some" avg60: % of time some runnable task waited for a CPU), '' when unavailable. */
function cpuPressure(): string {
  try {
    return /some avg10=[\d.]+ avg60=([\d.]+)/.exec(readFileSync('/proc/pressure/cpu', 'utf8'))?.[1] ?? '';
  } catch {
    return '';
  }
}

function conditions(args: Args, engines: readonly Engine[], loadStart: number[], psiStart: string): string {
  const la = (v: number[]): string => v.map((x) => x.toFixed(1)).join(' / ');
  const psiEnd = cpuPressure();
  const psi = psiStart && psiEnd ? ` CPU pressure (PSI some avg60) ${psiStart}% at the start, ${psiEnd}% at the end.` : '';
  const versions = engines.filter((e) => e.version).map((e) => `${e.name}: ${e.version}`).join('; ');
  return [
    `${new Date().toISOString()}; ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}); simulator pinned to core 0, client to core 1${NICE.length ? ', both at nice -10' : ' (nice -10 not permitted)'}; load average (1/5/15 min) ${la(loadStart)} at the start, ${la(loadavg())} at the end.${psi}`,
    `Fixed timing TTFT ${TTFT_MS} ms, ITL ${args.itlMs} ms (${f(offeredPerStream(args.itlMs), 1)} tok/s offered per stream); ${args.tokens} tokens per stream; 3 rounds up to 16 streams, else 1; engines run back to back at each level against one simulator. ${versions}.`,
    'Errors are absolute differences to the simulator\'s ground truth (ITL per token gap, TTFT per stream); delivery delay is client time minus server write time, measured from the fastest delivery seen (loopback latency = 0); keeps up = achieved >= 99% of offered, delivery delay p99 < one ITL and every stream matched token for token. Client CPU: utime+stime of the client process over the streaming window; peak RSS: VmHWM.',
  ].join('\n');
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (spawnSync('taskset', ['-c', '0', 'true']).status !== 0) throw new Error('taskset is needed to pin the simulator and the client to separate cores');
  const loadStart = loadavg();
  const psiStart = cpuPressure();
  const engines = resolveEngines(args);
  const sim = await startSim(args.itlMs);
  const timing: Row[] = [];
  const memory: Row[] = [];
  try {
    const model = ((await (await fetch(`${sim.url}/models`)).json()) as { data: { id: string }[] }).data[0]!.id;
    for (const e of engines) if (!Array.isArray(e.command)) timing.push({ engine: e.name, streams: 0, tokens: args.tokens, error: e.command.unavailable });
    for (const n of args.levels) {
      for (const e of engines) {
        if (!Array.isArray(e.command)) continue;
        process.stderr.write(`engine-overhead: ${e.name}, ${n} streams x ${args.tokens} tokens...\n`);
        try {
          timing.push(await measureTiming(e as Engine & { command: string[] }, sim.url, model, n, args.tokens, args.itlMs));
        } catch (err) {
          timing.push({ engine: e.name, streams: n, tokens: args.tokens, error: (err as Error).message });
        }
      }
    }
    if (args.memory) {
      for (const e of engines) {
        if (!Array.isArray(e.command)) {
          memory.push({ engine: e.name, streams: args.memoryStreams, tokens: args.memoryTokens, error: e.command.unavailable });
          continue;
        }
        process.stderr.write(`engine-overhead: memory, ${e.name}, ${args.memoryStreams} streams x ${args.memoryTokens} tokens...\n`);
        try {
          memory.push(await measureMemory(e as Engine & { command: string[] }, sim.url, model, args.memoryStreams, args.memoryTokens, args.itlMs));
        } catch (err) {
          memory.push({ engine: e.name, streams: args.memoryStreams, tokens: args.memoryTokens, error: (err as Error).message });
        }
      }
    }
  } finally {
    sim.stop();
  }
  // Rows in engine order, levels ascending, unavailable engines first of their group.
  const order = (r: Row): number => args.engines.indexOf(r.engine) * 1e6 + r.streams;
  timing.sort((a, b) => order(a) - order(b));
  const table = renderTiming(timing);
  const parts = [conditions(args, engines, loadStart, psiStart), '', table];
  if (args.memory) parts.push('', `Memory target: peak client RSS at ${args.memoryStreams} streams x ${args.memoryTokens} output tokens (the script only counts tokens).`, '', renderMemory(memory));
  const text = parts.join('\n');
  process.stdout.write(`${text}\n`);
  if (args.readmeBlock) {
    const path = join(REPO, 'runner/README.md');
    const readme = readFileSync(path, 'utf8');
    const start = `<!-- ${args.readmeBlock}:start -->`;
    const end = `<!-- ${args.readmeBlock}:end -->`;
    const a = readme.indexOf(start);
    const b = readme.indexOf(end);
    if (a < 0 || b < a) throw new Error(`runner/README.md lacks the ${start} ... ${end} markers`);
    writeFileSync(path, `${readme.slice(0, a + start.length)}\n${text}\n${readme.slice(b)}`);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  main().catch((e: unknown) => {
    process.stderr.write(`engine-overhead: ${(e as Error).message}\n`);
    process.exit(1);
  });
}

export { main };
