// What a bench run is given and what it gives back: its options, events and outcome. Runs in Node.

import type { AgentPriority } from './agent-priority';
import type { ApiStyle, PlanInput, ScriptName } from '../lib/plan';
import type { TokenizerChoice } from '../tokenizer/prepare-prompts';
import type { ProgressState } from './progress';
import { REAL_SERVER_TARGETS, type RealServerTarget } from './built-in-server';

export interface BenchOptions {
  /** Target base URL (/v1); null starts the built-in target (`target`). */
  readonly url: string | null;
  /** The built-in target started when no URL is given: the simulator, or a real server (llama.cpp, vLLM, SGLang). */
  readonly target?: BuiltInTarget;
  readonly model: string | null;
  readonly apiKey: string | null;
  readonly api: ApiStyle;
  readonly planInput: PlanInput;
  readonly planLabel: string;
  readonly scripts: readonly ScriptName[];
  readonly simProfile: string | null;
  /** Simulator with step-time noise (its --noise), and the seed to draw it with (null: random, logged). */
  readonly simNoise?: { readonly seed: number | null } | null;
  readonly resultsRoot: string;
  readonly runId: string;
  readonly tokenizer: TokenizerChoice;
  readonly report: boolean;
  /** Prometheus remote-write URL: k6 sends the run's metrics live (-o experimental-prometheus-rw, testid = run id). */
  readonly prometheusRw?: string | null;
  /**
   * Run cells in k6's fixed time slots, as a plain `k6 run` does, instead of driving them back to back
   * (and searching capacity adaptively). Default false.
   */
  readonly fixedSlots?: boolean;
  /**
   * k6 processes per part (default 1): more splits every part with k6's execution segments, as the
   * k6-operator does (orchestrator/runners.ts), in k6's fixed time slots; the report merges them.
   */
  readonly runners?: number;
  /**
   * The measuring agents' scheduling priority (default normal): realtime or auto run them at SCHED_FIFO, so that a
   * busy machine does not make them read late (orchestrator/agent-priority.ts).
   */
  readonly agentPriority?: AgentPriority;
}

/**
 * The variables the bench sets itself: a part's k6 reads PLAN (its resolved plan.json), RESULTS_DIR and LLM_AGENT,
 * and the plan carries the target, model, API and prompts file the bench chose.
 */
const BENCH_ENV_KEYS = ['PLAN', 'PROMPTS', 'RESULTS_DIR', 'BASE_URL', 'MODEL', 'API', 'LLM_AGENT'] as const;

/**
 * The environment's plan overrides (USE_CASES, RATES, ...) as the bench applies them to its plan input, short of the
 * variables it sets itself: the bench resolves the plan once, with them, and every part's k6 runs that plan.
 */
export function benchPlanEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string | undefined> {
  const own: readonly string[] = BENCH_ENV_KEYS;
  return Object.fromEntries(Object.entries(env).filter(([name]) => !own.includes(name)));
}

export type BuiltInTarget = 'sim' | RealServerTarget;
export const BUILT_IN_TARGETS: readonly BuiltInTarget[] = ['sim', ...REAL_SERVER_TARGETS];

export interface BenchEvents {
  log: [line: string];
  progress: [state: ProgressState];
}

export interface BenchOutcome {
  readonly runDir: string;
  readonly exitCode: number;
  readonly interrupted: boolean;
  readonly requests: number;
}

/** A run id that sorts by time and is safe in paths: 2026-11-22T08-40-05Z. */
export function newRunId(now = new Date()): string {
  return now.toISOString().replace(/\.\d+Z$/, 'Z').replace(/:/g, '-');
}
