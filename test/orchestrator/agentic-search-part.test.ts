// Tests orchestrator/agentic-search-part.ts and the plan syntax that asks for the agents' search: a searched plan's
// first step, each step's plan one step of N agents held as a ladder's step, the search's settings in one-line errors.
// Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { resolvePlan } from '../../lib/plan';
import { PLAN_DEFAULTS } from '../../lib/plan-defaults';
import { AgenticSearchRun, agenticStepPartName, agenticStepPlan } from '../../orchestrator/agentic-search-part';
import { planError } from '../lib/plan-error';

const INPUT = { agentic: { rampSeconds: 1, warmupSeconds: 2, holdSeconds: 10, search: { startAgents: 3 } } };

describe('agentic.search in a plan', () => {
  it("resolves to the search's settings, the defaults filled in, and one cell at startAgents", () => {
    const plan = resolvePlan(INPUT, 'agentic');
    expect(plan.agentic!.search).toEqual({ ...PLAN_DEFAULTS.agenticSearch, startAgents: 3 });
    expect(plan.cells.map((c) => [c.id, c.concurrency])).toEqual([['agentic_n3', 3]]);
    expect(resolvePlan({ agentic: { agents: [1, 2] } }, 'agentic').agentic!.search).toBeNull();
  });

  it('names a bad field in one line', () => {
    expect(planError({ agentic: { search: { startAgents: 8, maxAgents: 4 } } }, 'agentic'))
      .toMatch(/^plan field "agentic\.search" must have maxAgents >= startAgents/);
    expect(planError({ agentic: { search: { resolutionPercent: 80 } } }, 'agentic'))
      .toMatch(/^plan field "agentic\.search\.resolutionPercent"/);
  });
});

describe('agenticStepPlan', () => {
  it('holds one step of N agents, slot and id as the ladder gives them, its repeat under an id of its own', () => {
    const plan = resolvePlan(INPUT, 'agentic');
    const ladder = resolvePlan({ agentic: { ...INPUT.agentic, search: undefined, agents: [12] } }, 'agentic');
    const step = agenticStepPlan(plan, 12);
    expect(step.cells).toHaveLength(1);
    expect(step.cells[0]).toEqual(ladder.cells[0]);
    expect(step.cells[0]!.maxDurationSeconds).toBe(13);
    expect(step.agentic!.search).toEqual(plan.agentic!.search);
    expect(agenticStepPlan(plan, 12, true).cells[0]!.id).toBe('agentic_n12_again');
    expect(agenticStepPartName(3)).toBe('agentic-search-03');
  });

  it("starts the run's search at startAgents", () => {
    const run = new AgenticSearchRun(resolvePlan(INPUT, 'agentic'), 0.99);
    const first = run.next()!;
    expect([first.agents, first.again, first.plan.cells[0]!.id]).toEqual([3, false, 'agentic_n3']);
    expect(run.summary().at(-1)).toMatch(/^steps none/);
  });
});
