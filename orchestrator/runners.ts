// Runs one part as n k6 processes the way the k6-operator does: segments, paused, started together over k6's REST API.
// Runs in Node.
//
// Runner i of n gets exactly the operator's command line (lib/segments.ts operatorSegmentFlags, then the
// part's arguments, the script, --address, --paused, --tag instance_id=i, --tag testrun_name) and its own
// folder, runner-i/, for its CSV, summary and runner.json (docs/reference/contracts.md, "Split runs"). Once every
// runner has initialised its VUs and waits paused, each is resumed with PATCH /v1/status, as the
// operator's starter job does, so all runners' first cells start within milliseconds of each other.

import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { EXIT } from '../lib/exit-codes';
import { operatorSegmentFlags, parseSequence, StripedSequence } from '../lib/segments';
import { RUNNER_FILE, runnerOf } from '../lib/runner';
import { freePort } from '../node/free-port';
import { runArguments, type PartInvocation } from './engine';
import type { Plan } from '../lib/plan';

/** A runner's folder inside its part's folder. */
export function runnerDirName(runner: number): string {
  return `runner-${runner}`;
}

/**
 * The part as runner `i` of `n` runs it: its own folder for results, RESULTS_DIR pointing there, and its own
 * measuring agent when one is given (each runner has one beside it, as in the k6-operator's pods).
 */
export function runnerInvocation(part: PartInvocation, i: number, agentUrl?: string): PartInvocation {
  const partDir = path.join(part.partDir, runnerDirName(i));
  const env: Record<string, string> = { ...part.env, RESULTS_DIR: partDir };
  if (agentUrl) env.LLM_AGENT = agentUrl;
  return { ...part, partDir, env };
}

/**
 * `k6 run` arguments of runner i of n, in the k6-operator's order (pkg/resources/jobs/runner.go): --quiet,
 * the segment flags, the run's own arguments and script (`own`: runArguments of runnerInvocation), then
 * --address, --paused and the two tags.
 */
export function runnerArguments(
  own: readonly string[], i: number, n: number, address: string, testrunName: string,
): string[] {
  if (own[0] !== 'run' || own[1] !== '--quiet') throw new Error('runArguments no longer starts with run --quiet');
  return [
    'run', '--quiet', ...operatorSegmentFlags(i, n), ...own.slice(2),
    `--address=${address}`, '--paused', '--tag', `instance_id=${i}`, '--tag', `testrun_name=${testrunName}`,
  ];
}

/** k6's ExecutionStatusPausedBeforeRun (lib/execution.go): VUs initialised, waiting to be resumed. */
const PAUSED_BEFORE_RUN = 4;
/** What the k6-operator's starter sends each runner (the REST form of `k6 resume`). */
export const RESUME_BODY = JSON.stringify({ data: { type: 'status', id: 'default', attributes: { paused: false } } });

interface StatusAttributes {
  readonly status?: number;
  readonly paused?: boolean;
}

async function status(address: string): Promise<StatusAttributes | null> {
  try {
    const res = await fetch(`http://${address}/v1/status`, { signal: AbortSignal.timeout(5000) });
    if (!res.ok) return null;
    return ((await res.json()) as { data?: { attributes?: StatusAttributes } }).data?.attributes ?? null;
  } catch {
    return null; // Not listening yet.
  }
}

/**
 * Waits until every runner waits paused with its VUs initialised, then resumes them all at once.
 * Rejects when `alive()` turns false first (a runner exited during init: a bad plan, a missing file).
 */
export async function startTogether(addresses: readonly string[], alive: () => boolean, pollMs = 100): Promise<void> {
  const ready = new Set<string>();
  while (ready.size < addresses.length) {
    if (!alive()) throw new Error('a runner exited before the start');
    for (const address of addresses) {
      if (ready.has(address)) continue;
      const s = await status(address);
      if (s?.status === PAUSED_BEFORE_RUN && s.paused === true) ready.add(address);
    }
    if (ready.size < addresses.length) await new Promise((r) => setTimeout(r, pollMs));
  }
  const resumed = await Promise.all(addresses.map((address) =>
    fetch(`http://${address}/v1/status`, {
      method: 'PATCH', body: RESUME_BODY, headers: { 'content-type': 'application/json' },
      signal: AbortSignal.timeout(10_000),
    }).then((res) => res.ok, () => false)));
  const failed = addresses.filter((_, i) => !resumed[i]);
  if (failed.length > 0) throw new Error(`k6 at ${failed.join(', ')} did not accept PATCH /v1/status`);
}

/**
 * The runners' exit codes as one: a code other than ok or thresholds-failed wins (interrupted first, as
 * any runner stopped means the run was), else 99 when any runner's share failed a threshold. That 99
 * is only its share's: the bench replaces it with the verdict on the merged samples.
 */
export function combineExitCodes(codes: readonly number[]): number {
  const other = codes.filter((c) => c !== EXIT.ok && c !== EXIT.thresholdsFailed);
  if (other.includes(EXIT.interrupted)) return EXIT.interrupted;
  if (other.length > 0) return Math.max(...other);
  return codes.includes(EXIT.thresholdsFailed) ? EXIT.thresholdsFailed : EXIT.ok;
}

export interface EngineRun {
  readonly children: readonly ChildProcess[];
  /** Resolves once every process has exited: their exit codes combined, or why one could not start. */
  readonly exit: Promise<{ code: number; error: string | null }>;
}

export interface Launch {
  readonly program: string;
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  /** One entry per k6 process: its arguments and the folder for its engine-stdout.txt / engine-stderr.txt. */
  readonly runs: readonly { readonly args: readonly string[]; readonly dir: string }[];
  /** Each process's --address when they start paused (a split run), to resume them together; null otherwise. */
  readonly addresses: readonly string[] | null;
}

function codeOf(code: number | null, signal: NodeJS.Signals | null): number {
  return code ?? (signal ? EXIT.interrupted : EXIT.internal);
}

/** Starts the k6 processes of a part (one, or a split run's n) in their own process groups. */
export function launchEngine(launch: Launch): EngineRun {
  let startError: string | null = null;
  const exits: Promise<number>[] = [];
  const children = launch.runs.map((run) => {
    // Own process group: a terminal's Ctrl-C reaches the bench only, which forwards it once.
    const child = spawn(launch.program, [...run.args], {
      cwd: launch.cwd, env: launch.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.pipe(createWriteStream(path.join(run.dir, 'engine-stdout.txt')));
    child.stderr!.pipe(createWriteStream(path.join(run.dir, 'engine-stderr.txt')));
    exits.push(new Promise((resolve) => {
      child.on('error', (e) => {
        startError = `cannot start ${launch.program}: ${e.message}`;
        resolve(EXIT.internal);
      });
      child.on('close', (code, signal) => resolve(codeOf(code, signal)));
    }));
    return child;
  });
  let running = children.length;
  for (const child of children) child.on('close', () => running--);
  if (launch.addresses) {
    startTogether(launch.addresses, () => running === children.length).catch((e: Error) => {
      startError = `split run: ${e.message}; see each runner's engine-stderr.txt`;
      for (const child of children) child.kill('SIGTERM');
    });
  }
  const exit = Promise.all(exits).then((codes) => ({ code: combineExitCodes(codes), error: startError }));
  return { children, exit };
}

/**
 * The k6 processes of a part split `n` ways on this machine: each runner's folder (with runner.json
 * written ahead, so a runner killed before its end is still known), a free loopback port for its REST
 * API, and its arguments (`finish` adds what every k6 run of the part gets, such as remote write).
 */
export async function splitLaunch(
  part: PartInvocation, n: number, testrunName: string, finish: (args: string[]) => string[],
  agents: readonly string[] = [],
): Promise<Pick<Launch, 'runs' | 'addresses'>> {
  const runs: { args: string[]; dir: string }[] = [];
  const addresses: string[] = [];
  for (let i = 1; i <= n; i++) {
    const own = runnerInvocation(part, i, agents[i - 1]);
    mkdirSync(own.partDir, { recursive: true });
    const [segment, sequence] = operatorSegmentFlags(i, n).map((flag) => flag.slice(flag.indexOf('=') + 1));
    const runner = runnerOf({
      executionSegment: segment, executionSegmentSequence: sequence, tags: { instance_id: String(i) },
    });
    writeFileSync(path.join(own.partDir, RUNNER_FILE), JSON.stringify(runner!.info, null, 1));
    const address = `127.0.0.1:${await freePort()}`;
    addresses.push(address);
    runs.push({ args: runnerArguments(finish(runArguments(own)), i, n, address, testrunName), dir: own.partDir });
  }
  return { runs, addresses };
}

/** Each runner's share of a step's users in a run split `n` ways: k6's own split of a scenario's VUs. */
export function runnerShares(n: number): (runner: number, users: number) => number {
  const [, sequence] = operatorSegmentFlags(1, n).map((flag) => flag.slice(flag.indexOf('=') + 1));
  const striped = new StripedSequence(parseSequence(sequence!));
  return (runner, users) => striped.share(runner, users);
}

/**
 * A plan as a run split `n` ways sends it: each rate cell with at least one sender per runner (plan rate.senders), so
 * every runner sends its share of the cell's one schedule. A trace cell keeps its one sender: a conversation's turn
 * waits for the turn before it, which another runner could not see end.
 */
export function withSplitSenders(plan: Plan, n: number): Plan {
  if (n <= 1 || plan.script !== 'rate') return plan;
  const cells = plan.cells.map((cell) => {
    const a = cell.arrivals;
    return a && a.process !== 'trace' && a.senders < n ? { ...cell, arrivals: { ...a, senders: n } } : cell;
  });
  return { ...plan, cells };
}
