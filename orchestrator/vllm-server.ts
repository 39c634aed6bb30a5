// Installs (once, cached outside the clone) and starts vLLM's CPU build with the project's tiny Qwen3 model.
// Runs in Node.
//
// The real vLLM, so what the suite assumes of the server it is most often pointed at is checked by vLLM's own
// code: its streams (a last chunk with usage and no choices), usage.prompt_tokens_details, its 400 for an
// over-long prompt, and its /metrics. vLLM and the model come from scripts/ensure-vllm.sh and
// scripts/ensure-hf-model.sh (each prints its artefact's path as its last line); this module runs them and the server.

import { runEnsureScript } from './ensure-script';
import { launchServer, type LaunchedServer } from './server-launcher';
import { LLAMA_MODEL_ALIAS } from './llama-server';

/** The name it answers to, llama-server's: "qwen3" in it makes the suite count prompts with Qwen3's tokenizer. */
export const VLLM_MODEL_NAME = LLAMA_MODEL_ALIAS;

export interface VllmServerSettings {
  /** `--max-model-len`: prompt plus output must fit, or vLLM answers 400. */
  readonly maxModelLen: number;
  /** VLLM_CPU_KVCACHE_SPACE, GiB of RAM for the KV cache (unset, vLLM takes a share of all the RAM). */
  readonly kvCacheGiB: number;
  /** OpenMP threads of the model's worker (OMP_NUM_THREADS); vLLM's own pinning is off (VLLM_CPU_OMP_THREADS_BIND). */
  readonly threads: number;
  /**
   * CPUs every process of the server may run on: the last `cores` of those this process may use (0: no pinning).
   * Its API server and engine core keep a core busy beside the worker's threads: unpinned, on 2 cores, they took
   * the client's, and every cell of a sweep was client-bound (the agent read tokens late).
   */
  readonly cores: number;
}

/**
 * A 16K window: the llama plan's prompts with their output fit, a 16K prompt does not (vLLM's 400). 1 GiB of KV
 * cache holds 500K tokens of this model (2 KiB a token). One thread on one core: the client keeps the other core.
 */
export const VLLM_DEFAULTS: VllmServerSettings = { maxModelLen: 16_384, kvCacheGiB: 1, threads: 1, cores: 1 };

export interface VllmArtefacts {
  /** The launcher scripts/ensure-vllm.sh installs: `<launcher> serve MODEL ...` as the `vllm` command. */
  readonly launcher: string;
  /** The Hugging Face-format model directory. */
  readonly modelDir: string;
}

/** Installs vLLM and generates the model unless both are cached; resolves to their paths. */
export async function ensureVllmArtefacts(log: (line: string) => void): Promise<VllmArtefacts> {
  const launcher = await runEnsureScript('ensure-vllm.sh', log);
  const modelDir = await runEnsureScript('ensure-hf-model.sh', log);
  return { launcher, modelDir };
}

/** A running vLLM (orchestrator/server-launcher.ts): its group is the API server, its engine core and worker. */
export interface VllmServer extends LaunchedServer {
  readonly model: string;
  readonly settings: VllmServerSettings;
}

/** `vllm serve` arguments: loopback only, eager mode, usage with cached-token counts, the window of `s`. */
export function vllmServerArgs(a: VllmArtefacts, s: VllmServerSettings, port: number): string[] {
  return [
    'serve', a.modelDir, '--served-model-name', VLLM_MODEL_NAME, '--host', '127.0.0.1', '--port', String(port),
    '--max-model-len', String(s.maxModelLen),
    // Eager: starts in about 60 s instead of about 120 s (no torch.compile), as fast per token for this model.
    '--enforce-eager',
    // usage.prompt_tokens_details.cached_tokens: the prefix-cache hits the suite counts (llm_cached_tokens).
    '--enable-prompt-tokens-details',
  ];
}

/** The environment: the cache, threads and cores of `s`, everything on loopback and offline, no usage statistics. */
export function vllmServerEnv(s: VllmServerSettings, base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return {
    ...base,
    VLLM_CPU_KVCACHE_SPACE: String(s.kvCacheGiB),
    VLLM_CPU_OMP_THREADS_BIND: 'nobind',
    OMP_NUM_THREADS: String(s.threads),
    K6_LLM_VLLM_CORES: String(s.cores), // read by scripts/vllm-launcher.py
    // The engine's internal queues bind to this address; unset, vLLM picks the host's outward one.
    VLLM_HOST_IP: '127.0.0.1',
    HF_HUB_OFFLINE: '1',
    VLLM_NO_USAGE_STATS: '1',
    DO_NOT_TRACK: '1',
  };
}

/** Starts vLLM on a free loopback port and resolves once /health answers (the engine is up, the model loaded). */
export async function startVllmServer(
  a: VllmArtefacts, settings: VllmServerSettings = VLLM_DEFAULTS,
): Promise<VllmServer> {
  const server = await launchServer({
    name: 'vLLM', command: a.launcher, args: (port) => vllmServerArgs(a, settings, port), env: vllmServerEnv(settings),
    // About 60 s on 2 cores (imports, engine start, KV cache); a slower or busier machine gets five times that.
    readyWithinMs: 300_000,
    // A stop takes under a second (2026-12-07); with its API server gone, its engine and worker outlast a SIGTERM
    // and wait out the grace for the SIGKILL. Nothing of it is kept that a SIGKILL would lose.
    stopGraceMs: 2_000,
  });
  return { ...server, model: VLLM_MODEL_NAME, settings };
}
