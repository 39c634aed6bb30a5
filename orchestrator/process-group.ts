// Starts a server as the leader of a process group of its own and stops the whole group. Runs in Node (Linux).
//
// Python servers (vLLM, SGLang) start their engine, workers and tokenizers as child processes: stopping only the
// process we started can leave those running, holding memory, cores and the port. Every descendant inherits the
// group unless it makes a session of its own, so signalling the group reaches them all.

import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface GroupChild {
  readonly child: ChildProcess;
  /** The process group id: the leader's pid. */
  readonly pgid: number;
  /** The last output lines (stdout and stderr together), for error messages. */
  logTail(): string;
  exited(): boolean;
  /** SIGTERM to the group, SIGKILL to it after `graceMs`; resolves when no process of the group is left. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * The live (not zombie) processes of group `pgid`, from /proc. A zombie has exited and only waits for its parent to
 * reap it, which a container's init may never do; counting zombies would make stop() wait for nothing.
 */
export function groupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    // The command name (field 2) is in parentheses and may hold spaces: the fields after it start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] !== 'Z' && Number(fields[2]) === pgid) members.push(Number(entry));
  }
  return members;
}

/** How long a stop waits after the SIGTERM before the SIGKILL, unless told otherwise. */
export const DEFAULT_STOP_GRACE_MS = 10_000;

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: nothing of the group is left.
  }
}

/**
 * Spawns `command` detached, so it leads a new process group: a Ctrl-C in the terminal reaches the caller, which
 * stops the server when it is done with it. The group is SIGKILLed when this process exits; only a SIGKILL of the
 * caller can leave it running.
 */
export function spawnGroup(command: string, args: readonly string[], env: NodeJS.ProcessEnv): GroupChild {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], detached: true, env });
  const pgid = child.pid;
  if (pgid === undefined) throw new Error(`cannot start ${command}`);
  const killOnExit = () => signalGroup(pgid, 'SIGKILL');
  process.once('exit', killOnExit);
  let log = '';
  const keep = (d: Buffer) => (log = (log + d.toString()).slice(-16_000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const leaderExited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const stop = async (graceMs = DEFAULT_STOP_GRACE_MS) => {
    await stopGroup(pgid, graceMs, () => !exited());
    await leaderExited;
    process.off('exit', killOnExit);
  };
  return { child, pgid, logTail: () => log, exited, stop };
}

/**
 * SIGTERM to group `pgid`, SIGKILL to it once `graceMs` have passed with a process of it left (or `running` true);
 * resolves when none is left, or 5 s after the SIGKILL. Stops a group this process did not start, by its id alone.
 */
export async function stopGroup(
  pgid: number, graceMs = DEFAULT_STOP_GRACE_MS, running: () => boolean = () => false,
): Promise<void> {
  const alive = () => running() || groupMembers(pgid).length > 0;
  signalGroup(pgid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && alive()) await sleep(100);
  if (alive()) signalGroup(pgid, 'SIGKILL');
  for (let i = 0; i < 50 && groupMembers(pgid).length > 0; i++) await sleep(100);
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
