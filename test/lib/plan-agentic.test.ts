// The plan's agentic section: defaults, overrides, the ladder and its slots, the gate tier as k6 thresholds, and
// one-line errors naming the field. Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { resolvePlan } from '../../lib/plan';
import { buildOptions } from '../../lib/options';
import { DEFAULT_AGENT, DEFAULT_TIERS } from '../../thresholds/agentic';
import { planError } from './plan-error';

describe('agentic plan', () => {
  it('takes the defaults, a field of the model over them, and a cell per number of agents', () => {
    const plan = resolvePlan({ agentic: { agents: [4, 1, 4], model: { turns: 5 } } }, 'agentic');
    expect(plan.agentic!.model).toEqual({ ...DEFAULT_AGENT, turns: 5 });
    expect(plan.agentic!.tiers).toEqual(DEFAULT_TIERS);
    // System prompt, the catalog's descriptions and a user message: 2048 + 8 x 64 + 64.
    expect(plan.cells.map((c) => [c.id, c.concurrency, c.contextTokens])).toEqual([
      ['agentic_n1', 1, 2624], ['agentic_n4', 4, 2624],
    ]);
    // Each step holds ramp 5 + warm-up 10 + hold 60 s.
    expect(plan.cells.map((c) => c.maxDurationSeconds)).toEqual([75, 75]);
    expect(plan.cells[1]!.startSeconds).toBeGreaterThan(75);
  });

  it("turns the gate tier's limits into the cells' k6 thresholds, on their statistics", () => {
    const plan = resolvePlan({ agentic: { agents: [2], gateTier: 'standard' } }, 'agentic');
    const { thresholds } = buildOptions(plan);
    expect(thresholds['llm_decode_speed{cell:agentic_n2,phase:measured}']).toEqual(['p(25)>=20']);
    expect(thresholds['llm_ttft{cell:agentic_n2,phase:measured}']).toEqual(['p(90)<=8000']);
    const ungated = buildOptions(resolvePlan({ agentic: { agents: [2] } }, 'agentic')).thresholds;
    expect(ungated['llm_ttft{cell:agentic_n2,phase:measured}']).toEqual(['max>=0']);
  });

  it('names the field of a bad value in one line', () => {
    expect(planError({ agentic: { gateTier: 'gold' } }, 'agentic')).toBe(
      'plan field "agentic.gateTier" is "gold", not one of the tiers: interactive, standard, batch',
    );
    expect(planError({ target: { api: 'completions' } }, 'agentic')).toBe(
      'plan field "target.api" must be chat for the agentic script: its tool calls are the chat API\'s',
    );
    expect(planError({ agentic: { model: { toolLoopDepth: { min: 3, max: 2 } } } }, 'agentic'))
      .toMatch(/^plan field "agentic\.model\.toolLoopDepth" must have max >= min/);
    expect(planError({ agentic: { tiers: [{ id: 'a', limits: [] }] } }, 'agentic'))
      .toBe('plan field "agentic.tiers[0].limits" must be a non-empty list');
    expect(planError({ agentic: { tiers: [
      { id: 'a', limits: [{ metric: 'ttft', stat: 'p(90)', operator: '<', value: 1 }] },
      { id: 'a', limits: [{ metric: 'ttft', stat: 'p(90)', operator: '<', value: 2 }] },
    ] } }, 'agentic')).toMatch(/^plan field "agentic\.tiers" must give each tier its own id/);
    expect(planError({ agentic: { tiers: [{ id: 'a', limits: [{ metric: 'ttft', stat: 'p(33)', operator: '<',
      value: 1 }] }] } }, 'agentic')).toBe(
      'plan field "agentic.tiers[0].limits[0].stat" is "p(33)", not one of: ' +
        'avg, med, p(25), p(75), p(90), p(95), p(99)',
    );
  });
});
