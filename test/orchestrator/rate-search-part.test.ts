// Tests orchestrator/rate-search-part.ts: a searched rate plan's steps, each one rate cell sized for its rate, and the
// plan syntax that asks for the search. Runs in Node (vitest).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolvePlan } from '../../lib/plan';
import { RateSearchRun, rateStepPlan, searchAxis, stepPartName } from '../../orchestrator/rate-search-part';

const INPUT = { rate: { useCases: ['code_completion'], durationSeconds: 20, search: { startRate: 6 } } };

describe('rate.search in a plan', () => {
  it('resolves to the search settings and one cell per use case at the start rate', () => {
    const plan = resolvePlan(INPUT, 'rate');
    expect(plan.rateSearch).toEqual({ startRate: 6, maxRate: 1000, resolutionPercent: 5 });
    expect(plan.cells.map((c) => c.id)).toEqual(['rate_code_completion_r6']);
  });

  it('is null for a ladder and for other scripts', () => {
    expect(resolvePlan({ rate: { rates: [1, 2] } }, 'rate').rateSearch).toBeNull();
    expect(resolvePlan(INPUT, 'capacity').rateSearch).toBeNull();
  });

  it('rejects a resolution out of range with the field named', () => {
    expect(() => resolvePlan({ rate: { search: { resolutionPercent: 80 } } }, 'rate')).toThrow(/resolutionPercent/);
  });
});

describe('rateStepPlan', () => {
  it('holds one cell at the rate, its request count and slot sized for it', () => {
    const plan = resolvePlan(INPUT, 'rate');
    const step = rateStepPlan(plan, 'code_completion', 12.5);
    expect(step.cells).toHaveLength(1);
    const cell = step.cells[0]!;
    expect(cell.id).toBe('rate_code_completion_r12_5');
    expect(cell.arrivals?.ratePerSecond).toBe(12.5);
    expect(cell.arrivals?.requests).toBe(250);
    expect(cell.arrivals?.seed).toBe(plan.cells[0]!.arrivals?.seed);
    expect(step.totalSeconds).toBeGreaterThanOrEqual(20);
    expect(rateStepPlan(plan, 'code_completion', 12.5, true).cells[0]!.id).toBe('rate_code_completion_r12_5_again');
  });

  it('names step folders in the order run', () => {
    expect(stepPartName(3)).toBe('rate-search-03');
  });
});

describe('RateSearchRun', () => {
  it('starts at the plan start rate and ends once every use case has an outcome', () => {
    const run = new RateSearchRun(resolvePlan(INPUT, 'rate'), { startRate: 6, maxRate: 6, resolutionPercent: 5 });
    const first = run.next()!;
    expect(first.rate).toBe(6);
    first.search.steps.push({ rate: 6, ok: true, checks: [], sample: null, clientLimited: null });
    expect(run.next()).toBeNull();
    expect(run.summary()[0]).toMatch(/^code_completion: 6 req\/s, no rate broke a limit; steps 6\+$/);
  });
});

describe('RateSearchRun summary', () => {
  it('says a search the client ended is undetermined, not below its first rate', () => {
    const run = new RateSearchRun(resolvePlan(INPUT, 'rate'), { startRate: 6, maxRate: 100, resolutionPercent: 5 });
    for (let i = 0; i < 2; i++) {
      const step = run.next()!;
      step.search.steps.push({ rate: step.rate, ok: true, checks: [], sample: null, clientLimited: 'client-bound' });
    }
    expect(run.next()).toBeNull();
    expect(run.summary()[0]).toMatch(/^code_completion: undetermined \(no clean step passed\), no clean step broke/);
    expect(run.summary()[0]).toMatch(/the client limited 6 req\/s twice \(client-bound\); steps 6! 6!$/);
  });
});

describe('a searched trace', () => {
  const file = path.join(import.meta.dirname, '..', '..', 'examples', 'traces', 'mooncake.jsonl');
  const input = { trace: { file, search: { startSpeed: 1.5 } } };

  it('resolves to one cell at the start speed and the speed search', () => {
    const plan = resolvePlan(input, 'trace', (f) => readFileSync(f, 'utf8'));
    expect(plan.rateSearch).toEqual({ startRate: 1.5, maxRate: 100, resolutionPercent: 5 });
    expect(plan.cells.map((c) => c.id)).toEqual(['trace_s1_5']);
    expect(searchAxis(plan).unit).toBe('x');
  });

  it('drafts each step as the plan drafts a speed, its slot sized for it', () => {
    const plan = resolvePlan(input, 'trace', (f) => readFileSync(f, 'utf8'));
    const ladder = resolvePlan({ trace: { file, speeds: [3] } }, 'trace', (f) => readFileSync(f, 'utf8'));
    const step = rateStepPlan(plan, plan.cells[0]!.useCase!, 3);
    expect(step.cells).toEqual(ladder.cells);
    expect(step.totalSeconds).toBe(ladder.totalSeconds);
    expect(stepPartName(2, 'trace')).toBe('trace-search-02');
  });
});
