// Soak test of the client, a stock k6 with the measuring agent beside it, over a long run of concurrent streams.
// Runs in Node. It asks whether either process leaks memory or file descriptors, or whether requests are dropped.
//
// The simulator (sim/, fixed timing: TTFT 50 ms, ITL 10 ms = 100 tok/s per stream, 300 output tokens per
// request, so about 3 s per request) is pinned to core 0, and the client, k6 and one agent, to core 1 (taskset;
// nice -10 when allowed), as in bench/engine-overhead.ts. k6 (K6_BIN, else a k6 on PATH, else the cached upstream
// build: orchestrator/engine.ts) runs bench/k6/soak.js, which streams through the suite's stream module
// (dist/llm.js, -e LLM_AGENT=<the agent>) with a `per-vu-iterations` scenario whose maxDuration is --minutes and
// whose iteration count is out of reach: --streams VUs, each streaming requests back to back for --minutes. The
// script pushes no llm_* sample (k6 keeps every Trend value for its summary, which would grow by design).
// Every 10 s the VmRSS (/proc/<pid>/status) and open file descriptors (entries of /proc/<pid>/fd) of k6 and of
// the agent are sampled; times count from k6's spawn, so VU init is inside the first minute. The baseline is the
// first sample at or after 1 min (warm-up: VU init, connection pools, JIT and heap sizing); "end" is the last
// sample in the load window (up to the duration plus 10 s of start-up slack, so the end-of-test summary does not
// count); max is over the load window. Growth % is end vs 1 min, judged for each process apart.
// The script counts, with k6/metrics Counters read back from --summary-export: requests ended, failed requests
// (a record that did not complete, status not 200, a transport error (errorCode), or not exactly the requested
// number of output tokens: record.outputTokens, the usage's completion_tokens) and tokens received; it logs the
// first few failures of each VU. The run passes when k6 exits 0, the agent stayed up, every request succeeded,
// and RSS and fds of k6 and of the agent each grew under 10% after the first minute (a leak in either fails).
// Everything is bounded: k6 is killed (its whole process group) at duration + 3 min, and k6, the agent and the
// simulator on exit or Ctrl-C.
// --build (the default) builds the bundles (dist/llm.js) and the agent first (npm run build, npm run agent:build).
// Usage: npm run bench:soak [-- --minutes 30 --streams 64 --tokens 300 --no-build]
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startAgent, type AgentProcess } from '../orchestrator/agent-process';
import type { Engine } from '../orchestrator/engine';
import { startSimChild } from '../sim/child';
import { prepareClient } from './client-engine';

const REPO = resolve(import.meta.dirname, '..');
const SCRIPT = join(REPO, 'bench/k6/soak.js');
const TTFT_MS = 50;
const ITL_MS = 10;
const SAMPLE_MS = 10_000;
const WARMUP_MS = 60_000;
const GROWTH_LIMIT = 10;
const PROCESSES = ['k6', 'agent'] as const;
type ProcessName = (typeof PROCESSES)[number];

interface Args {
  minutes: number;
  streams: number;
  tokens: number;
  build: boolean;
}

function parseArgs(argv: readonly string[]): Args {
  const args: Args = { minutes: 30, streams: 64, tokens: 300, build: true };
  const usage = '(use --minutes 30 --streams 64 --tokens 300 --no-build)';
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--minutes') args.minutes = Number(argv[++i]);
    else if (a === '--streams') args.streams = Number(argv[++i]);
    else if (a === '--tokens') args.tokens = Number(argv[++i]);
    else if (a === '--no-build') args.build = false;
    else throw new Error(`unknown argument ${a} ${usage}`);
  }
  if (!(args.minutes > 0)) throw new Error('--minutes: a positive number');
  if (!Number.isInteger(args.streams) || args.streams < 1) throw new Error('--streams: a positive integer');
  if (!Number.isInteger(args.tokens) || args.tokens < 1) throw new Error('--tokens: a positive integer');
  return args;
}

// ---------------------------------------------------------------------------------------------
// Processes

/** Raised priority keeps other work on the machine from preempting the measured processes, when allowed. */
const NICE = spawnSync('nice', ['-n', '-10', 'true'], { encoding: 'utf8' }).stderr === '' ? ['nice', '-n', '-10'] : [];
/** Process groups to kill on exit (the simulator and k6; the agent kills itself with startAgent's own hook). */
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
  const sim = await startSimChild(
    ['--fixed-ttft-ms', String(TTFT_MS), '--fixed-itl-ms', String(ITL_MS)], ['taskset', '-c', '0', ...NICE],
  );
  groups.add(sim.child);
  return {
    url: `${sim.base}/v1`,
    stop: () => {
      killGroup(sim.child);
      groups.delete(sim.child);
    },
  };
}


/** The agent's own description (GET /): its API version and whether token times are the kernel's. */
async function agentVersion(agent: AgentProcess): Promise<string> {
  try {
    const v = (await (await fetch(`${agent.url}/`, { signal: AbortSignal.timeout(5_000) })).json()) as {
      version?: unknown; goVersion?: unknown; kernelTimestamps?: unknown;
    };
    const kernel = `kernel receive times ${String(v.kernelTimestamps)}`;
    return `agent API ${String(v.version)} (${String(v.goVersion)}, ${kernel})`;
  } catch (e) {
    return `agent (GET / failed: ${(e as Error).message})`;
  }
}

// ---------------------------------------------------------------------------------------------
// Sampling

interface Sample {
  /** ms since k6 was spawned */
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

/** Samples each process every SAMPLE_MS, logging each sample, until stopped. */
function startSampling(pids: Record<ProcessName, number | undefined>, t0: number): {
  stop: () => Record<ProcessName, Sample[]>;
} {
  const samples: Record<ProcessName, Sample[]> = { k6: [], agent: [] };
  const timer = setInterval(() => {
    const parts: string[] = [];
    for (const name of PROCESSES) {
      const pid = pids[name];
      const s = pid !== undefined ? sampleOnce(pid, t0) : null;
      if (!s) continue;
      samples[name].push(s);
      parts.push(`${name} RSS ${(s.rssKb / 1024).toFixed(1)} MB, ${s.fds} fds`);
    }
    const t = Math.round((performance.now() - t0) / 1000);
    if (parts.length > 0) process.stderr.write(`soak: t=${t}s ${parts.join('; ')}\n`);
  }, SAMPLE_MS);
  return {
    stop: () => {
      clearInterval(timer);
      return samples;
    },
  };
}

export interface ProcessRow {
  name: ProcessName;
  rss1m?: number;
  rssEnd?: number;
  rssMax?: number;
  rssGrowth?: number;
  fds1m?: number;
  fdsEnd?: number;
  fdsMax?: number;
  fdsGrowth?: number;
  pass: boolean;
  note: string;
}

/** One process's figures over the load window, judged by the growth rule. */
export function judgeProcess(name: ProcessName, samples: readonly Sample[], durationMs: number): ProcessRow {
  const window = samples.filter((s) => s.t <= durationMs + 10_000);
  const base1m = window.find((s) => s.t >= WARMUP_MS);
  const end = window[window.length - 1];
  if (!base1m || !end) return { name, pass: false, note: 'no sample at or after 1 min in the load window' };
  const growth = (a: number, b: number): number => ((b - a) / a) * 100;
  const rssGrowth = growth(base1m.rssKb, end.rssKb);
  const fdsGrowth = growth(base1m.fds, end.fds);
  const problems: string[] = [];
  if (!(rssGrowth < GROWTH_LIMIT)) problems.push(`RSS grew ${rssGrowth.toFixed(1)}%`);
  if (!(fdsGrowth < GROWTH_LIMIT)) problems.push(`fds grew ${fdsGrowth.toFixed(1)}%`);
  return {
    name,
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
// One soak run

/** A SOAK_FAIL line of k6's stderr (logfmt: msg="..." with JSON-style escapes), or null for any other line. */
function parseFailure(line: string): string | null {
  const at = line.indexOf('SOAK_FAIL');
  if (at < 0) return null;
  const m = /msg=("(?:[^"\\]|\\.)*")/.exec(line);
  try {
    if (m) return (JSON.parse(m[1]!) as string).replace(/^SOAK_FAIL /, '');
  } catch {
    // not JSON after all: the raw line below
  }
  return line.slice(at + 10).slice(0, 300);
}

interface K6Run {
  code: number | null;
  timedOut: boolean;
  elapsedS: number;
  tail: string;
  failures: string[];
  samples: Record<ProcessName, Sample[]>;
}

interface K6Call {
  readonly k6: Engine;
  readonly agent: AgentProcess;
  /** -e values for the script; LLM_AGENT is added. */
  readonly env: Readonly<Record<string, string>>;
  /** The run's temporary directory: k6's working directory and its summary export. */
  readonly dir: string;
  readonly limitMs: number;
}

/** Runs bench/k6/soak.js on k6 (core 1) against the agent, sampling both, until k6 exits or the limit. */
function runK6({ k6, agent, env, dir, limitMs }: K6Call): Promise<K6Run> {
  const envArgs = Object.entries({ ...env, LLM_AGENT: agent.url }).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  const summary = join(dir, 'summary.json');
  const args = [...k6.command, 'run', '-q', '--no-usage-report', '--summary-export', summary, ...envArgs, SCRIPT];
  const t0 = performance.now();
  const child = spawn('taskset', ['-c', '1', ...NICE, ...args], {
    cwd: dir, stdio: ['ignore', 'ignore', 'pipe'], detached: true,
    env: { ...process.env, K6_NO_USAGE_REPORT: 'true' },
  });
  groups.add(child);
  // taskset and nice exec: the spawned pid is k6's own.
  const sampler = startSampling({ k6: child.pid, agent: agent.pid }, t0);
  let timedOut = false;
  const killer = setTimeout(() => {
    timedOut = true;
    killGroup(child);
  }, limitMs);
  let tail = '';
  let partial = '';
  const failures: string[] = [];
  child.stderr!.on('data', (d: Buffer) => {
    const text = d.toString();
    tail = (tail + text).slice(-2000);
    const lines = (partial + text).split('\n');
    partial = lines.pop()!.slice(-10_000);
    for (const line of lines) {
      const failure = failures.length < 3 ? parseFailure(line) : null;
      if (failure !== null) failures.push(failure);
    }
  });
  return new Promise((res) => {
    const done = (code: number | null): void => {
      clearTimeout(killer);
      groups.delete(child);
      res({ code, timedOut, elapsedS: (performance.now() - t0) / 1000, tail, failures, samples: sampler.stop() });
    };
    child.on('error', (e) => {
      tail += `\n${e.message}`;
      done(null);
    });
    child.on('close', (c) => done(c));
  });
}

export interface Row {
  /** The agent's GET / answer, for the conditions line. */
  agent: string;
  error?: string;
  durationS?: number;
  requests?: number;
  failed?: number;
  tokens?: number;
  processes: ProcessRow[];
  pass: boolean;
  note: string;
}

/** One run: a fresh agent on core 1, k6 beside it, both sampled; the counts from k6's summary export. */
async function soak(k6: Engine, base: string, model: string, args: Args): Promise<Row> {
  const dir = mkdtempSync(join(tmpdir(), 'soak-'));
  const durationMs = Math.round(args.minutes * 60_000);
  const limitMs = durationMs + 180_000;
  const env = {
    BASE_URL: base, MODEL: model, N: String(args.streams), TOKENS: String(args.tokens),
    DURATION: `${Math.round(durationMs / 1000)}s`,
  };
  const agent = await startAgent({ prefix: ['taskset', '-c', '1', ...NICE] });
  let stopping = false;
  let agentGone = '';
  void agent.exited.then((e) => {
    if (!stopping) agentGone = `agent exited (${e.signal ?? `code ${e.code}`}) during the run`;
  });
  let run: K6Run;
  let version: string;
  try {
    version = await agentVersion(agent);
    run = await runK6({ k6, agent, env, dir, limitMs });
  } finally {
    stopping = true;
    await agent.stop();
  }
  const problems: string[] = [];
  if (run.timedOut) problems.push(`k6 killed at the time limit (${limitMs / 1000} s)`);
  else if (run.code !== 0) problems.push(`k6 exit ${run.code}`);
  if (agentGone) problems.push(`${agentGone}: ${agent.stderrTail().trim().split('\n').slice(-2).join(' ')}`);
  const processes = PROCESSES.map((name) => judgeProcess(name, run.samples[name], durationMs));
  return { ...summarize(join(dir, 'summary.json'), run, problems, processes), agent: version };
}

/** The row from k6's summary export, the run's problems and each process's verdict. */
function summarize(summary: string, run: K6Run, problems: string[], processes: ProcessRow[]): Omit<Row, 'agent'> {
  let metrics: Record<string, { count?: number }> = {};
  try {
    metrics = (JSON.parse(readFileSync(summary, 'utf8')) as { metrics: typeof metrics }).metrics ?? {};
  } catch (e) {
    problems.push(`no summary export (${(e as Error).message.split('\n')[0]})`);
  }
  const lastLines = run.tail.split('\n').filter((l) => l.trim() !== '').slice(-2).join(' ').slice(0, 300);
  if (!metrics.soak_requests) {
    const error = `${problems.join('; ') || 'no soak_requests metric'}: ${lastLines}`;
    return { durationS: run.elapsedS, error, processes, pass: false, note: '' };
  }
  const requests = metrics.soak_requests.count ?? 0;
  const failed = metrics.soak_failed?.count ?? 0;
  const tokens = metrics.soak_tokens?.count ?? 0;
  if (failed > 0) problems.push(`${failed} failed (first: ${run.failures[0] ?? 'see k6 log'})`);
  if (requests === 0) problems.push('no requests');
  for (const p of processes) if (!p.pass) problems.push(`${p.name}: ${p.note}`);
  const pass = problems.length === 0;
  return { durationS: run.elapsedS, requests, failed, tokens, processes, pass, note: problems.join('; ') };
}

// ---------------------------------------------------------------------------------------------
// Output

const f = (v: number | undefined, d = 1): string => (v !== undefined && Number.isFinite(v) ? v.toFixed(d) : 'n/a');
const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\s*\n\s*/g, ' ');

export function render(row: Row): string {
  const run = row.error !== undefined
    ? `| k6 + agent | ${f(row.durationS, 0)} | - | - | - | FAIL | ${cell(row.error)} |`
    : `| k6 + agent | ${f(row.durationS, 0)} | ${row.requests} | ${row.failed} | ${row.tokens} | ` +
      `${row.pass ? 'PASS' : 'FAIL'} | ${cell(row.note)} |`;
  const lines = [
    '| client | duration (s) | requests | failed | tokens | verdict | note |',
    '|---|---:|---:|---:|---:|:---:|---|',
    run,
    '',
    '| process | RSS MB at 1 min / end / max | RSS growth | fds at 1 min / end / max | fd growth | verdict | note |',
    '|---|---:|---:|---:|---:|:---:|---|',
  ];
  for (const p of row.processes) {
    lines.push(
      `| ${p.name} | ${f(p.rss1m)} / ${f(p.rssEnd)} / ${f(p.rssMax)} | ${f(p.rssGrowth)}% | ` +
      `${p.fds1m ?? 'n/a'} / ${p.fdsEnd ?? 'n/a'} / ${p.fdsMax ?? 'n/a'} | ${f(p.fdsGrowth)}% | ` +
      `${p.pass ? 'PASS' : 'FAIL'} | ${cell(p.note)} |`,
    );
  }
  return lines.join('\n');
}

function conditions(args: Args, versions: string, loadStart: number[]): string {
  const la = (v: number[]): string => v.map((x) => x.toFixed(1)).join(' / ');
  return [
    `${new Date().toISOString()}; ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}); simulator pinned ` +
    `to core 0, the client (k6 and the agent) to core 1` +
    `${NICE.length ? ', all at nice -10' : ' (nice -10 not permitted)'}` +
    `; load average (1/5/15 min) ${la(loadStart)} at the start, ${la(loadavg())} at the end.`,
    `${args.streams} concurrent streams (bench/k6/soak.js, per-vu-iterations, requests back to back) for ` +
    `${args.minutes} min; fixed timing TTFT ${TTFT_MS} ms, ITL ${ITL_MS} ms, ${args.tokens} output tokens per ` +
    `request. ${versions}.`,
    `RSS (VmRSS) and open fds of k6 and of the agent sampled every ${SAMPLE_MS / 1000} s from k6's spawn; growth = ` +
    `end of the load window vs the first sample at or after 1 min; PASS = k6 exit 0, the agent up throughout, no ` +
    `failed request, RSS and fd growth of each process under ${GROWTH_LIMIT}%. Duration is k6's wall time ` +
    '(start-up, graceful stop and summary included).',
  ].join('\n');
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
  const k6 = await prepareClient('soak', args.build);
  const loadStart = loadavg();
  const sim = await startSim();
  let row: Row;
  try {
    const model = ((await (await fetch(`${sim.url}/models`, { signal: AbortSignal.timeout(30_000) })).json()) as {
      data: { id: string }[];
    }).data[0]!.id;
    process.stderr.write(`soak: k6 + agent, ${args.streams} streams for ${args.minutes} min...\n`);
    row = await soak(k6, sim.url, model, args);
  } finally {
    sim.stop();
  }
  const versions = `${k6.version} (${k6.source}), stock; ${row.agent}`;
  process.stdout.write(`${conditions(args, versions, loadStart)}\n\n${render(row)}\n`);
  if (!row.pass) process.exitCode = 1;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  main().catch((e: unknown) => {
    process.stderr.write(`soak: ${(e as Error).message}\n`);
    killAll();
    process.exit(1);
  });
}
