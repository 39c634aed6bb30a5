// Tests for orchestrator/bench-options.ts: the environment the bench plans with is the one each part's k6 reads.
// Runs in Node (vitest).

import { describe, expect, it } from 'vitest';
import { applyEnvToPlan } from '../../lib/env';
import { resolvePlan } from '../../lib/plan';
import { benchPlanEnv } from '../../orchestrator/bench-options';
import { QUICK_PLAN } from '../../orchestrator/default-plans';

describe('benchPlanEnv', () => {
  it('keeps the plan overrides and drops the names the bench sets on each part with -e', () => {
    const env = {
      USE_CASES: 'mlperf_llama3_1_8b', RATES: '1,2', HOME: '/root',
      PLAN: 'mine.json', PROMPTS: 'p.json', RESULTS_DIR: 'r', BASE_URL: 'x', MODEL: 'm', API: 'nonsense',
      LLM_AGENT: 'a',
    };
    expect(benchPlanEnv(env)).toEqual({ USE_CASES: 'mlperf_llama3_1_8b', RATES: '1,2', HOME: '/root' });
  });

  it('gives the quick plan\'s rate part the cells k6 runs for USE_CASES=mlperf_llama3_1_8b: the default rates', () => {
    const env = benchPlanEnv({ USE_CASES: 'mlperf_llama3_1_8b', API: 'nonsense' });
    const plan = resolvePlan(applyEnvToPlan(QUICK_PLAN, env), 'rate');
    expect(plan.cells.map((c) => [c.useCase, c.arrivals!.ratePerSecond, c.contextTokens, c.outputTokens])).toEqual(
      [0.5, 1, 2, 4].map((rate) => ['mlperf_llama3_1_8b', rate, 2048, 128]),
    );
  });
});
