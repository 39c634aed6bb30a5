// Tests for lib/options.ts: k6 scenarios, tags, the monitor scenario and thresholds built from a plan.
// Runs in Node (vitest).

import { describe, expect, it } from 'vitest';
import { resolveAny } from './resolve-any';
import { METRICS, metricKeyOf } from '../../lib/metrics';
import {
  INFORMATIONAL_THRESHOLDS,
  MONITOR_SCENARIO,
  buildOptions,
  cellTags,
  limitExpression,
  plannedRequests,
  type ThresholdSpec,
} from '../../lib/options';
import { SCRIPT_NAMES, resolvePlan } from '../../lib/plan';
import { aggregationAllowed, evaluateThreshold, parseMetricKey, parseThreshold } from '../../lib/threshold-grammar';
import type { UseCaseLimit } from '../../thresholds/use-cases';

function expressions(specs: readonly ThresholdSpec[]): string[] {
  return specs.map((s) => (typeof s === 'string' ? s : s.threshold));
}

describe('buildOptions scenarios', () => {
  const plan = resolvePlan(
    {
      capacity: { useCases: ['code_completion'], concurrencies: { code_completion: [1, 2] }, rounds: 3 },
      schedule: {
        cellSeconds: 30, gapSeconds: 2.5, prefillTokensPerSecond: 1024, decodeTokensPerSecond: 16, safetyFactor: 1,
      },
    },
    'capacity',
  );
  const options = buildOptions(plan);

  it('one per-vu-iterations scenario per cell: vus = concurrency, iterations = warm-up + measured rounds, ' +
    'times as strings', () => {
    // One user: 1024 tok / 1024 tok/s + 128 tok / 16 tok/s = 9 s per request, so gracefulStop is 9 s.
    const [a, b] = plan.cells;
    expect(a!.gracefulStopSeconds).toBe(9);
    expect(options.scenarios['capacity_code_completion_n1']).toEqual({
      executor: 'per-vu-iterations',
      vus: 1,
      iterations: 4,
      startTime: '0s',
      maxDuration: '30s',
      gracefulStop: '9s',
      exec: 'default',
      tags: {
        cell: 'capacity_code_completion_n1', script: 'capacity', context: '1024', output: '128', concurrency: '1',
        use_case: 'code_completion',
      },
    });
    // Second cell starts after 30 + 9 + 2.5 s.
    expect(options.scenarios['capacity_code_completion_n2']).toMatchObject({
      vus: 2, iterations: 4, startTime: '41.5s', maxDuration: '30s', gracefulStop: `${b!.gracefulStopSeconds}s`,
    });
  });

  it('adds the monitor scenario over the whole run when a metrics URL is set and monitoring is on', () => {
    expect(Object.keys(options.scenarios)).toEqual([
      'capacity_code_completion_n1', 'capacity_code_completion_n2', MONITOR_SCENARIO,
    ]);
    expect(options.scenarios[MONITOR_SCENARIO]).toEqual({
      executor: 'per-vu-iterations',
      vus: 1,
      iterations: 1,
      startTime: '0s',
      maxDuration: `${plan.totalSeconds + 5}s`,
      gracefulStop: '5s',
      exec: 'monitor',
    });
    expect(
      buildOptions(resolvePlan({ monitor: { enabled: false } }, 'gate')).scenarios[MONITOR_SCENARIO],
    ).toBeUndefined();
    expect(
      buildOptions(resolvePlan({ target: { metricsUrl: null } }, 'gate')).scenarios[MONITOR_SCENARIO],
    ).toBeUndefined();
    expect(buildOptions(resolvePlan({ target: { metricsUrl: null }, monitor: { enabled: true } }, 'gate')).scenarios[
      MONITOR_SCENARIO
    ]).toBeUndefined();
  });

  it('copies the trend stats and sets the setup and teardown timeouts', () => {
    expect(options.summaryTrendStats).toEqual([...plan.summaryTrendStats]);
    expect(options.summaryTrendStats).not.toBe(plan.summaryTrendStats);
    expect([options.setupTimeout, options.teardownTimeout]).toEqual(['120s', '60s']);
  });

  it("sets k6's insecureSkipTLSVerify only when the plan's target asks for it", () => {
    expect(options).not.toHaveProperty('insecureSkipTLSVerify');
    const insecure = buildOptions(resolvePlan({ target: { insecureSkipTLSVerify: true } }, 'gate'));
    expect(insecure.insecureSkipTLSVerify).toBe(true);
  });
});

describe('cellTags', () => {
  it('sets use_case and profile only when the cell has one', () => {
    const sweep = resolvePlan({ sweep: { contexts: [8192], concurrencies: [4], outputTokens: 256 } }, 'sweep')
      .cells[0]!;
    expect(cellTags(sweep)).toEqual({
      cell: 'sweep_c8k_o256_n4', script: 'sweep', context: '8192', output: '256', concurrency: '4',
    });
    const mix = resolvePlan({ mix: { profiles: ['rag'], concurrencies: [2] } }, 'mix').cells[0]!;
    expect(cellTags(mix)).toEqual({
      cell: 'mix_rag_n2', script: 'mix', context: '4096', output: '256', concurrency: '2', profile: 'rag',
    });
  });
});

describe('buildOptions thresholds of non-gate and gate plans', () => {
  it('non-gate plans: informational thresholds on every cell sub-metric, deciding nothing', () => {
    const plan = resolvePlan({ sweep: { contexts: [1024], concurrencies: [1] } }, 'sweep');
    const cell = 'sweep_c1k_o1k_n1';
    expect(buildOptions(plan).thresholds).toEqual({
      [`llm_ttft{cell:${cell}}`]: ['max>=0'],
      [`llm_e2e{cell:${cell}}`]: ['max>=0'],
      [`llm_itl{cell:${cell}}`]: ['max>=0'],
      [`llm_tpot{cell:${cell}}`]: ['max>=0'],
      [`llm_decode_speed{cell:${cell}}`]: ['max>=0'],
      [`llm_prefill_speed{cell:${cell}}`]: ['max>=0'],
      [`llm_request_ok{cell:${cell}}`]: ['rate>=0'],
    });
    // A capacity plan has use cases but is not a gate: its limits are for the report, not thresholds.
    const capacity = buildOptions(
      resolvePlan({ capacity: { useCases: ['general_chatbot'], concurrencies: { general_chatbot: [1] } } }, 'capacity'),
    );
    // Its cells are steady-state steps: the per-cell statistics leave the warm-up requests out.
    expect(capacity.thresholds['llm_ttft{cell:capacity_general_chatbot_n1,phase:measured}']).toEqual(['max>=0']);
    expect(capacity.thresholds['llm_ttft{cell:capacity_general_chatbot_n1}']).toBeUndefined();
  });

  it('gate plans: the use-case limits on the plan statistic, and the success rate', () => {
    const t = buildOptions(resolvePlan({}, 'gate')).thresholds;
    const cell = 'gate_general_chatbot_n4';
    expect(t[`llm_ttft{cell:${cell}}`]).toEqual(['avg<8000']);
    expect(t[`llm_decode_speed{cell:${cell}}`]).toEqual(['avg>15']);
    expect(t[`llm_e2e{cell:${cell}}`]).toEqual(['max>=0']);
    expect(t[`llm_request_ok{cell:${cell}}`]).toEqual(['rate>=0.99']);

    const p95 = buildOptions(resolvePlan(
      { limitStat: 'p(95)', gate: { useCase: 'code_completion', concurrency: 8, minSuccessRate: 0.95 } }, 'gate',
    )).thresholds;
    expect(p95['llm_e2e{cell:gate_code_completion_n8}']).toEqual(['p(95)<2000']);
    expect(p95['llm_ttft{cell:gate_code_completion_n8}']).toEqual(['max>=0']);
    expect(p95['llm_request_ok{cell:gate_code_completion_n8}']).toEqual(['rate>=0.95']);
    expect(p95['llm_goodput{cell:gate_code_completion_n8}']).toBeUndefined();
  });

  it('gate plans with minGoodput: the share of requests within every limit as a threshold of llm_goodput', () => {
    const t = buildOptions(resolvePlan({ minGoodput: 0.95 }, 'gate')).thresholds;
    expect(t['llm_goodput{cell:gate_general_chatbot_n4}']).toEqual(['rate>=0.95']);
    // Not a gate: informational only.
    expect(
      buildOptions(resolvePlan({ minGoodput: 0.95 }, 'sweep')).thresholds['llm_goodput{cell:sweep_c1k_n1}'],
    ).toBeUndefined();
  });
});

describe('threshold expressions: written, parsed on every script, and deciding nothing when informational', () => {
  it('limitExpression writes "<stat><op><value>"', () => {
    const ttft: UseCaseLimit = { metric: 'ttft', operator: '<', value: 12000, label: 'TTFT < 12 s' };
    const speed: UseCaseLimit = { metric: 'decodeSpeed', operator: '>=', value: 20, label: '' };
    expect(limitExpression(ttft, 'p(99)')).toBe('p(99)<12000');
    expect(limitExpression(speed, 'avg')).toBe('avg>=20');
  });

  it.each(SCRIPT_NAMES)('%s: every key and expression parses, on a known metric, ' +
    'with an aggregation its kind allows', (script) => {
    const options = buildOptions(resolveAny({}, script));
    for (const [key, specs] of Object.entries(options.thresholds)) {
      const k = parseMetricKey(key);
      if (!k.ok) throw new Error(k.error);
      const metricKey = metricKeyOf(k.value.metric);
      expect(metricKey, key).toBeDefined();
      // A steady-state (capacity) cell's statistics are of its measured requests only, a windowed step's and a rate
      // cell's after its warm-up too.
      const steady = script === 'capacity' || script === 'sessions' || script === 'agentic' || script === 'rate';
      expect(Object.keys(k.value.tags)).toEqual(steady ? ['cell', 'phase'] : ['cell']);
      if (steady) expect(k.value.tags.phase).toBe('measured');
      expect(options.scenarios[k.value.tags.cell!], key).toBeDefined();
      for (const expr of expressions(specs)) {
        const t = parseThreshold(expr);
        if (!t.ok) throw new Error(t.error);
        expect(aggregationAllowed(METRICS[metricKey!].kind, t.value.aggregation), `${key} ${expr}`).toBe(true);
      }
    }
  });

  it('the informational expressions hold for any figures a cell can have, so they decide nothing', () => {
    const trends = [{ max: 0, avg: 0 }, { max: 12_345.6, avg: 99 }];
    const rates = [
      { rate: 0, passes: 0, fails: 3 }, { rate: 1, passes: 3, fails: 0 }, { rate: 0, passes: 0, fails: 0 },
    ];
    for (const expr of INFORMATIONAL_THRESHOLDS) {
      const t = parseThreshold(expr);
      if (!t.ok) throw new Error(t.error);
      const kind = t.value.aggregation === 'rate' ? 'rate' : 'trend';
      for (const v of kind === 'rate' ? rates : trends)
        expect(evaluateThreshold(t.value, v, kind), `${expr} on ${JSON.stringify(v)}`).toBe(true);
    }
  });
});

describe('plannedRequests', () => {
  it('sums users x rounds over the cells', () => {
    expect(plannedRequests(resolvePlan({}, 'gate'))).toBe(8); // 4 users x 2 rounds
    expect(plannedRequests(resolvePlan({}, 'sweep'))).toBe(7 * (1 + 2 + 4 + 6) * 3);
    expect(plannedRequests(resolvePlan({ burst: { profiles: ['rag'], depths: [1, 64] } }, 'burst'))).toBe(65);
  });
});

describe('a rate cell as k6 runs it', () => {
  const rate = (extra: object) => resolvePlan(
    { rate: { useCases: ['code_completion'], rates: [4], durationSeconds: 10, ...extra } }, 'rate',
  );

  it('has one VU per sender, one iteration each, and its warm-up left out of its per-cell thresholds', () => {
    const plan = rate({ senders: 3 });
    const cell = plan.cells[0]!;
    expect(cell.arrivals).toMatchObject({ senders: 3, warmupSeconds: 2, requests: 40 });
    const options = buildOptions(plan);
    expect(options.scenarios[cell.id]).toMatchObject({ vus: 3, iterations: 1 });
    expect(plannedRequests(plan)).toBe(3);
    expect(options.thresholds[`llm_schedule_lag{cell:${cell.id},phase:measured}`]).toEqual(['max>=0']);
    expect(options.thresholds[`llm_ttft{cell:${cell.id},phase:measured}`]).toEqual(['max>=0']);
  });

  it('keeps its warm-up to half the cell, and without one reads its figures whole', () => {
    expect(rate({ durationSeconds: 3 }).cells[0]!.arrivals!.warmupSeconds).toBe(1.5);
    const cold = rate({ warmupSeconds: 0 });
    const cell = cold.cells[0]!;
    expect(buildOptions(cold).thresholds[`llm_schedule_lag{cell:${cell.id}}`]).toEqual(['max>=0']);
    expect(cell.arrivals!.senders).toBe(1);
  });
});
