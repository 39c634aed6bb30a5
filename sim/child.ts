// Starts the simulator as its own process (the scripts/sim.ts CLI) and stops it. Runs in Node.
// The bench and the benchmarks serve requests from it.
//
// Its own process, so its event loop (the schedule of every token it writes) shares nothing with the
// caller's: an in-process simulator stalled whenever the bench parsed output or collected garbage,
// and the run measured the stall as TTFT. Started detached, so a Ctrl-C in the terminal reaches the
// caller, which stops it after the batcher has finished what was in flight, and with an IPC channel,
// whose closing stops it when the caller dies without stopping it.

import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { EmbedTruthRecord, GroundTruthRecord } from './ground-truth';
import { nodeProgram } from '../node/node-programs';

export interface SimChild {
  /** http://127.0.0.1:<port> (no /v1). */
  readonly base: string;
  readonly child: ChildProcess;
  /** Seed of the step-time noise as the simulator printed it (--noise, --noise-seed), or null: no noise. */
  readonly noiseSeed: number | null;
  /** SIGTERM, then resolves when the process has exited. */
  stop(): Promise<void>;
}

// `--import tsx` resolves from the working directory: the repository's, wherever the caller runs.
const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * `args` are the CLI's flags (--profile, --fixed-ttft-ms, --noise, ...); it listens on a free loopback port.
 * `prefix` runs it under another command, e.g. ['taskset', '-c', '0'] to pin it to a core.
 */
export async function startSimChild(args: readonly string[], prefix: readonly string[] = []): Promise<SimChild> {
  const command = [...prefix, ...nodeProgram('sim'), '--port', '0', ...args];
  const child = spawn(command[0]!, command.slice(1), {
    cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe', 'ipc'], detached: true,
  });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
  // The start-up line: `sim: serving <model> (..., noise on: ..., seed N, ...) at http://127.0.0.1:<port>/v1`.
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (/http:\/\/127\.0\.0\.1:\d+\/v1/.test(out)) resolve(out);
    });
    child.once('error', reject);
    child.once('exit', (code) =>
      reject(
        new Error(`the simulator exited with code ${code} before listening: ${stderr.trim().split('\n').pop() ?? ''}`),
      ),
    );
  });
  const base = /(http:\/\/127\.0\.0\.1:\d+)\/v1/.exec(line)![1]!;
  const seed = /noise on: .*?seed (\d+)/.exec(line);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    base,
    child,
    noiseSeed: seed ? Number(seed[1]) : null,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

export interface CorePlan {
  readonly sim: readonly string[];
  readonly client: readonly string[];
  /** Where what ran, for the conditions line. */
  readonly note: string;
}

/**
 * The simulator on the first core, k6 and the agent on the last (the benchmarks and the timing tests run them so:
 * on a shared core the simulator reaches its handlers late, where its own clock starts, and the client measures the
 * wait); nothing pinned on one core or without taskset. `note` says where what ran.
 */
export function corePlan(cores: number, taskset: boolean): CorePlan {
  if (cores < 2) return { sim: [], client: [], note: 'one core: nothing pinned (simulator, k6 and agent share it)' };
  if (!taskset) return { sim: [], client: [], note: 'taskset missing: nothing pinned, the OS placed every process' };
  const last = String(cores - 1);
  return {
    sim: ['taskset', '-c', '0'], client: ['taskset', '-c', last],
    note: `simulator pinned to core 0, k6 and the agent to core ${last}`,
  };
}

/** GET /debug/ground-truth of a simulator started with --ground-truth; `base` with or without its /v1. */
export async function fetchGroundTruth(base: string): Promise<GroundTruthRecord[]> {
  const res = await fetch(`${base.replace(/\/v1$/, '')}/debug/ground-truth`);
  return ((await res.json()) as { records: GroundTruthRecord[] }).records;
}

/** GET /debug/ground-truth's embeddings and rerank answers (sim/ground-truth.ts EmbedTruthRecord). */
export async function fetchEmbedTruth(base: string): Promise<EmbedTruthRecord[]> {
  const res = await fetch(`${base.replace(/\/v1$/, '')}/debug/ground-truth`);
  return ((await res.json()) as { embeds: EmbedTruthRecord[] }).embeds;
}

/** DELETE /debug/ground-truth: the records so far are dropped, so the next read holds only what follows. */
export async function clearGroundTruth(base: string): Promise<void> {
  await fetch(`${base.replace(/\/v1$/, '')}/debug/ground-truth`, { method: 'DELETE' });
}
