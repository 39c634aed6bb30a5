// Tests for lib/plan.ts: defaults per script, cell ids, the sequential schedule, readResolvedPlan, predicted cell
// seconds, the rate script and prefix groups. Validation errors are in plan-validation.test.ts, use cases and
// their limits in plan-use-cases.test.ts. Runs in Node (vitest).

import { describe, expect, it } from 'vitest';
import { resolveAny } from './resolve-any';
import { SUMMARY_TREND_STATS } from '../../lib/metrics';
import { PLAN_DEFAULTS } from '../../lib/plan-defaults';
import {
  PlanError, SCRIPT_NAMES, estimateRequestSeconds, formatTokens, readResolvedPlan, resolvePlan, type Plan,
} from '../../lib/plan';
import { BURST_DEPTHS, CONTEXT_GRID, USE_CASES } from '../../thresholds/use-cases';
import { planError } from './plan-error';

describe('resolvePlan defaults per script', () => {
  it('sweep: the 1K..256K context grid x concurrency 1, 2, 4, 6, 3 rounds of 1024 output tokens', () => {
    const plan = resolvePlan({}, 'sweep');
    expect(plan.cells).toHaveLength(CONTEXT_GRID.length * 4);
    expect(plan.cells.map((c) => [c.contextTokens, c.concurrency])).toEqual(
      CONTEXT_GRID.flatMap((ctx) => [1, 2, 4, 6].map((n) => [ctx, n])),
    );
    expect(plan.cells[0]).toMatchObject({
      id: 'sweep_c1k_o1k_n1', script: 'sweep', contextTokens: 1024, outputTokens: 1024, concurrency: 1, rounds: 3,
      useCase: null, profile: null, startSeconds: 0,
    });
    expect(plan.cells.at(-1)!.id).toBe('sweep_c256k_o1k_n6');
    expect(plan.cells.map((c) => c.id)).toContain('sweep_c96k_o1k_n4');
  });

  it('capacity: every use case with its own ladder, context and output, 1 warm-up + 2 measured rounds', () => {
    const plan = resolvePlan({}, 'capacity');
    expect(plan.cells).toHaveLength(USE_CASES.reduce((n, u) => n + u.concurrencies.length, 0));
    for (const uc of USE_CASES) {
      const cells = plan.cells.filter((c) => c.useCase === uc.id);
      expect(cells.map((c) => c.concurrency)).toEqual(uc.concurrencies);
      for (const c of cells)
        expect(c).toMatchObject({
          id: `capacity_${uc.id}_n${c.concurrency}`, contextTokens: uc.contextTokens, outputTokens: uc.outputTokens,
          rounds: 3, warmupRounds: 1, profile: null,
        });
    }
    expect(plan.cells[0]!.id).toBe('capacity_code_completion_n1');
  });

  it('burst: four profiles x queue depths 1..256, one request per user', () => {
    const plan = resolvePlan({}, 'burst');
    expect(plan.cells).toHaveLength(4 * BURST_DEPTHS.length);
    expect(plan.cells[0]).toMatchObject({
      id: 'burst_chatbot_q1', contextTokens: 1024, outputTokens: 256, concurrency: 1, rounds: 1, profile: 'chatbot',
      useCase: null,
    });
    expect(plan.cells.at(-1)).toMatchObject({
      id: 'burst_tool_calling_q256', contextTokens: 32768, concurrency: 256, profile: 'tool_calling',
    });
    expect(plan.burstTtftLimitMs).toBe(3000);
  });

  it('mix: four profiles x concurrency 1..32, 2 rounds', () => {
    const plan = resolvePlan({}, 'mix');
    expect(plan.cells.map((c) => c.id)).toEqual(
      ['chatbot', 'rag', 'agentic', 'tool_calling'].flatMap((p) => [1, 2, 4, 8, 16, 32].map((n) => `mix_${p}_n${n}`)),
    );
    expect(plan.cells[6]).toMatchObject({ contextTokens: 4096, outputTokens: 256, rounds: 2, profile: 'rag' });
  });

  it('gate: one cell of general_chatbot at 4 users, 2 rounds, 99% success', () => {
    const plan = resolvePlan({}, 'gate');
    expect(plan.gate).toEqual({ useCase: 'general_chatbot', concurrency: 4, rounds: 2, minSuccessRate: 0.99 });
    expect(plan.cells).toEqual([
      expect.objectContaining({
        id: 'gate_general_chatbot_n4', script: 'gate', contextTokens: 32768, outputTokens: 1024, concurrency: 4,
        rounds: 2, useCase: 'general_chatbot', profile: null, startSeconds: 0,
      }),
    ]);
  });
});

describe('resolvePlan: PLAN_DEFAULTS, the metrics URL and custom use cases', () => {
  it('a plan that gives nothing resolves to PLAN_DEFAULTS, with the metrics URL derived from the base URL and the ' +
    'monitor on', () => {
    const plan = resolvePlan(undefined, 'sweep');
    const d = PLAN_DEFAULTS;
    expect(plan.schemaVersion).toBe(1);
    expect(plan.name).toBe('sweep');
    expect(plan.target).toEqual({ ...d.target, metricsUrl: 'http://127.0.0.1:8000/metrics' });
    expect(plan.prompts).toEqual(d.prompts);
    expect(plan.limitStat).toBe(d.limitStat);
    // What the report reads, whatever the defaults say.
    expect(plan.summaryTrendStats).toEqual([...SUMMARY_TREND_STATS]);
    expect(plan.monitor).toEqual({ enabled: true, intervalSeconds: d.monitor.intervalSeconds });
    expect(plan.useCases).toEqual(USE_CASES);
    expect(plan.gate).toBeNull();
    expect(plan.schedule).toEqual(d.schedule);
  });

  it('derives the metrics URL from the base URL origin, drops trailing slashes, ' +
    'and disables the monitor without one', () => {
    const a = resolvePlan({ target: { baseUrl: 'https://llm.example.com:8443/v1/' } }, 'sweep');
    expect(a.target.baseUrl).toBe('https://llm.example.com:8443/v1');
    expect(a.target.metricsUrl).toBe('https://llm.example.com:8443/metrics');
    expect(resolvePlan({ target: { insecureSkipTLSVerify: true } }, 'sweep').target.insecureSkipTLSVerify).toBe(true);
    const b = resolvePlan({ target: { metricsUrl: null, seed: null } }, 'sweep');
    expect(b.target.metricsUrl).toBeNull();
    expect(b.target.seed).toBeNull();
    expect(b.monitor.enabled).toBe(false);
  });

  it('takes custom use cases, and resolves a gate section in any script', () => {
    const useCases = [
      {
        id: 'tiny', contextTokens: 128, outputTokens: 16, limits: [{ metric: 'ttft', operator: '<', value: 500 }],
        concurrencies: [1, 3],
      },
    ];
    const plan = resolvePlan({ useCases, gate: { useCase: 'tiny', concurrency: 2 } }, 'capacity');
    expect(plan.useCases).toEqual([
      {
        id: 'tiny', title: 'tiny', description: '', contextTokens: 128, outputTokens: 16,
        limits: [{ metric: 'ttft', operator: '<', value: 500, label: 'TTFT < 500 ms' }], concurrencies: [1, 3],
      },
    ]);
    expect(plan.cells.map((c) => c.id)).toEqual(['capacity_tiny_n1', 'capacity_tiny_n3']);
    expect(plan.gate).toEqual({ useCase: 'tiny', concurrency: 2, rounds: 2, minSuccessRate: 0.99 });
  });
});

describe('cell ids', () => {
  it.each(SCRIPT_NAMES)('%s: unique and made of [0-9a-zA-Z_-]', (script) => {
    const ids = resolveAny({}, script).cells.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^[0-9a-zA-Z_-]+$/);
  });

  it('formatTokens writes k for multiples of 1024 and rounds other large counts', () => {
    expect([
      formatTokens(512), formatTokens(1024), formatTokens(32768), formatTokens(1536), formatTokens(1000),
      formatTokens(999),
    ]).toEqual(['512', '1k', '32k', '1_5k', '1k', '999']);
  });

  it('rejects a plan that would give two cells one id (repeated values, or 1000 and 1024 both "1k")', () => {
    expect(planError({ sweep: { concurrencies: [1, 1] } })).toBe(
      'plan field "sweep" gives two cells the id "sweep_c1k_o1k_n1": remove the repeated value (ids round token ' +
      'counts, so 1000 and 1024 are both "1k")',
    );
    expect(planError({ sweep: { contexts: [1000, 1024], concurrencies: [2] } })).toContain(
      'gives two cells the id "sweep_c1k_o1k_n2"',
    );
    expect(planError({ capacity: { useCases: ['code_completion', 'code_completion'] } }, 'capacity')).toContain(
      'plan field "capacity" gives two cells the id "capacity_code_completion_n1"',
    );
  });
});

describe('schedule', () => {
  function expectSequential(plan: Plan): void {
    for (let i = 1; i < plan.cells.length; i++) {
      const prev = plan.cells[i - 1]!;
      expect(plan.cells[i]!.startSeconds).toBeGreaterThanOrEqual(
        prev.startSeconds + prev.maxDurationSeconds + prev.gracefulStopSeconds + plan.schedule.gapSeconds,
      );
    }
    const last = plan.cells.at(-1)!;
    expect(plan.totalSeconds).toBe(last.startSeconds + last.maxDurationSeconds + last.gracefulStopSeconds);
  }

  it.each(SCRIPT_NAMES)('%s: cells run strictly one after another', (script) => {
    expectSequential(resolveAny({}, script));
  });

  it('sizes slots from the estimate: hand-worked single-user cells', () => {
    // One user: prefill 1000 tok / 1000 tok/s = 1 s, decode 100 tok / 10 tok/s = 10 s -> 11 s per request.
    // Slot = ceil(11 s x 2 rounds x 1.5) = 33 s; gracefulStop = ceil(11 x 1.5) = 17 s; next start 33 + 17 + 3 = 53.
    // Second cell: 2 + 10 = 12 s -> slot 36 s, gracefulStop 18 s; total 53 + 36 + 18 = 107.
    const plan = resolvePlan(
      {
        sweep: { contexts: [1000, 2000], concurrencies: [1], rounds: 2, outputTokens: 100 },
        schedule: {
          prefillTokensPerSecond: 1000, decodeTokensPerSecond: 10, safetyFactor: 1.5, minCellSeconds: 1, gapSeconds: 3,
        },
      },
      'sweep',
    );
    expect(plan.cells.map((c) => [c.id, c.startSeconds, c.maxDurationSeconds, c.gracefulStopSeconds])).toEqual([
      ['sweep_c1k_o100_n1', 0, 33, 17],
      ['sweep_c2k_o100_n1', 53, 36, 18],
    ]);
    expect(plan.totalSeconds).toBe(107);
  });

  it('uses estimateRequestSeconds for larger batches, and at least minCellSeconds per slot', () => {
    const schedule = {
      prefillTokensPerSecond: 1000, decodeTokensPerSecond: 10, safetyFactor: 1, minCellSeconds: 1, gapSeconds: 0,
      cellSeconds: null, predictedCellSeconds: null,
    };
    const plan = resolvePlan(
      { sweep: { contexts: [1000], concurrencies: [4], rounds: 1, outputTokens: 100 }, schedule }, 'sweep',
    );
    const estimate = estimateRequestSeconds({ contextTokens: 1000, outputTokens: 100, concurrency: 4 }, plan.schedule);
    expect(estimate).toBeGreaterThan(4 + 10); // 4 prefills back to back, and slower decode than one user alone
    expect(plan.cells[0]).toMatchObject({
      maxDurationSeconds: Math.ceil(estimate), gracefulStopSeconds: Math.ceil(estimate),
    });
    const tiny = resolvePlan(
      { sweep: { contexts: [10], concurrencies: [1], rounds: 1, outputTokens: 1 }, schedule: { minCellSeconds: 60 } },
      'sweep',
    );
    expect(tiny.cells[0]!.maxDurationSeconds).toBe(60);
    expect(tiny.cells[0]!.gracefulStopSeconds).toBeGreaterThanOrEqual(1);
  });

  it('cellSeconds overrides every slot; gracefulStop stays estimated', () => {
    const plan = resolvePlan(
      {
        sweep: { contexts: [1000, 2000], concurrencies: [1], rounds: 2, outputTokens: 100 },
        schedule: {
          cellSeconds: 30, prefillTokensPerSecond: 1000, decodeTokensPerSecond: 10, safetyFactor: 1.5, gapSeconds: 3,
        },
      },
      'sweep',
    );
    expect(plan.cells.map((c) => [c.startSeconds, c.maxDurationSeconds, c.gracefulStopSeconds])).toEqual([
      [0, 30, 17],
      [50, 30, 18],
    ]);
    expect(plan.totalSeconds).toBe(98);
    expectSequential(plan);
    expect(resolvePlan({ schedule: { cellSeconds: null } }, 'gate').schedule.cellSeconds).toBeNull();
  });
});

describe('readResolvedPlan', () => {
  it('reads back a resolved plan written as JSON', () => {
    const plan = resolvePlan({}, 'gate');
    expect(readResolvedPlan(JSON.parse(JSON.stringify(plan)))).toEqual(plan);
  });

  it('checks every field as a plan input is checked, naming it', () => {
    const plan = JSON.parse(JSON.stringify(resolvePlan({}, 'capacity'))) as {
      cells: { rounds: unknown }[]; target: Record<string, unknown>;
    };
    plan.cells[3]!.rounds = 1.5;
    expect(() => readResolvedPlan(plan)).toThrow(
      new PlanError('plan.json field "cells[3].rounds" must be a whole number, got 1.5'),
    );
    plan.cells[3]!.rounds = 1;
    plan.target.url = 'http://x';
    expect(() => readResolvedPlan(plan)).toThrow('plan.json field "target.url" is not a known field');
  });

  it('rejects other shapes', () => {
    const message = 'plan.json: not a resolved plan of schema version 1 (was it written by this suite?)';
    for (const raw of [
      null, 'plan', [], {}, { schemaVersion: 2, cells: [] }, { schemaVersion: 1 }, { schemaVersion: '1', cells: [] },
      { schemaVersion: 1, cells: {} },
    ]) {
      expect(() => readResolvedPlan(raw)).toThrow(message);
    }
  });
});

describe('predicted cell seconds', () => {
  it('replace the estimate for the cells they name, with the safety factor applied', () => {
    const plan = resolvePlan(
      {
        sweep: { contexts: [1024], concurrencies: [1, 2], rounds: 2 },
        schedule: {
          safetyFactor: 1.5, minCellSeconds: 1, gapSeconds: 0, predictedCellSeconds: { sweep_c1k_o1k_n2: 10 },
        },
      },
      'sweep',
    );
    const [c1, c2] = plan.cells;
    expect(c2!.maxDurationSeconds).toBe(15);
    expect(c2!.gracefulStopSeconds).toBe(Math.ceil(5 * 0.5) + 1);
    expect(c1!.maxDurationSeconds).not.toBe(15);
  });

  it('reject a value that is not a number, naming the cell', () => {
    expect(() => resolvePlan({ schedule: { predictedCellSeconds: { x: 'soon' } } } as never, 'sweep')).toThrow(
      'schedule.predictedCellSeconds.x',
    );
  });
});

describe('the rate script', () => {
  it('makes one cell per use case and rate, its schedule round(rate x duration) requests, ' +
    'its slot the schedule and a tail', () => {
    const plan = resolvePlan({ rate: { useCases: ['code_completion'], rates: [0.5, 2], durationSeconds: 30 } }, 'rate');
    expect(plan.cells.map((c) => [c.id, c.arrivals?.requests, c.concurrency, c.rounds])).toEqual([
      ['rate_code_completion_r0_5', 15, 1, 1], ['rate_code_completion_r2', 60, 1, 1],
    ]);
    const [cell] = plan.cells;
    expect(cell!.arrivals).toMatchObject({
      process: 'poisson', burstiness: 1, seed: 42, lagLimitMs: 10, rampFromPerSecond: null,
    });
    expect(plan.cells[1]!.arrivals!.seed, 'each cell its own draws').toBe(43);
    // Code completion alone, on the default schedule's speeds: 1024 / 5000 + 128 / 50 s, doubled: 6 s.
    expect([cell!.maxDurationSeconds, cell!.gracefulStopSeconds]).toEqual([36, 1]);
    expect(readResolvedPlan(JSON.parse(JSON.stringify(plan)))).toEqual(plan);
  });

  it('takes rates per use case, a ramp and a gamma burstiness; Poisson keeps burstiness 1', () => {
    const plan = resolvePlan({
      rate: { useCases: ['code_completion', 'short_chatbot'], rates: { code_completion: [4], short_chatbot: [1, 3] },
        arrival: 'gamma', burstiness: 0.5, rampFromRate: 1, durationSeconds: 10 },
    }, 'rate');
    expect(plan.cells.map((c) => c.id)).toEqual([
      'rate_code_completion_r4', 'rate_short_chatbot_r1', 'rate_short_chatbot_r3',
    ]);
    // A ramp from 1 to 4 per second over 10 s: 25 requests.
    expect(plan.cells[0]!.arrivals).toMatchObject({
      process: 'gamma', burstiness: 0.5, rampFromPerSecond: 1, requests: 25,
    });
    const poisson = resolvePlan({ rate: { useCases: ['code_completion'], rates: [1], burstiness: 0.5 } }, 'rate');
    expect(poisson.cells[0]!.arrivals!.burstiness).toBe(1);
  });

  it('names a bad rate field in one line', () => {
    expect(planError({ rate: { rates: [0] } }, 'rate')).toBe(
      'plan field "rate.rates[0]" must be between 0.001 and 100000, got 0',
    );
    expect(planError({ rate: { rates: 'fast' } }, 'rate')).toBe(
      'plan field "rate.rates" must be a list of rates in requests per second, ' +
      'or an object of them by use case id, got "fast"',
    );
    expect(planError({ rate: { arrival: 'bursty' } }, 'rate')).toBe(
      'plan field "rate.arrival" is "bursty", not one of: constant, poisson, gamma',
    );
    expect(planError({ rate: { useCases: ['code_completion'], rates: { chat: [1] } } }, 'rate')).toBe(
      'plan field "rate.rates.chat" is not a known field (known: code_completion)',
    );
    expect(planError({ rate: { useCases: ['nope'] } }, 'rate')).toMatch(
      /^plan field "rate.useCases\[0\]" is "nope", not one of: /,
    );
  });
});

describe('prompts.prefixGroups (docs/guides/prefix-groups.md)', () => {
  const groups = { groups: 4, prefixTokens: 1000 };

  it('defaults to null, and is kept for the scripts that send prepared prompts, left out by sessions and trace', () => {
    expect(resolvePlan({}, 'sweep').prompts.prefixGroups).toBeNull();
    const plan = resolvePlan({ sweep: { contexts: [1024, 4096] }, prompts: { prefixGroups: groups } }, 'sweep');
    expect(plan.prompts).toEqual({ mode: 'unique', file: null, prefixGroups: groups });
    expect(readResolvedPlan(JSON.parse(JSON.stringify(plan)))).toEqual(plan);
    for (const script of ['capacity', 'burst', 'mix', 'gate', 'rate'] as const) {
      const resolved = resolvePlan({ prompts: { prefixGroups: { groups: 2, prefixTokens: 64 } } }, script);
      expect(resolved.prompts.prefixGroups, script).toEqual({ groups: 2, prefixTokens: 64 });
    }
    expect(resolvePlan({ prompts: { prefixGroups: groups } }, 'sessions').prompts.prefixGroups).toBeNull();
  });

  it('reads a plan.json written before it as no groups', () => {
    const plan = JSON.parse(JSON.stringify(resolvePlan({}, 'sweep'))) as { prompts: Record<string, unknown> };
    delete plan.prompts.prefixGroups;
    expect(readResolvedPlan(plan).prompts.prefixGroups).toBeNull();
  });

  it('needs a prefix shorter than every cell\'s context, whole numbers, and unique prompt lines', () => {
    const shortContext = { sweep: { contexts: [2048, 1000], concurrencies: [1] }, prompts: { prefixGroups: groups } };
    expect(planError(shortContext)).toBe(
      'plan field "prompts.prefixGroups.prefixTokens" must be below every cell\'s context length, got 1000 with cell ' +
      'sweep_c1k_o1k_n1 of 1000 tokens',
    );
    expect(planError({ prompts: { prefixGroups: { groups: 0, prefixTokens: 10 } } })).toBe(
      'plan field "prompts.prefixGroups.groups" must be between 1 and 1000000, got 0',
    );
    expect(planError({ prompts: { prefixGroups: { groups: 2 } } })).toMatch(
      /^plan field "prompts.prefixGroups.prefixTokens"/,
    );
    expect(planError({ prompts: { mode: 'shared-prefix', prefixGroups: groups } })).toBe(
      'plan field "prompts.mode" must be unique with prompts.prefixGroups, which gives prompts their prefixes',
    );
  });
});
