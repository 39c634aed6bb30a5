// Builds (once, cached outside the clone) and starts llama.cpp's llama-server with the project's tiny Qwen3 model.
// Runs in Node.
//
// The real inference server the tests and `npm run bench -- --target llama` run against, so the suite
// is checked by a server it did not write: its streams, usage, errors, /tokenize and /metrics.
// The server and the model come from scripts/ensure-llama-server.sh and scripts/ensure-llama-model.sh
// (each prints its artefact's path as its last line); this module only runs them and the server.

import type { ChildProcess } from 'node:child_process';
import { runEnsureScript } from './ensure-script';
import { launchServer, type LaunchedServer } from './server-launcher';

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


/** A running llama-server (orchestrator/server-launcher.ts): one process, the leader of its group. */
export interface LlamaServer extends LaunchedServer {
  readonly model: string;
  readonly settings: LlamaServerSettings;
  readonly child: ChildProcess;
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
  const server = await launchServer({
    name: 'llama-server', command: a.bin, args: (port) => llamaServerArgs(a, settings, port),
    // The tiny model loads in well under a second; 60 s is for a machine busy with other work.
    readyWithinMs: 60_000, pollMs: 200, stopGraceMs: 5000,
  });
  return { ...server, child: server.group.child, model: LLAMA_MODEL_ALIAS, settings };
}
