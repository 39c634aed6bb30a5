// Installs (once, cached outside the clone) and starts SGLang on the CPU with the project's tiny Qwen3 model.
// Runs in Node.
//
// The real SGLang server, so what the suite assumes of it is checked by SGLang's own code: its streams (several
// tokens in one chunk under load, a `matched_stop` field, usage in a last chunk without choices), its cached-token
// report, its 400 for an over-long prompt and its `sglang:` metrics. SGLang and the model come from
// scripts/ensure-sglang.sh and scripts/ensure-hf-model.sh (each prints its artefact's path as its last line); this
// module runs them and the server. PyPI has no CPU build of SGLang's kernels (sgl_kernel): the venv carries the
// project's stand-in for the one function the CPU path calls (scripts/sglang-cpu/sgl_kernel), so results from this
// server are those of the unmodified SGLang with that function in plain torch.

import { runEnsureScript } from './ensure-script';
import { launchServer, type LaunchedServer } from './server-launcher';
import { LLAMA_MODEL_ALIAS } from './llama-server';

/** The name the server answers to, llama-server's: its "qwen3" makes the suite count prompts with Qwen3's tokenizer. */
export const SGLANG_MODEL_NAME = LLAMA_MODEL_ALIAS;

export interface SglangServerSettings {
  /** `--context-length`: prompt plus output must fit, or SGLang answers 400. /v1/models states it as max_model_len. */
  readonly contextLength: number;
  /** `--max-total-tokens`: the KV cache's size in tokens (unset, SGLang sizes it from most of the RAM). */
  readonly maxTotalTokens: number;
  /** OpenMP threads of the model's forward pass (OMP_NUM_THREADS; without AMX SGLang does not pin them to cores). */
  readonly threads: number;
  /**
   * CPUs every process of the server may run on: the last `cores` of those this process may use (0: no pinning).
   * Its HTTP server and detokenizer busy a core beside the scheduler's forward pass; unpinned, on 2 cores, they
   * took the client's core and the `llama` plan's sweep marked 4 cells of 6 client-bound.
   */
  readonly cores: number;
}

/**
 * A 16K window, as vLLM's: the llama plan's prompts with their output fit, a 16K prompt does not. 131,072 tokens of
 * KV cache (256 MiB, 2 KiB a token for this model) hold 16 users of the llama plan's 4K prompts with room to spare,
 * so the search meets the server's compute limit, not its cache. One thread and one core: the client keeps the other.
 */
export const SGLANG_DEFAULTS: SglangServerSettings = {
  contextLength: 16_384, maxTotalTokens: 131_072, threads: 1, cores: 1,
};

export interface SglangArtefacts {
  /** The launcher scripts/ensure-sglang.sh installs: `<launcher> --model-path DIR ...`, SGLang's launch_server. */
  readonly launcher: string;
  /** The Hugging Face-format model directory. */
  readonly modelDir: string;
}

/** Installs SGLang and generates the model unless both are cached; resolves to their paths. */
export async function ensureSglangArtefacts(log: (line: string) => void): Promise<SglangArtefacts> {
  const launcher = await runEnsureScript('ensure-sglang.sh', log);
  const modelDir = await runEnsureScript('ensure-hf-model.sh', log);
  return { launcher, modelDir };
}

/**
 * A running SGLang: its process group is the HTTP server with its tokenizer, the scheduler and the detokenizer
 * (orchestrator/server-launcher.ts).
 */
export interface SglangServer extends LaunchedServer {
  readonly model: string;
  readonly settings: SglangServerSettings;
}

/** launch_server arguments: CPU, loopback only, metrics and cached-token counts on, the window and cache of `s`. */
export function sglangServerArgs(a: SglangArtefacts, s: SglangServerSettings, port: number): string[] {
  return [
    '--model-path', a.modelDir, '--served-model-name', SGLANG_MODEL_NAME, '--host', '127.0.0.1', '--port', String(port),
    '--device', 'cpu',
    // SGLang's CPU default is its Intel AMX backend, whose kernels are in the CPU sgl_kernel PyPI does not have;
    // torch_native is its plain-torch attention.
    '--attention-backend', 'torch_native',
    '--context-length', String(s.contextLength),
    '--max-total-tokens', String(s.maxTotalTokens),
    // Without it /metrics is 404; the monitor reads the sglang: gauges and histograms.
    '--enable-metrics',
    // usage.prompt_tokens_details.cached_tokens (else null): the prefix-cache hits, the suite's llm_cached_tokens.
    '--enable-cache-report',
    '--random-seed', '0',
    // Idle, the scheduler otherwise polls its queues without pause: a whole core (0.999 CPU-s a second, measured)
    // on the one it shares with the HTTP front end. It waits on the queues instead, and wakes when a request comes.
    '--sleep-on-idle',
  ];
}

/** The environment: SGLang's CPU engine, the threads and cores of `s`, the model read offline. */
export function sglangServerEnv(s: SglangServerSettings, base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return {
    ...base,
    // Selects SGLang's CPU platform (the torch in the venv is PyPI's CUDA build, with no GPU to find).
    SGLANG_USE_CPU_ENGINE: '1',
    OMP_NUM_THREADS: String(s.threads),
    K6_LLM_SGLANG_CORES: String(s.cores), // read by scripts/sglang-cpu/launcher.py
    HF_HUB_OFFLINE: '1',
    TRANSFORMERS_OFFLINE: '1',
    // When a child process ends (stop() signals the whole group) SGLang would wait 5 s, then py-spy its scheduler
    // and ask CUDA for core dumps: nothing to learn on a CPU, and stop() would take 6 s instead of 1.
    SGLANG_PYSPY_DUMP_BEFORE_CRASH: '0',
    SGLANG_CUDA_COREDUMP_BEFORE_CRASH: '0',
  };
}

/**
 * Starts SGLang on a free loopback port and resolves once /health answers 200 (SGLang says so once the model is
 * loaded and its warm-up request done).
 */
export async function startSglangServer(
  a: SglangArtefacts,
  settings: SglangServerSettings = SGLANG_DEFAULTS,
): Promise<SglangServer> {
  const server = await launchServer({
    name: 'SGLang', command: a.launcher, args: (port) => sglangServerArgs(a, settings, port),
    env: sglangServerEnv(settings),
    // About 35 s on 2 cores; a slower or busier machine gets about ten times that.
    readyWithinMs: 300_000,
  });
  return { ...server, model: SGLANG_MODEL_NAME, settings };
}
