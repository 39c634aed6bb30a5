// Starts the measuring agent (agent/, built by agent-build.ts) as its own process and stops it. Runs in Node.
//
// Started detached, in a process group of its own, as the simulator and llama-server are: a Ctrl-C in the
// terminal reaches the caller only, which stops the agent after k6 has finished what was in flight (the agent is
// measuring it). Killed when this process exits; only a SIGKILL of the caller can leave it running, and even then
// its stdin, a pipe from here, reaches end-of-file, and --exit-on-stdin-close ends it then.

import { spawn } from 'node:child_process';
import { EXIT, UserError } from '../lib/exit-codes';
import { ensureAgent } from './agent-build';
import type { BuildProgress } from './k6-install';

export interface AgentProcess {
  /** http://127.0.0.1:<port>, as the agent printed it (no trailing slash). */
  readonly url: string;
  readonly pid: number;
  /** Resolves when the agent has exited, however that came about. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** The last lines the agent wrote to stderr (its errors name the cause). */
  stderrTail(): string;
  /** SIGTERM to its process group (SIGKILL after 5 s), then resolves when it has exited. */
  stop(): Promise<void>;
}

export interface StartAgentOptions {
  readonly host?: string;
  /** 0 (the default): a free port, which the agent reports. */
  readonly port?: number;
  /** The agent's binary; default: ensureAgent (LLM_AGENT_BIN, or the build in .cache/agent/). */
  readonly bin?: string;
  /** Build progress, when the agent is built first. */
  readonly log?: BuildProgress;
  /** How long to wait for the listening line; default 20 s. */
  readonly startupTimeoutMs?: number;
  /** A command that execs the agent (`taskset -c 1`, as the benchmarks pin it); its pid stays the agent's. */
  readonly prefix?: readonly string[];
  /** The agent's environment (default: this process's): proxies and trusted CAs (SSL_CERT_FILE) are read from it. */
  readonly env?: NodeJS.ProcessEnv;
}

const STOP_GRACE_MS = 5_000;

/** The URL in the agent's start-up line `agent listening on http://127.0.0.1:PORT`, or null for any other line. */
export function parseListeningLine(line: string): string | null {
  const m = /^agent listening on (https?:\/\/\S+?)\/?\s*$/.exec(line);
  if (!m) return null;
  try {
    const url = new URL(m[1]!);
    // A port is what the caller needs; "--port 0" makes one up, so a line without it is not the start-up line.
    return url.port && url.pathname === '/' ? `${url.protocol}//${url.host}` : null;
  } catch {
    return null;
  }
}

function lastLines(text: string, n = 3): string {
  return text.trim().split('\n').slice(-n).join(' | ');
}

/** Sends `signal` to the agent's process group; a group already gone is not an error. */
function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: it has exited.
  }
}

/** Starts the agent and resolves once it has printed its listening line; a UserError when it does not. */
export async function startAgent(opts: StartAgentOptions = {}): Promise<AgentProcess> {
  const bin = opts.bin ?? (await ensureAgent(opts.log ?? (() => {})));
  const args = ['--host', opts.host ?? '127.0.0.1', '--port', String(opts.port ?? 0), '--exit-on-stdin-close'];
  const [program, ...lead] = [...(opts.prefix ?? []), bin];
  const child = spawn(program!, [...lead, ...args], { stdio: ['pipe', 'pipe', 'pipe'], detached: true, env: opts.env });
  let stderr = '';
  let stdout = '';
  // Both pipes are read to the end: an agent blocked on a full pipe would stall the requests it drives.
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-8000)));
  child.stdout.setEncoding('utf8');
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const pid = child.pid;
  const killOnExit = () => pid !== undefined && signalGroup(pid, 'SIGKILL');
  process.once('exit', killOnExit);
  void exited.then(() => process.off('exit', killOnExit));
  const timeoutMs = opts.startupTimeoutMs ?? 20_000;
  const url = await new Promise<string>((resolve, reject) => {
    let settled = false;
    const fail = (why: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (pid !== undefined) signalGroup(pid, 'SIGKILL');
      const said = stderr.trim() ? `: ${lastLines(stderr)}` : '';
      reject(new UserError(`the agent (${bin}) ${why}${said}`, EXIT.unreachable));
    };
    const late = `printed no "agent listening on ..." line within ${timeoutMs / 1000} s`;
    const timer = setTimeout(() => fail(late), timeoutMs);
    child.stdout.on('data', (d: string) => {
      if (settled) return;
      stdout = (stdout + d).slice(-8000);
      const found = stdout.split('\n').slice(0, -1).map(parseListeningLine).find((u) => u !== null);
      if (!found) return;
      settled = true;
      clearTimeout(timer);
      resolve(found);
    });
    child.once('error', (e) => fail(`did not start: ${e.message}`));
    // 'close' rather than 'exit': by then its last stderr lines have been read.
    child.once('close', (code, signal) => fail(`exited (${signal ?? `code ${code}`}) before listening`));
  });
  return {
    url, pid: pid!, exited, stderrTail: () => stderr,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      signalGroup(pid!, 'SIGTERM');
      const timer = setTimeout(() => signalGroup(pid!, 'SIGKILL'), STOP_GRACE_MS);
      await exited;
      clearTimeout(timer);
    },
  };
}
