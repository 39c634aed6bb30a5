// The real inference servers `npm run bench -- --target <name>` can start: llama.cpp's llama-server, vLLM's CPU
// build and SGLang, each with the project's tiny Qwen3 model, built or installed into the user's cache on first use.
// Runs in Node.

import { ensureLlamaArtefacts, startLlamaServer, type LlamaServer } from './llama-server';
import { ensureSglangArtefacts, startSglangServer, type SglangServer } from './sglang-server';
import { ensureVllmArtefacts, startVllmServer, type VllmServer } from './vllm-server';

export type RealServerTarget = 'llama' | 'vllm' | 'sglang';
export const REAL_SERVER_TARGETS: readonly RealServerTarget[] = ['llama', 'vllm', 'sglang'];

/** A server the bench started: stopped at the end of the run. */
export interface BuiltInServer {
  /** As run.json names it (target.server.name). */
  readonly name: string;
  /** http://127.0.0.1:<port> (no /v1). */
  readonly base: string;
  /** Its settings, recorded in run.json beside the name. */
  readonly settings: object;
  /** The context window its settings fix (llama-server's slot), or null: the bench asks /models. */
  readonly contextWindow: number | null;
  /** What the log says it is: the server and its settings. */
  readonly description: string;
  stop(): Promise<void>;
}

/** Installs the server and its model unless cached, starts it on a free loopback port, resolves once it serves. */
export async function startBuiltInServer(
  target: RealServerTarget, log: (line: string) => void,
): Promise<BuiltInServer> {
  if (target === 'llama') return builtInLlama(await startLlamaServer(await ensureLlamaArtefacts(log)));
  if (target === 'vllm') return builtInVllm(await startVllmServer(await ensureVllmArtefacts(log)));
  return builtInSglang(await startSglangServer(await ensureSglangArtefacts(log)));
}

/** llama-server as `--target llama` names and describes it; its window is its slot. */
export function builtInLlama(llama: Pick<LlamaServer, 'base' | 'settings' | 'stop'>): BuiltInServer {
  const { slots, contextPerSlot, threads } = llama.settings;
  const description = `llama-server (${slots} slots of ${contextPerSlot} tokens, ${threads} thread)`;
  const { base, settings, stop } = llama;
  return { name: 'llama-server', base, settings, contextWindow: contextPerSlot, description, stop };
}

/** vLLM as `--target vllm` names and describes it; its window is its max-model-len. */
export function builtInVllm(vllm: Pick<VllmServer, 'base' | 'settings' | 'stop'>): BuiltInServer {
  const { maxModelLen, kvCacheGiB, threads, cores } = vllm.settings;
  const where = cores > 0 ? ` on ${cores} core${cores > 1 ? 's' : ''}` : '';
  const description =
    `vLLM, CPU build (max-model-len ${maxModelLen}, ${kvCacheGiB} GiB KV cache, ${threads} thread${where})`;
  const { base, settings, stop } = vllm;
  return { name: 'vllm', base, settings, contextWindow: maxModelLen, description, stop };
}

/** SGLang as `--target sglang` names it; its window is what its /models states (max_model_len), as for any URL. */
export function builtInSglang(sglang: Pick<SglangServer, 'base' | 'settings' | 'stop'>): BuiltInServer {
  const { base, settings, stop } = sglang;
  return { name: 'sglang', base, settings, contextWindow: null, description: 'SGLang', stop };
}
