// Helpers for end-to-end tests: run a built bundle on a stock k6 with the measuring agent beside it, against a
// simulator, the way `npm run bench` does.
// Runs in Node (vitest).

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import Papa from 'papaparse';
import { agentPriorityPrefix, type AgentPriority } from '../../orchestrator/agent-priority';
import { startAgent, type AgentProcess } from '../../orchestrator/agent-process';
import { bundlePath, k6Engine, runArguments, type Engine } from '../../orchestrator/engine';
import { cachedUpstreamK6, findOnPath } from '../../orchestrator/k6-install';
import { corePlan, startSimChild, type CorePlan, type SimChild } from '../../sim/child';
import { nodeProgram } from '../../node/node-programs';
import { STALL_LIMIT_MS } from '../../analysis/client-bound';
import { agentsStallMs } from '../../orchestrator/machine-stall';
import { SAMPLE_METADATA } from '../../lib/metrics';

export const ROOT = path.resolve(import.meta.dirname, '..', '..');

export interface RunResult {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
  readonly dir: string;
}

export function tempDir(prefix: string): string {
  return mkdtempSync(path.join(tmpdir(), `k6llm-${prefix}-`));
}

/**
 * A stock k6, found as the bench finds it (K6_BIN, PATH, the cached upstream build that `npm test` makes first with
 * `npm run k6:ensure`). A missing k6 fails the test rather than skipping it: it is what users run.
 */
export function testEngine(): Engine {
  if (process.env.K6_BIN) return k6Engine(process.env.K6_BIN, 'K6_BIN');
  const onPath = findOnPath('k6');
  if (onPath) return k6Engine(onPath, 'PATH');
  const cached = cachedUpstreamK6();
  if (!cached) throw new Error('no k6: npm test installs one first (npm run k6:ensure)');
  return k6Engine(cached, 'cached upstream build');
}

/**
 * The tests' agents run at real-time priority where the machine allows, as `--agent-priority auto` does: CI's 2-core
 * machines are shared by two test files and their servers, and an agent at normal priority there read tokens
 * together often enough to make steps client-bound (CI, 2026-12-05), so they decided no capacity.
 */
const TEST_AGENT_PRIORITY: AgentPriority = 'auto';
const testAgentPrefix = (): readonly string[] => agentPriorityPrefix(TEST_AGENT_PRIORITY).prefix;

/**
 * A simulator whose record (--ground-truth) judges a client to the millisecond, at the tests' agents' priority: with
 * three files and a real server beside it, its event loop stamped a rate search's arrivals late (CI, 2026-12-07: a
 * runner's p99 lateness at the server 59 ms against a client lag of 42), so the record faulted a client that had sent
 * on time. Ahead of the load, its stamps stay the bound the client is held to.
 */
export function startRecordingSim(args: readonly string[]): Promise<SimChild> {
  return startSimChild(args, testAgentPrefix());
}

let sharedAgent: Promise<AgentProcess> | null = null;

/** The measuring agent of this test file, started on first use (killed when the file's process exits). */
export async function testAgent(): Promise<string> {
  sharedAgent ??= startAgent({ prefix: testAgentPrefix() });
  return (await sharedAgent).url;
}

/** A measuring agent of the caller's own (one per k6 runner in split tests); stop it when done. */
export function startTestAgent(env?: NodeJS.ProcessEnv): Promise<AgentProcess> {
  return startAgent({ env, prefix: testAgentPrefix() });
}

export interface RunOptions {
  /** Extra environment of the engine process (not -e values). */
  readonly extraEnv?: Record<string, string>;
  /** Called with the child process once started (to send signals). */
  readonly onStart?: (child: import('node:child_process').ChildProcess) => void;
  /** Runs k6 under another command, e.g. ['taskset', '-c', '1'] to pin it to a core. */
  readonly prefix?: readonly string[];
  /** The measuring agent to use instead of the file's shared one (e.g. one pinned beside k6). */
  readonly agentUrl?: string;
}

/** Runs an entry script's bundle on k6 with a plan and the file's agent, as the bench does; resolves when k6 exits. */
export async function runScript(
  script: string, plan: object, env: Record<string, string>, opts: RunOptions = {},
): Promise<RunResult> {
  const dir = tempDir(script);
  const planFile = path.join(dir, 'plan-input.json');
  writeFileSync(planFile, JSON.stringify(plan));
  const engine = testEngine();
  const args = runArguments({
    bundle: bundlePath(script, path.join(ROOT, 'dist')), partDir: dir,
    env: { PLAN: planFile, RESULTS_DIR: dir, LLM_AGENT: opts.agentUrl ?? (await testAgent()), ...env },
    tags: { testid: 'e2e' },
  });
  const [program, ...lead] = [...(opts.prefix ?? []), ...engine.command];
  return new Promise((resolve, reject) => {
    const child = spawn(program!, [...lead, ...args], {
      cwd: ROOT, env: { ...process.env, ...opts.extraEnv }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    opts.onStart?.(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ exitCode: code ?? -1, stdout, stderr, dir }));
  });
}

/**
 * runScript, run once more when the machine stalled under the agent for STALL_LIMIT_MS or more while it ran (the
 * agent's own meter, GET /stalls): a paused machine stretches and cuts the run's requests, so a run that had to hold
 * turns, samples or a step's figures is measured again rather than judged. The second run is judged whatever it saw.
 */
export async function runScriptUnstalled(
  script: string, plan: object, env: Record<string, string>, opts: RunOptions = {},
): Promise<RunResult> {
  const agentUrl = opts.agentUrl ?? (await testAgent());
  for (let attempt = 1; ; attempt++) {
    const fromMs = Date.now();
    const run = await runScript(script, plan, env, { ...opts, agentUrl });
    const stallMs = await agentsStallMs([agentUrl], fromMs, Date.now());
    if (attempt === 2 || stallMs === null || stallMs < STALL_LIMIT_MS) return run;
    console.log(`${script}: the machine stalled ${Math.round(stallMs)} ms under the agent during the run: run again`);
  }
}

/** Writes a plan input as dir/plan.json, for --plan; returns the file. */
export function writePlan(dir: string, plan: object): string {
  const file = path.join(dir, 'plan.json');
  writeFileSync(file, JSON.stringify(plan));
  return file;
}

export function readJson<T = unknown>(file: string): T {
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

export interface CsvRow {
  readonly [column: string]: string;
}

export function readCsv(file: string): { header: string[]; rows: CsvRow[] } {
  const parsed = Papa.parse<CsvRow>(readFileSync(file, 'utf8'), { header: true, skipEmptyLines: true });
  return { header: parsed.meta.fields ?? [], rows: parsed.data };
}

/** extra_tags "k=v&k=v" (no stable order in k6) as an object. */
export function extraTags(row: CsvRow): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (row.extra_tags ?? '').split('&')) {
    if (!pair) continue;
    const at = pair.indexOf('=');
    out[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return out;
}

/** The server's x-request-id a sample names in k6's metadata column ("k=v&k=v"); null when it names none. */
export function sampleRequestId(row: CsvRow): string | null {
  const key = `${SAMPLE_METADATA.requestId}=`;
  const pair = (row.metadata ?? '').split('&').find((p) => p.startsWith(key));
  return pair === undefined ? null : pair.slice(key.length);
}

/** A lookup of the server's record of the request a sample names (sampleRequestId); undefined where it has none. */
export function recordOfSample<T extends { readonly requestId: string }>(
  truth: readonly T[],
): (row: CsvRow) => T | undefined {
  const byId = new Map(truth.map((t) => [t.requestId, t]));
  return (row) => byId.get(sampleRequestId(row) ?? '');
}

export interface CliRun {
  readonly exitCode: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `npm run bench` (scripts/bench.ts) as a user would; `onStart` gets the pid, to signal it. */
export function runBenchCli(
  args: readonly string[], env: Record<string, string> = {}, onStart?: (pid: number) => void,
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const [program, ...lead] = nodeProgram('bench');
    const child = spawn(program!, [...lead, ...args], {
      cwd: ROOT, env: { LLM_AGENT_PRIORITY: TEST_AGENT_PRIORITY, ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ exitCode: code ?? -1, stdout, stderr }));
    if (onStart && child.pid) onStart(child.pid);
  });
}

/** The body the k6-operator's starter sends each runner (PATCH /v1/status: the REST form of `k6 resume`). */
export const OPERATOR_RESUME = '{"data":{"attributes":{"paused":false},"id":"default","type":"status"}}';

async function k6Status(address: string): Promise<{ status: number; paused: boolean } | null> {
  try {
    const res = await fetch(`http://${address}/v1/status`);
    return ((await res.json()) as { data: { attributes: { status: number; paused: boolean } } }).data.attributes;
  } catch {
    return null;
  }
}

/**
 * The tests' own k6-operator starter: waits until every k6 at `addresses` waits paused with its VUs
 * initialised (status 4, PausedBeforeRun), calls `beforeResume`, then resumes them all with the operator's PATCH.
 */
export async function resumeWhenPaused(
  addresses: readonly string[], beforeResume: () => void = () => {},
): Promise<void> {
  for (;;) {
    const states = await Promise.all(addresses.map(k6Status));
    if (states.every((s) => s?.paused === true && s.status === 4)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  beforeResume();
  await Promise.all(addresses.map((a) => fetch(`http://${a}/v1/status`, { method: 'PATCH', body: OPERATOR_RESUME })));
}

/** Runs a stock k6 with `args` and `env`; keeps its stderr in `stderrFile`; resolves to its exit code. */
export function runK6(args: readonly string[], env: NodeJS.ProcessEnv, stderrFile: string): Promise<number> {
  const child = spawn(testEngine().command[0]!, [...args], { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => {
    writeFileSync(stderrFile, stderr);
    resolve(code ?? -1);
  }));
}

/** The simulator's and the client's cores for a timing test, as the benchmarks pin them (sim/child.ts corePlan). */
export function coreSplit(): CorePlan {
  return corePlan(cpus().length, spawnSync('taskset', ['-c', '0', 'true']).status === 0);
}
