// Builds (once, cached outside the clone) and starts llama.cpp's llama-server with the project's tiny Qwen3 model.
// Runs in Node.
//
// The real inference server the tests and `npm run bench -- --target llama` run against, so the suite
// is checked by a server it did not write: its streams, usage, errors, /tokenize and /metrics.
// The server and the model come from scripts/ensure-llama-server.sh and scripts/ensure-llama-model.sh
// (each prints its artefact's path as its last line); this module only runs them and the server.

import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../node/free-port';
import { UserError } from '../lib/exit-codes';
import { runEnsureScript } from './ensure-script';

/** The name the server answers to (`--alias`): "qwen3" in it makes the suite count prompts with Qwen3's tokenizer. */
export const LLAMA_MODEL_ALIAS = 'qwen3-tiny-random';

export interface LlamaServerSettings {
  /** Parallel slots (`-np`): requests decoded together; more wait in the server's queue. */
  readonly slots: number;
  /** Tokens of context per slot: prompt plus output must fit, or the server answers 400. */
  readonly contextPerSlot: number;
  /** CPU threads for decoding and prompt processing (`-t`, `-tb`). */
  readonly threads: number;
  /**
   * Serve /v1/embeddings and /v1/rerank instead of generation (`--embeddings`, mean pooling: the tiny model is a
   * decoder, which has no pooling of its own).
   */
  readonly embeddings?: boolean;
}

/**
 * Four slots of 12K tokens: the quick llama plan's 8K short-chatbot prompt plus its output fits, and a
 * 16K prompt does not (the over-context test). One thread: the client keeps the other core.
 */
export const LLAMA_DEFAULTS: LlamaServerSettings = { slots: 4, contextPerSlot: 12_288, threads: 1 };

export interface LlamaArtefacts {
  readonly bin: string;
  readonly model: string;
}

/** Builds llama-server and generates the model unless both are cached; resolves to their paths. */
export async function ensureLlamaArtefacts(log: (line: string) => void): Promise<LlamaArtefacts> {
  const bin = await runEnsureScript('ensure-llama-server.sh', log);
  const model = await runEnsureScript('ensure-llama-model.sh', log);
  return { bin, model };
}


export interface LlamaServer {
  /** http://127.0.0.1:<port> (no /v1). */
  readonly base: string;
  readonly model: string;
  readonly settings: LlamaServerSettings;
  readonly child: ChildProcess;
  /** The last lines the server logged (its errors name the cause). */
  logTail(): string;
  /** SIGTERM (SIGKILL after 5 s), then resolves when the process has exited. */
  stop(): Promise<void>;
}

/** The server's command line: loopback only, metrics on, the slots and context of `settings`. */
export function llamaServerArgs(a: LlamaArtefacts, s: LlamaServerSettings, port: number): string[] {
  return [
    '-m', a.model, '--alias', LLAMA_MODEL_ALIAS, '--host', '127.0.0.1', '--port', String(port),
    '-np', String(s.slots), '-c', String(s.slots * s.contextPerSlot),
    '-t', String(s.threads), '-tb', String(s.threads), '--metrics', '--no-webui',
    ...(s.embeddings ? ['--embeddings', '--pooling', 'mean'] : []),
  ];
}

/** Starts llama-server on a free loopback port and resolves once /health says the model is loaded. */
export async function startLlamaServer(
  a: LlamaArtefacts, settings: LlamaServerSettings = LLAMA_DEFAULTS,
): Promise<LlamaServer> {
  const port = await freePort();
  // Detached, as the simulator's process: a Ctrl-C in the terminal reaches the bench, which stops the
  // server after the engine has finished what was in flight. Killed when this process exits; only a
  // SIGKILL of the caller can leave it running.
  const child = spawn(a.bin, llamaServerArgs(a, settings, port), { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.off('exit', killOnExit));
  let log = '';
  const keep = (d: Buffer) => (log = (log + d.toString()).slice(-8000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new UserError(`llama-server exited before it was ready: ${log.trim().split('\n').slice(-3).join(' | ')}`);
    }
    try {
      const res = await fetch(`${base}/health`, { signal: AbortSignal.timeout(2000) });
      if (res.ok) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      const lastLines = log.trim().split('\n').slice(-3).join(' | ');
      throw new UserError(`llama-server did not become ready within 60 s: ${lastLines}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    base,
    model: LLAMA_MODEL_ALIAS,
    settings,
    child,
    logTail: () => log,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
    },
  };
}
