// Tests for thresholds/use-cases.ts: the catalogue of named use cases, MLPerf's limits as data, their labels.
// Runs in Node (vitest).

import { describe, expect, it } from 'vitest';
import {
  MLPERF_USE_CASES, NAMED_USE_CASES, USE_CASES, findUseCase, limitLabel, type UseCase,
} from '../../thresholds/use-cases';

/** A use case's limits as "metric stat operator value" strings, the way traces.md's MLPerf table reads. */
function limitsOf(u: UseCase): string[] {
  return u.limits.map((l) => `${l.metric} ${l.stat ?? '-'} ${l.operator} ${l.value}`);
}

describe('the use-case catalogue', () => {
  it('keeps the default five first and unchanged, then the opt-in MLPerf ones, each id once', () => {
    expect(USE_CASES.map((u) => u.id)).toEqual([
      'code_completion', 'short_chatbot', 'general_chatbot', 'long_document', 'coding_assistant',
    ]);
    expect(NAMED_USE_CASES).toEqual([...USE_CASES, ...MLPERF_USE_CASES]);
    const ids = NAMED_USE_CASES.map((u) => u.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const u of USE_CASES) for (const l of u.limits) expect(l.stat).toBeUndefined();
  });

  it("states MLPerf's datacenter limits (traces.md): p99 TTFT and p99 TPOT, standard and interactive", () => {
    const byId = Object.fromEntries(MLPERF_USE_CASES.map((u) => [u.id, limitsOf(u)]));
    expect(byId).toEqual({
      mlperf_llama2_70b: ['ttft p(99) < 2000', 'tpot p(99) < 200'],
      mlperf_llama2_70b_interactive: ['ttft p(99) < 450', 'tpot p(99) < 40'],
      mlperf_llama3_1_8b: ['ttft p(99) < 2000', 'tpot p(99) < 100'],
      mlperf_llama3_1_8b_interactive: ['ttft p(99) < 500', 'tpot p(99) < 30'],
    });
  });

  it('labels each MLPerf limit with its statistic', () => {
    const labels = MLPERF_USE_CASES.map((u) => u.limits.map((l) => l.label));
    expect(labels).toEqual([
      ['TTFT p99 < 2 s', 'TPOT p99 < 200 ms'],
      ['TTFT p99 < 450 ms', 'TPOT p99 < 40 ms'],
      ['TTFT p99 < 2 s', 'TPOT p99 < 100 ms'],
      ['TTFT p99 < 500 ms', 'TPOT p99 < 30 ms'],
    ]);
    for (const u of NAMED_USE_CASES)
      for (const l of u.limits) expect(l.label).toBe(limitLabel(l.metric, l.operator, l.value, l.stat));
  });

  it("uses MLPerf's stated lengths and names the source in the description", () => {
    const lengths = MLPERF_USE_CASES.map((u) => [u.id, u.contextTokens, u.outputTokens]);
    expect(lengths).toEqual([
      ['mlperf_llama2_70b', 1024, 294], ['mlperf_llama2_70b_interactive', 1024, 294],
      ['mlperf_llama3_1_8b', 2048, 128], ['mlperf_llama3_1_8b_interactive', 2048, 128],
    ]);
    for (const u of MLPERF_USE_CASES) {
      expect(u.description).toContain('mlcommons/inference');
      expect(u.concurrencies[0]).toBe(1);
      expect([...u.concurrencies].sort((a, b) => a - b)).toEqual(u.concurrencies);
    }
  });

  it('findUseCase finds the default and the MLPerf use cases by id, and nothing else', () => {
    expect(findUseCase('general_chatbot')).toBe(USE_CASES[2]);
    expect(findUseCase('mlperf_llama3_1_8b_interactive')).toBe(MLPERF_USE_CASES[3]);
    expect(findUseCase('mlperf_llama3_1_405b')).toBeUndefined();
  });
});
