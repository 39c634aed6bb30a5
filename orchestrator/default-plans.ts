// The plans `npm run bench` runs when given none: a quick one sized for a 2-core machine and the simulator, and the full grid of the reports. Runs in Node.

import type { PlanInput } from '../lib/plan';

/**
 * Quick: about 7.5 minutes against the default simulator profile on a 2-core machine (the measured
 * time is in the README, not restated here; the capacity search's steps near each limit, one request
 * per user each, are most of it).
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
  schedule: { safetyFactor: 1.5, minCellSeconds: 5, gapSeconds: 1 },
};

/** Full: the grid and ladders of the published capacity reports (docs/simulator-model.md), hours on real hardware. */
export const FULL_PLAN: PlanInput = {
  name: 'full',
  sweep: { contexts: [1024, 8192, 32_768, 65_536, 98_304, 131_072, 262_144], concurrencies: [1, 2, 4, 6], rounds: 3, outputTokens: 1024 },
  capacity: { rounds: 2 },
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

export const DEFAULT_PLANS: Readonly<Record<string, PlanInput>> = { quick: QUICK_PLAN, full: FULL_PLAN, llama: LLAMA_PLAN };
