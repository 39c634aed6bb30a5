// Soak test of the project's k6 over a long run of concurrent streams. Runs in Node.
// It asks whether the client leaks memory or file descriptors, or drops requests.
//
// The simulator (sim/, fixed timing: TTFT 50 ms, ITL 10 ms = 100 tok/s per stream, 300 output tokens
// per request, so about 3 s per request) is pinned to core 0 and the client engine to core 1 (taskset;
// nice -10 when allowed), as in bench/engine-overhead.ts. k6 runs one k6/x/llm script
// with a `per-vu-iterations` scenario whose maxDuration is --minutes and whose iteration count is out of
// reach: --streams VUs, each streaming requests
// back to back for --minutes.
// Engine: .cache/k6/k6 (npm run build:k6, reused when up to date).
// Every 10 s the engine process's VmRSS (/proc/<pid>/status) and open file descriptors (entries of
// /proc/<pid>/fd) are sampled; times count from the spawn, so VU init is inside the first minute. The
// baseline is the first sample at or after 1 min (warm-up: VU init, connection pool, JIT and heap
// sizing); "end" is the last sample in the load window (up to the duration plus 10 s of start-up slack,
// so the end-of-test summary does not count); max is over the load window. Growth % is end vs 1 min.
// The script counts, with k6/metrics Counters read back from --summary-export: requests ended, failed
// requests (status not 200, a transport error, or not exactly the requested number of content tokens)
// and content tokens received; it logs the first few failures of each VU. An engine passes when it
// exits 0, every request succeeded, and RSS and fds each grew under 10% after the first minute.
// Everything is bounded: the engine is killed (its whole process group) at duration + 3 min, and on
// exit or Ctrl-C; an engine that fails gives a row with the error.
// Usage: npm run bench:soak [-- --minutes 30 --streams 64 --engines k6 --tokens 300 --no-build]
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startSimChild } from '../sim/child';

const REPO = resolve(import.meta.dirname, '..');
const TTFT_MS = 50;
const ITL_MS = 10;
const SAMPLE_MS = 10_000;
const WARMUP_MS = 60_000;
const GROWTH_LIMIT = 10;
const K6_BIN = join(REPO, '.cache/k6/k6');
/** tsx's loader by absolute URL: the clients run in a temporary directory, where a bare 'tsx' does not resolve. */
const TSX_LOADER = import.meta.resolve('tsx');
const ENGINES = ['k6'] as const;
type EngineName = (typeof ENGINES)[number];

interface Args {
  minutes: number;
  streams: number;
  engines: EngineName[];
  tokens: number;
  build: boolean;
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = { minutes: 30, streams: 64, engines: [...ENGINES], tokens: 300, build: true };
  const usage = '(use --minutes 30 --streams 64 --tokens 300 --no-build)';
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--minutes') args.minutes = Number(argv[++i]);
    else if (a === '--streams') args.streams = Number(argv[++i]);
    else if (a === '--tokens') args.tokens = Number(argv[++i]);
    else if (a === '--engines') {
      const names = (argv[++i] ?? '').split(',').filter((s) => s !== '');
      for (const n of names) if (!(ENGINES as readonly string[]).includes(n)) throw new Error(`--engines: unknown engine ${n} ${usage}`);
      args.engines = names as EngineName[];
    } else if (a === '--no-build') args.build = false;
    else throw new Error(`unknown argument ${a} ${usage}`);
  }
  if (!(args.minutes > 0)) throw new Error('--minutes: a positive number');
  if (!Number.isInteger(args.streams) || args.streams < 1) throw new Error('--streams: a positive integer');
  if (!Number.isInteger(args.tokens) || args.tokens < 1) throw new Error('--tokens: a positive integer');
  if (args.engines.length === 0) throw new Error(`--engines: at least one ${usage}`);
  return args;
}

// ---------------------------------------------------------------------------------------------
// The client script: counts only, so the engine's memory is what is measured, not the script's.

const SCRIPT = `
import llm from 'k6/x/llm';
import exec from 'k6/execution';
import { Counter } from 'k6/metrics';
import { sleep } from 'k6';

export const options = {
  scenarios: {
    soak: {
      executor: 'per-vu-iterations', vus: Number(__ENV.N), iterations: 1000000000, maxDuration: __ENV.DURATION, gracefulStop: '30s',
    },
  },
};
const requests = new Counter('soak_requests');
const failed = new Counter('soak_failed');
const tokens = new Counter('soak_tokens');
const TOKENS = Number(__ENV.TOKENS);
const body = JSON.stringify({
  model: __ENV.MODEL, stream: true, max_tokens: TOKENS, ignore_eos: true, messages: [{ role: 'user', content: 'hi' }],
});
let logged = 0;

export default async function () {
  let count = 0;
  let res;
  let error = '';
  try {
    res = await llm.stream({
      url: __ENV.BASE_URL + '/chat/completions', method: 'POST', body, timeout: '120s', parseJson: true,
      headers: { 'Content-Type': 'application/json', 'x-request-id': 'soak-' + exec.vu.idInTest + '-' + __ITER },
    }, (events) => {
      for (let i = 0; i < events.length; i++) {
        const e = events[i];
        if (!e.data || e.data === '[DONE]') continue;
        const o = e.json !== undefined ? e.json : JSON.parse(e.data);
        const d = o.choices && o.choices[0] && o.choices[0].delta;
        if (d && d.content) count++;
      }
    });
  } catch (e) {
    error = String(e);
  }
  if (!error && res && res.error) error = String(res.error);
  const status = res ? res.status : 0;
  requests.add(1);
  tokens.add(count);
  if (error || status !== 200 || count !== TOKENS) {
    failed.add(1);
    if (logged++ < 3) console.error('SOAK_FAIL ' + JSON.stringify({ vu: exec.vu.idInTest, iter: __ITER, status, error, tokens: count }));
    // A failing endpoint answers at once: pace the retries instead of spinning.
    await sleep(1);
  }
}
`;

// ---------------------------------------------------------------------------------------------
// Processes

/** Raised priority keeps other work on the machine from preempting the two measured processes, when allowed. */
const NICE = spawnSync('nice', ['-n', '-10', 'true'], { encoding: 'utf8' }).stderr === '' ? ['nice', '-n', '-10'] : [];
/** Process groups to kill on exit (the simulator and the running engine). */
const groups = new Set<ChildProcess>();

function killGroup(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

function killAll(): void {
  for (const c of groups) killGroup(c);
  groups.clear();
}

async function startSim(): Promise<{ url: string; stop: () => void }> {
  const sim = await startSimChild(['--fixed-ttft-ms', String(TTFT_MS), '--fixed-itl-ms', String(ITL_MS)], ['taskset', '-c', '0', ...NICE]);
  groups.add(sim.child);
  return {
    url: `${sim.base}/v1`,
    stop: () => {
      killGroup(sim.child);
      groups.delete(sim.child);
    },
  };
}

interface Engine {
  name: EngineName;
  command: string[] | { unavailable: string };
  version: string;
}

function firstLine(s: string): string {
  return s.trim().split('\n')[0] ?? '';
}

function resolveEngines(args: Args): Engine[] {
  const out: Engine[] = [];
  for (const name of args.engines) {
    let why = '';
    if (args.build) {
      process.stderr.write('soak: npm run build:k6 (reuses .cache/k6/k6 when up to date)...\n');
      const b = spawnSync(process.execPath, ['--import', TSX_LOADER, join(REPO, 'scripts/build-k6.ts')], {
        cwd: REPO, encoding: 'utf8', timeout: 900_000,
      });
      if (b.status !== 0)
        why = `npm run build:k6 failed (exit ${b.status}): ${b.stderr?.trim().split('\n').slice(-1)[0] ?? String(b.error)}`;
    }
    if (!existsSync(K6_BIN)) {
      out.push({ name, command: { unavailable: `no .cache/k6/k6${why ? `; ${why}` : ' (run npm run build:k6)'}` }, version: '' });
      continue;
    }
    const v = spawnSync(K6_BIN, ['version'], { encoding: 'utf8', timeout: 30_000 });
    if (v.status !== 0)
      out.push({
        name, command: { unavailable: `.cache/k6/k6 version failed: ${firstLine(v.stderr ?? String(v.error))}` },
        version: '',
      });
    else
      out.push({
        name, command: [K6_BIN, 'run', '-q', '--no-usage-report'],
        version: firstLine(v.stdout) + (why ? ` (stale binary: ${why})` : ''),
      });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// One soak run

interface Sample {
  /** ms since the engine was spawned */
  t: number;
  rssKb: number;
  fds: number;
}

function sampleOnce(pid: number, t0: number): Sample | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rss = /VmRSS:\s+(\d+)/.exec(status);
    if (!rss) return null; // a zombie has no VmRSS
    return { t: performance.now() - t0, rssKb: Number(rss[1]), fds: readdirSync(`/proc/${pid}/fd`).length };
  } catch {
    return null; // exited
  }
}

export interface Row {
  engine: EngineName;
  error?: string;
  durationS?: number;
  requests?: number;
  failed?: number;
  tokens?: number;
  rss1m?: number;
  rssEnd?: number;
  rssMax?: number;
  rssGrowth?: number;
  fds1m?: number;
  fdsEnd?: number;
  fdsMax?: number;
  fdsGrowth?: number;
  pass?: boolean;
  note?: string;
}

async function soak(engine: Engine & { command: string[] }, base: string, model: string, args: Args): Promise<Row> {
  const dir = mkdtempSync(join(tmpdir(), 'soak-'));
  const script = join(dir, 'soak.js');
  const summary = join(dir, 'summary.json');
  writeFileSync(script, SCRIPT);
  const durationMs = Math.round(args.minutes * 60_000);
  const limitMs = durationMs + 180_000;
  const env = {
    BASE_URL: base, MODEL: model, N: String(args.streams), TOKENS: String(args.tokens),
    DURATION: `${Math.round(durationMs / 1000)}s`,
  };
  const envArgs = Object.entries(env).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  const [bin, ...rest] = engine.command;
  const t0 = performance.now();
  const child = spawn('taskset', ['-c', '1', ...NICE, bin!, ...rest, '--summary-export', summary, ...envArgs, script], {
    cwd: dir,
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
    env: { ...process.env, K6_NO_USAGE_REPORT: 'true' },
  });
  groups.add(child);
  // taskset and nice exec: the spawned pid is the engine's own.
  const samples: Sample[] = [];
  const sampler = setInterval(() => {
    const s = child.pid !== undefined ? sampleOnce(child.pid, t0) : null;
    if (s) {
      samples.push(s);
      process.stderr.write(`soak: ${engine.name} t=${Math.round(s.t / 1000)}s RSS ${(s.rssKb / 1024).toFixed(1)} MB, ${s.fds} fds\n`);
    }
  }, SAMPLE_MS);
  let timedOut = false;
  const killer = setTimeout(() => {
    timedOut = true;
    killGroup(child);
  }, limitMs);
  let tail = '';
  const failures: string[] = [];
  let partial = '';
  child.stderr!.on('data', (d: Buffer) => {
    const text = d.toString();
    tail = (tail + text).slice(-2000);
    const lines = (partial + text).split('\n');
    partial = lines.pop()!.slice(-10_000);
    for (const line of lines) {
      if (failures.length >= 3 || !line.includes('SOAK_FAIL')) continue;
      // logfmt: msg="..." with JSON-style escapes.
      const m = /msg=("(?:[^"\\]|\\.)*")/.exec(line);
      try {
        failures.push(
          m
            ? (JSON.parse(m[1]!) as string).replace(/^SOAK_FAIL /, '')
            : line.slice(line.indexOf('SOAK_FAIL') + 10).slice(0, 300),
        );
      } catch {
        failures.push(line.slice(line.indexOf('SOAK_FAIL') + 10).slice(0, 300));
      }
    }
  });
  const code = await new Promise<number | null>((res) => {
    child.on('error', (e) => {
      tail += `\n${e.message}`;
      res(null);
    });
    child.on('close', (c) => res(c));
  });
  clearInterval(sampler);
  clearTimeout(killer);
  groups.delete(child);
  const elapsedS = (performance.now() - t0) / 1000;

  const problems: string[] = [];
  if (timedOut) problems.push(`killed at the time limit (${limitMs / 1000} s)`);
  else if (code !== 0) problems.push(`exit ${code}`);
  let metrics: Record<string, { count?: number }> = {};
  try {
    metrics = (JSON.parse(readFileSync(summary, 'utf8')) as { metrics: typeof metrics }).metrics ?? {};
  } catch (e) {
    problems.push(`no summary export (${(e as Error).message.split('\n')[0]})`);
  }
  const lastLines = tail.split('\n').filter((l) => l.trim() !== '').slice(-2).join(' ').slice(0, 300);
  if (!metrics.soak_requests)
    return {
      engine: engine.name, durationS: elapsedS,
      error: `${problems.join('; ') || 'no soak_requests metric'}: ${lastLines}`,
    };

  const requests = metrics.soak_requests.count ?? 0;
  const failed = metrics.soak_failed?.count ?? 0;
  const tokens = metrics.soak_tokens?.count ?? 0;
  if (failed > 0) problems.push(`${failed} failed (first: ${failures[0] ?? 'see engine log'})`);
  if (requests === 0) problems.push('no requests');

  const window = samples.filter((s) => s.t <= durationMs + 10_000);
  const base1m = window.find((s) => s.t >= WARMUP_MS);
  const end = window[window.length - 1];
  const row: Row = { engine: engine.name, durationS: elapsedS, requests, failed, tokens };
  if (!base1m || !end) {
    problems.push('no sample at or after 1 min in the load window');
    return { ...row, pass: false, note: problems.join('; ') };
  }
  const growth = (a: number, b: number): number => ((b - a) / a) * 100;
  const rssGrowth = growth(base1m.rssKb, end.rssKb);
  const fdsGrowth = growth(base1m.fds, end.fds);
  if (!(rssGrowth < GROWTH_LIMIT)) problems.push(`RSS grew ${rssGrowth.toFixed(1)}%`);
  if (!(fdsGrowth < GROWTH_LIMIT)) problems.push(`fds grew ${fdsGrowth.toFixed(1)}%`);
  return {
    ...row,
    rss1m: base1m.rssKb / 1024,
    rssEnd: end.rssKb / 1024,
    rssMax: Math.max(...window.map((s) => s.rssKb)) / 1024,
    rssGrowth,
    fds1m: base1m.fds,
    fdsEnd: end.fds,
    fdsMax: Math.max(...window.map((s) => s.fds)),
    fdsGrowth,
    pass: problems.length === 0,
    note: problems.join('; '),
  };
}

// ---------------------------------------------------------------------------------------------
// Output

const f = (v: number | undefined, d = 1): string => (v !== undefined && Number.isFinite(v) ? v.toFixed(d) : 'n/a');
const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');

export function render(rows: readonly Row[]): string {
  const lines = [
    '| engine | duration (s) | requests | failed | tokens | RSS MB at 1 min / end / max | RSS growth | fds at 1 ' +
    'min / end / max | fd growth | verdict | note |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|:---:|---|',
  ];
  for (const r of rows) {
    if (r.error !== undefined) {
      lines.push(`| ${r.engine} | ${f(r.durationS, 0)} | - | - | - | - | - | - | - | FAIL | ${cell(r.error)} |`);
      continue;
    }
    lines.push(
      `| ${r.engine} | ${f(r.durationS, 0)} | ${r.requests} | ${r.failed} | ${r.tokens} | ${f(r.rss1m)} / ` +
      `${f(r.rssEnd)} / ${f(r.rssMax)} | ${f(r.rssGrowth)}% | ${r.fds1m ?? 'n/a'} / ${r.fdsEnd ?? 'n/a'} / ` +
      `${r.fdsMax ?? 'n/a'} | ${f(r.fdsGrowth)}% | ${r.pass ? 'PASS' : 'FAIL'} | ${cell(r.note ?? '')} |`,
    );
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  if (spawnSync('taskset', ['-c', '0', 'true']).status !== 0)
    throw new Error('taskset is needed to pin the simulator and the client to separate cores');
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(sig, () => {
      killAll();
      process.exit(130);
    });
  }
  process.on('exit', killAll);
  const loadStart = loadavg();
  const engines = resolveEngines(args);
  const rows: Row[] = [];
  const sim = await startSim();
  try {
    const model = ((await (await fetch(`${sim.url}/models`, { signal: AbortSignal.timeout(30_000) })).json()) as {
      data: { id: string }[];
    }).data[0]!.id;
    for (const e of engines) {
      if (!Array.isArray(e.command)) {
        rows.push({ engine: e.name, error: e.command.unavailable });
        continue;
      }
      process.stderr.write(`soak: ${e.name}, ${args.streams} streams for ${args.minutes} min...\n`);
      try {
        rows.push(await soak(e as Engine & { command: string[] }, sim.url, model, args));
      } catch (err) {
        rows.push({ engine: e.name, error: (err as Error).message });
      }
    }
  } finally {
    sim.stop();
  }
  const la = (v: number[]): string => v.map((x) => x.toFixed(1)).join(' / ');
  const versions = engines.filter((e) => e.version).map((e) => `${e.name}: ${e.version}`).join('; ');
  const text = [
    `${new Date().toISOString()}; ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}); simulator pinned ` +
    `to core 0, client to core 1${NICE.length ? ', both at nice -10' : ' (nice -10 not permitted)'}; load average ` +
    `(1/5/15 min) ${la(loadStart)} at the start, ${la(loadavg())} at the end.`,
    `${args.streams} concurrent streams (per-vu-iterations, requests back to back) for ${args.minutes} min per ` +
    `engine; fixed timing TTFT ${TTFT_MS} ms, ITL ${ITL_MS} ms, ${args.tokens} output tokens per request. ${versions}.`,
    `RSS (VmRSS) and open fds of the engine process sampled every ${SAMPLE_MS / 1000} s from spawn; growth = end ` +
    `of the load window vs the first sample at or after 1 min; PASS = exit 0, no failed request, RSS and fd growth ` +
    `each under ${GROWTH_LIMIT}%. Duration is the engine process's wall time (start-up, graceful stop and summary included).`,
    '',
    render(rows),
  ].join('\n');
  process.stdout.write(`${text}\n`);
  if (rows.some((r) => !r.pass)) process.exitCode = 1;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  main().catch((e: unknown) => {
    process.stderr.write(`soak: ${(e as Error).message}\n`);
    killAll();
    process.exit(1);
  });
}
