// Tests for lib/plan.ts's use cases: limit labels, a limit on its own statistic, use cases named by id.
// Runs in Node (vitest).

import { describe, expect, it } from 'vitest';
import { readResolvedPlan, resolvePlan } from '../../lib/plan';
import { NAMED_USE_CASES, USE_CASES, findUseCase, limitLabel } from '../../thresholds/use-cases';
import { buildOptions } from '../../lib/options';
import { cellMetricKey } from '../../lib/summary-data';
import { planError } from './plan-error';

describe('limit labels', () => {
  it('are derived from metric, operator and value, for the built-in use cases and for a plan that gives none', () => {
    expect(limitLabel('ttft', '<', 8000)).toBe('TTFT < 8 s');
    expect(limitLabel('e2e', '<=', 2500)).toBe('e2e <= 2.5 s');
    expect(limitLabel('itl', '<', 70)).toBe('ITL < 70 ms');
    expect(limitLabel('decodeSpeed', '>', 15)).toBe('speed > 15 tok/s');
    for (const uc of USE_CASES)
      for (const l of uc.limits) expect(l.label).toBe(limitLabel(l.metric, l.operator, l.value));
    const plan = resolvePlan(
      {
        useCases: [
          { id: 'u', contextTokens: 512, outputTokens: 16, limits: [{ metric: 'tpot', operator: '<', value: 45 }] },
        ] as never,
      },
      'capacity',
    );
    expect(plan.useCases[0]!.limits[0]!.label).toBe('TPOT < 45 ms');
  });
});

describe('a limit on its own statistic (MLPerf states p99 TTFT and TPOT)', () => {
  const useCases = [{
    id: 'mlperf', contextTokens: 1024, outputTokens: 128,
    limits: [
      { metric: 'ttft', operator: '<', value: 2000, stat: 'p(99)' },
      { metric: 'tpot', operator: '<', value: 100, stat: 'p(99)' },
      { metric: 'decodeSpeed', operator: '>', value: 10 },
    ],
  }];

  it('labels it with its statistic, and the gate checks it there while the plan\'s limitStat checks the rest', () => {
    const plan = resolvePlan({ useCases, gate: { useCase: 'mlperf' } }, 'gate');
    expect(plan.useCases[0]!.limits.map((l) => l.label)).toEqual([
      'TTFT p99 < 2 s', 'TPOT p99 < 100 ms', 'speed > 10 tok/s',
    ]);
    const thresholds = buildOptions(plan).thresholds;
    const cell = plan.cells[0]!;
    expect(thresholds[cellMetricKey('llm_ttft', cell)]).toEqual(['p(99)<2000']);
    expect(thresholds[cellMetricKey('llm_tpot', cell)]).toEqual(['p(99)<100']);
    expect(thresholds[cellMetricKey('llm_decode_speed', cell)]).toEqual(['avg>10']);
  });

  it('names a statistic the report cannot read', () => {
    const median = { metric: 'ttft', operator: '<', value: 1, stat: 'p(50)' };
    expect(planError({ useCases: [{ ...useCases[0], limits: [median] }] }))
      .toBe('plan field "useCases[0].limits[0].stat" is "p(50)", not one of: avg, med, p(90), p(95), p(99)');
  });
});

describe('use cases named by id (the catalogue, thresholds/use-cases.ts)', () => {
  it('resolves an id to the catalogue definition, beside a plan\'s own use case, once in the schema', () => {
    const own = {
      id: 'mine', contextTokens: 512, outputTokens: 16, limits: [{ metric: 'ttft', operator: '<', value: 900 }],
    };
    const plan = resolvePlan({ useCases: ['mlperf_llama2_70b_interactive', own, 'code_completion'] }, 'capacity');
    expect(plan.useCases.map((u) => u.id)).toEqual(['mlperf_llama2_70b_interactive', 'mine', 'code_completion']);
    expect(plan.useCases[0]).toEqual(findUseCase('mlperf_llama2_70b_interactive'));
    expect(plan.useCases[2]).toEqual(findUseCase('code_completion'));
    // plan.json holds whole use cases, so a report never depends on the catalogue of the code that reads it.
    expect(readResolvedPlan(JSON.parse(JSON.stringify(plan))).useCases).toEqual(plan.useCases);
    const first = plan.cells.filter((c) => c.useCase === 'mlperf_llama2_70b_interactive');
    expect(first.map((c) => [c.contextTokens, c.outputTokens, c.concurrency])).toEqual(
      [1, 4, 8, 16, 32, 48, 64].map((n) => [1024, 294, n]),
    );
  });

  it('judges an MLPerf use case on p99 in the gate, whatever the plan\'s limitStat', () => {
    const plan = resolvePlan({ useCases: ['mlperf_llama3_1_8b'], gate: { useCase: 'mlperf_llama3_1_8b' } }, 'gate');
    const cell = plan.cells[0]!;
    expect([cell.contextTokens, cell.outputTokens]).toEqual([2048, 128]);
    const thresholds = buildOptions(plan).thresholds;
    expect(thresholds[cellMetricKey('llm_ttft', cell)]).toEqual(['p(99)<2000']);
    expect(thresholds[cellMetricKey('llm_tpot', cell)]).toEqual(['p(99)<100']);
  });

  it('an unknown id is a one-line error naming every known id', () => {
    const known = NAMED_USE_CASES.map((u) => u.id).join(', ');
    expect(planError({ useCases: ['mlperf_llama3_1_405b'] })).toBe(
      `plan field "useCases[0]" is "mlperf_llama3_1_405b", not one of: ${known}`,
    );
    expect(planError({ useCases: [7] })).toBe(
      `plan field "useCases[0]" is 7, neither a use case (an object) nor one of: ${known}`,
    );
  });
});
