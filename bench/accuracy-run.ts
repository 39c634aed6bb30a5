// What every client of the accuracy study shares when it runs (bench/accuracy.ts): a command pinned to the client
// core, its processes' CPU and peak RSS sampled meanwhile, and the CPU charged per token over the streaming window the
// ground truth gives. Runs in Node.

import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { cpuAt, NICE, SAMPLE_MS, sampleProcess, type ProcSample } from './proc-sample';

export const SIM_CORE = '0';
export const CLIENT_CORE = '1';
/** The prefix that pins a command to the client core (at nice -10 when allowed). */
export const CLIENT_PREFIX: readonly string[] = ['taskset', '-c', CLIENT_CORE, ...NICE];
export const SIM_PREFIX: readonly string[] = ['taskset', '-c', SIM_CORE, ...NICE];

/** A process's CPU over a window and its peak RSS. */
export interface ProcUse {
  readonly samples: readonly ProcSample[];
  readonly peakRssKb: number;
}

export interface Exit {
  readonly code: number | null;
  /** The last two lines it wrote. */
  readonly tail: string;
  /** The command's process and every descendant it had when sampled, summed. */
  readonly use: ProcUse;
}

/** The pids under `root` (itself included), from /proc's parent links. */
function descendants(root: number): number[] {
  const parent = new Map<number, number>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      parent.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // Gone between the listing and the read.
    }
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) for (const [p, pp] of parent) if (pp === out[i]) out.push(p);
  return out;
}

/**
 * Samples a process tree: every SAMPLE_MS the tree is listed again (a Python client starts worker processes), each
 * member sampled by sampleProcess. CPU is summed over members (a member that ended keeps its last figure); peak RSS
 * is the sum of the members' peaks, an upper bound of the tree's.
 */
function sampleTree(root: number): { stop: () => ProcUse } {
  const members = new Map<number, ReturnType<typeof sampleProcess>>();
  const look = (): void => {
    for (const pid of descendants(root)) if (!members.has(pid)) members.set(pid, sampleProcess(pid));
  };
  look();
  const timer = setInterval(look, SAMPLE_MS);
  return {
    stop: () => {
      clearInterval(timer);
      const each = [...members.values()].map((m) => m.stop());
      const times = each.flatMap((e) => e.samples.map((s) => s.t)).sort((a, b) => a - b);
      const samples = times.map((t) => ({
        t,
        cpuMs: each.reduce((a, e) => a + (e.samples.length > 0 && t >= e.samples[0]!.t ? cpuAt(e.samples, t) : 0), 0),
      }));
      return { samples, peakRssKb: each.reduce((a, e) => a + e.peakRssKb, 0) };
    },
  };
}

/** Runs a command pinned to the client core; SIGKILL after `timeoutMs` (taskset and nice exec: the pid is its own). */
export function runPinned(
  command: readonly string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<Exit> {
  return new Promise((res) => {
    const all = [...CLIENT_PREFIX, ...command];
    const child = spawn(all[0]!, all.slice(1), {
      cwd: opts.cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...opts.env },
    });
    let tail = '';
    const keep = (d: Buffer): void => void (tail = (tail + d.toString()).slice(-4000));
    child.stdout!.on('data', keep);
    child.stderr!.on('data', keep);
    const sampler = child.pid === undefined ? null : sampleTree(child.pid);
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const last = tail.trim().split('\n').slice(-2).join(' ');
      res({ code, tail: signal ? `${signal}: ${last}` : last, use: sampler?.stop() ?? { samples: [], peakRssKb: 0 } });
    });
  });
}

/** A process's CPU ms over [fromMs, toMs] (epoch), the end taken two samples late so the last reads count. */
export function cpuMsOver(use: ProcUse, fromMs: number, toMs: number): number {
  return cpuAt(use.samples, toMs + 2 * SAMPLE_MS) - cpuAt(use.samples, fromMs);
}

/** The streaming window of some ground-truth records: first arrival to last end, epoch ms. */
export function streamingWindow(
  truth: readonly { readonly arrivalEpochMs: number; readonly endEpochMs: number | null }[],
): { fromMs: number; toMs: number } {
  let fromMs = Infinity;
  let toMs = -Infinity;
  for (const t of truth) {
    fromMs = Math.min(fromMs, t.arrivalEpochMs);
    toMs = Math.max(toMs, t.endEpochMs ?? t.arrivalEpochMs);
  }
  return { fromMs, toMs };
}
