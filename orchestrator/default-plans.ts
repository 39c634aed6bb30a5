// The plans `npm run bench` runs when given none. Runs in Node.
// A quick one sized for a 2-core machine and the simulator, and the full grid of the reports.

import type { PlanInput, ScriptName } from '../lib/plan';
import { BURST_DEPTHS, CONTEXT_GRID } from '../thresholds/use-cases';

/**
 * Quick: about 7.5 minutes against the default simulator profile on a 2-core machine (the measured
 * time is in docs/guides/capacity-planning.md, not restated here; the capacity search's steps near each
 * limit, one request per user each, are most of it).
 * Outputs are cut to 128 tokens (what code completion uses anyway: TTFT and decode speed are
 * measured well within it); the ladders are what `--fixed-slots` (or plain k6) runs, and straddle
 * each use case's limit (thresholds/use-cases.ts). Neither plan sets the target's speeds: against the
 * simulator the bench
 * sizes every cell from the engine's own prediction, against a URL from a probe of the target.
 */
export const QUICK_PLAN: PlanInput = {
  name: 'quick',
  sweep: { contexts: [1024, 8192, 32_768], concurrencies: [1, 2, 4, 8], rounds: 2, outputTokens: 128 },
  capacity: {
    useCases: ['code_completion', 'short_chatbot', 'general_chatbot', 'long_document', 'coding_assistant'],
    concurrencies: {
      code_completion: [1, 16, 32, 48, 64],
      short_chatbot: [1, 50, 100],
      general_chatbot: [1, 8, 15, 21],
      long_document: [1, 3, 5, 7],
      coding_assistant: [1, 2, 4],
    },
    outputTokens: { short_chatbot: 128, general_chatbot: 128, long_document: 128, coding_assistant: 128 },
    rounds: 1,
    minMeasuredSeconds: 2,
    maxUsers: 128,
  },
  /**
   * Two use cases' conversations, shortened so the search takes about 3 minutes: code completion with 4 turns and
   * pauses of 2 s (half its default), agentic coding on a 16K repository slice with 64-token tool calls and pauses of a
   * second; from 16 users up, capped above their capacities on the default profile so no step overshoots far. Chats
   * pause tens of seconds, so a search over their users takes longer than a quick plan: `--plan full` runs them.
   */
  sessions: {
    useCases: ['code_completion', 'coding_assistant'],
    models: {
      code_completion: { turns: 4, thinkTime: { distribution: 'exponential', meanSeconds: 2 } },
      coding_assistant: { turns: 6, firstTurnTokens: 16_384, growthTokens: 1024, outputTokens: 64 },
    },
    users: { code_completion: [16, 32, 64, 96], coding_assistant: [16, 32, 48, 64] },
    rampSeconds: 5, warmupSeconds: 5, holdSeconds: 20,
    // Found to 10% (1 user below 8): a step of users with pauses runs several of their think times.
    rounds: 1, minMeasuredSeconds: 2, startUsers: 16, exactBelow: 8, resolutionPercent: 10,
    maxUsers: { code_completion: 100, coding_assistant: 80 },
  },
  /**
   * Agents (`--scripts agentic` only: the default run leaves the script out): the default agent (thresholds/agentic.ts)
   * with a think time of 2 s, at 4 to 64 agents held 40 s each after 5 s of warm-up, about 4 minutes; the interactive
   * tier breaks within the ladder on the default profile.
   */
  agentic: {
    agents: [4, 16, 32, 64], rampSeconds: 2, warmupSeconds: 5, holdSeconds: 40,
    model: { thinkTime: { distribution: 'exponential', meanSeconds: 2 } },
  },
  /**
   * Poisson arrivals for code completion only (its requests take about a second; a chat's take tens): 20 s per rate,
   * about 2.5 minutes, in steps of 1 request/s around its limit on the default profile (11 req/s; e2e 2 s breaks at
   * 12): a capacity read off a ladder is as coarse as its rungs (docs/guides/open-loop.md).
   */
  rate: { useCases: ['code_completion'], rates: { code_completion: [8, 9, 10, 11, 12, 14] }, durationSeconds: 20 },
  /**
   * Embeddings (`--scripts embed` only: the default run leaves the script out): 512-token inputs alone and 16 to a
   * request, from 1 to 32 users; 8 cells of 3 requests per user, well under a minute against the default profile.
   */
  embed: {
    kind: 'embeddings', inputTokens: [512], batchSizes: [1, 16], concurrencies: [1, 4, 16, 32], rounds: 3,
    limit: { p99LatencyMs: 500 },
  },
  schedule: { safetyFactor: 1.5, minCellSeconds: 5, gapSeconds: 1 },
};

/**
 * Full: the grid and ladders of the published capacity reports (docs/design/simulator-model.md), hours on real
 * hardware.
 */
export const FULL_PLAN: PlanInput = {
  name: 'full',
  sweep: {
    contexts: [1024, 8192, 32_768, 65_536, 98_304, 131_072, 262_144], concurrencies: [1, 2, 4, 6], rounds: 3,
    outputTokens: 1024,
  },
  capacity: { rounds: 2 },
  /** Two minutes per rate; ladders around each use case's concurrent capacity over its request time (Little's law). */
  rate: {
    rates: {
      code_completion: [4, 8, 12, 16, 20, 24], short_chatbot: [1, 2, 4, 6, 8], general_chatbot: [0.25, 0.5, 1, 1.5, 2],
      long_document: [0.1, 0.25, 0.5, 1], coding_assistant: [0.05, 0.1, 0.25, 0.5],
    },
    durationSeconds: 120,
  },
  schedule: { safetyFactor: 1.5 },
};

/**
 * Llama: sized for `--target llama`, the tiny model on llama-server's 4 slots of 12K tokens on one core
 * (orchestrator/llama-server.ts): contexts that fit a slot with their output, users up to twice the
 * slots, so the search meets the server's queue. About 2 minutes.
 */
export const LLAMA_PLAN: PlanInput = {
  name: 'llama',
  sweep: { contexts: [1024, 4096], concurrencies: [1, 2, 4], rounds: 2, outputTokens: 64 },
  capacity: {
    useCases: ['code_completion', 'short_chatbot'],
    concurrencies: { code_completion: [1, 2, 4, 8], short_chatbot: [1, 2, 4, 8] },
    outputTokens: { short_chatbot: 64 },
    rounds: 1,
    minMeasuredSeconds: 2,
    maxUsers: 16,
  },
  schedule: { safetyFactor: 2, minCellSeconds: 5, gapSeconds: 1 },
};

/**
 * Fit: what `npm run fit` fits a simulator profile to (docs/guides/what-if.md). Single requests over a spread of prompt
 * lengths give prefill's growth with length and decode's with context; 2 to 64 users give the step's growth with the
 * batch. Answers of 128 tokens: the time per output token is settled long before. About 4 minutes against the default
 * simulator profile, the same order on the GPU it models; prompts that do not fit the server's window are shortened.
 */
export const FIT_PLAN: PlanInput = {
  name: 'fit',
  sweep: { contexts: [256, 1024, 4096, 16_384], concurrencies: [1, 2, 4, 8, 16, 32, 64], rounds: 2, outputTokens: 128 },
  schedule: { safetyFactor: 1.5, minCellSeconds: 5, gapSeconds: 1 },
};

/** Built-in plans that run other scripts than the default sweep and capacity when --scripts is not given. */
export const PLAN_SCRIPTS: Readonly<Record<string, readonly ScriptName[]>> = { fit: ['sweep'] };

/**
 * A seed report's own grid, with the scripts that measure it and the simulator profile of its system, so
 * `npm run bench -- --plan report-e` gives a report to put beside the published one. Each ladder holds the
 * concurrencies the report's tables name; the fixed ladders run with --fixed-slots as the reports did
 * (one round at each named step), while the default adaptive search finds the limit itself.
 */
export interface ReportPreset {
  readonly plan: PlanInput;
  /** Entry scripts used when --scripts is not given. */
  readonly scripts: readonly ScriptName[];
  /** Simulator profile used when neither --profile nor --url is given. */
  readonly profile: string;
  /** The published report it reproduces (../shared/reference/reports/). */
  readonly report: string;
}

/** A Millstone-style report: contexts 1K-256K at 1..N requests, 1024 output tokens, and five use-case ladders. */
function millstone(name: string, concurrencies: number[], ladders: Record<string, number[]>): PlanInput {
  return {
    name,
    sweep: { contexts: [...CONTEXT_GRID], concurrencies, rounds: 1, outputTokens: 1024 },
    capacity: {
      useCases: Object.keys(ladders),
      concurrencies: ladders,
      rounds: 1,
      maxUsers: Math.max(...Object.values(ladders).flat()),
    },
    // N prompts of 256K sent at once wait N single prefills for their first byte (report-e x10: 10 x 20 s; report-a
    // x6: 6 x 48 s): the default idle timeout (120 s) would cut the last ones as stalled and lose the grid's corner.
    target: { idleTimeoutSeconds: 600 },
    schedule: { safetyFactor: 1.5 },
  };
}

/** An "Inference Benchmark" report: fixed input/output profiles at 1..32 requests ("mix"), and bursts. */
function inferenceBenchmark(name: string, profiles: string[], concurrencies: number[], burst: boolean): PlanInput {
  return {
    name,
    mix: { profiles, concurrencies, rounds: 1 },
    ...(burst ? { burst: { profiles, depths: [...BURST_DEPTHS], ttftLimitMs: 3000 } } : {}),
    // 256 prompts of 32K at once queue the last for minutes before its first byte of data: the default idle timeout
    // (120 s) would cut them as stalled and drop the deepest bursts' slowest TTFTs, which these tables report.
    ...(burst ? { target: { idleTimeoutSeconds: 600 } } : {}),
    schedule: { safetyFactor: 1.5 },
  };
}

export const REPORT_PRESETS: Readonly<Record<string, ReportPreset>> = {
  'report-a': {
    report: 'qwen3-coder-30b-a3b_1xH200_vllm.txt',
    profile: 'qwen3-coder-30b-a3b-h200-vllm',
    scripts: ['sweep', 'capacity'],
    plan: millstone('report-a', [1, 2, 4, 6], {
      code_completion: [1, 42, 100], short_chatbot: [1, 75, 125],
      general_chatbot: [1, 15, 21], long_document: [1, 5, 7], coding_assistant: [1, 2, 6],
    }),
  },
  'report-b': {
    report: 'qwen3-coder-30b-a3b_1xH100-PCIe.txt',
    profile: 'qwen3-coder-30b-a3b-h100pcie-vllm',
    scripts: ['mix'],
    // The published figures imply one prompt sent N times (docs/design/simulator-model.md, "Profiles B and C").
    plan: {
      ...inferenceBenchmark(
        'report-b', ['chatbot_short', 'rag_long', 'agentic_long', 'tool_calling_long'], [1, 2, 4, 8, 16, 24, 32], false,
      ),
      prompts: { mode: 'shared-prefix' },
    },
  },
  'report-c': {
    report: 'qwen3.5-35b-a3b_1xH100.txt',
    profile: 'qwen3.5-35b-a3b-h100-vllm',
    scripts: ['mix', 'burst'],
    plan: inferenceBenchmark('report-c', ['chatbot', 'rag', 'agentic', 'tool_calling'], [1, 2, 4, 8, 16, 32], true),
  },
  'report-d': {
    report: 'qwen3-coder-next_1xH200_sglang.txt',
    profile: 'qwen3-coder-next-h200-sglang',
    scripts: ['sweep', 'capacity'],
    plan: millstone('report-d', [1, 2, 5, 10], {
      code_completion: [1, 10, 23], short_chatbot: [1, 48, 100],
      general_chatbot: [1, 8, 10], long_document: [1, 5, 10], coding_assistant: [1, 2, 10],
    }),
  },
  'report-e': {
    report: 'qwen3-coder-next_2xRTXPro6000_sglang.txt',
    profile: 'qwen3-coder-next-2xrtxpro6000-sglang',
    scripts: ['sweep', 'capacity'],
    plan: millstone('report-e', [1, 2, 5, 10], {
      code_completion: [1, 18, 26], short_chatbot: [1, 39, 67],
      general_chatbot: [1, 6, 10], long_document: [1, 4, 10], coding_assistant: [1, 2, 10],
    }),
  },
};

export const DEFAULT_PLANS: Readonly<Record<string, PlanInput>> = {
  quick: QUICK_PLAN,
  full: FULL_PLAN,
  llama: LLAMA_PLAN,
  fit: FIT_PLAN,
  ...Object.fromEntries(Object.entries(REPORT_PRESETS).map(([name, preset]) => [name, preset.plan])),
};
