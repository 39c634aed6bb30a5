// The one launcher of the real inference servers (llama.cpp's llama-server, vLLM, SGLang): start on a free loopback
// port as a process group of its own, wait until /health answers, keep the log's tail, stop the whole group.
// orchestrator/llama-server.ts, vllm-server.ts and sglang-server.ts are configurations of it: their command line,
// environment and how long their start may take. Runs in Node (Linux).

import { freePort } from '../node/free-port';
import { UserError } from '../lib/exit-codes';
import { DEFAULT_STOP_GRACE_MS, spawnGroup, type GroupChild } from './process-group';

export interface LaunchSpec {
  /** The server's name in messages: "vLLM exited before it was ready: ...". */
  readonly name: string;
  readonly command: string;
  /** Its arguments, given the port it is to listen on (127.0.0.1 only). */
  readonly args: (port: number) => string[];
  readonly env?: NodeJS.ProcessEnv;
  /** How long /health may take to answer 200 before the start is given up. */
  readonly readyWithinMs: number;
  /** How often /health is asked; default 500 ms. */
  readonly pollMs?: number;
  /** SIGTERM to SIGKILL on stop; default DEFAULT_STOP_GRACE_MS. */
  readonly stopGraceMs?: number;
}

export interface LaunchedServer {
  /** http://127.0.0.1:<port> (no /v1). */
  readonly base: string;
  /** The server's process group (its workers, engine and tokenizer processes). */
  readonly group: GroupChild;
  /** The last lines the server logged (its errors name the cause). */
  logTail(): string;
  /** SIGTERM to SIGKILL on stop, as its spec says: whoever stops its group by id waits as long. */
  readonly stopGraceMs: number;
  /** SIGTERM to every process of the server (SIGKILL after the grace); resolves when none is left. */
  stop(): Promise<void>;
}

/** Starts the server and resolves once /health answers 200; a clear one-line error if it exits or is late. */
export async function launchServer(spec: LaunchSpec): Promise<LaunchedServer> {
  const port = await freePort();
  const group = spawnGroup(spec.command, spec.args(port), spec.env ?? process.env);
  const base = `http://127.0.0.1:${port}`;
  const stopGraceMs = spec.stopGraceMs ?? DEFAULT_STOP_GRACE_MS;
  const stop = () => group.stop(stopGraceMs);
  const lastLines = () => group.logTail().trim().split('\n').slice(-3).join(' | ');
  const deadline = Date.now() + spec.readyWithinMs;
  for (;;) {
    if (group.exited()) {
      await stop();
      throw new UserError(`${spec.name} exited before it was ready: ${lastLines()}`);
    }
    if (await healthy(base)) break;
    if (Date.now() > deadline) {
      await group.stop(0);
      throw new UserError(`${spec.name} did not become ready within ${spec.readyWithinMs / 1000} s: ${lastLines()}`);
    }
    await new Promise((r) => setTimeout(r, spec.pollMs ?? 500));
  }
  return { base, group, logTail: () => group.logTail(), stopGraceMs, stop };
}

async function healthy(base: string): Promise<boolean> {
  try {
    const res = await fetch(`${base}/health`, { signal: AbortSignal.timeout(2000) });
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false; // not listening yet
  }
}
