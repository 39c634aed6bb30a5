// The plan's agentic section: defaults, overrides, the ladder and its slots, the gate tier as k6 thresholds, and
// one-line errors naming the field. Runs in Node (vitest).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { resolvePlan } from '../../lib/plan';
import { buildOptions } from '../../lib/options';
import { DEFAULT_AGENT, DEFAULT_TIERS } from '../../thresholds/agentic';
import { oneLinePlanError, planError } from './plan-error';

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
      'plan field "target.api" must be chat, responses or messages for the agentic script (tool calls), ' +
      'got completions',
    );
    for (const api of ['responses', 'messages'] as const)
      expect(resolvePlan({ target: { api }, agentic: { agents: [2] } }, 'agentic').target.api).toBe(api);
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

  it('replays an agent trace: its summary in the plan, its sizes in the cells, its faults in one line', () => {
    const file = 'examples/traces/agent-otel.jsonl';
    const read = (path: string) => readFileSync(path, 'utf8');
    const plan = resolvePlan({ agentic: { agents: [2], trace: { file } } }, 'agentic', read);
    const t = plan.agentic!.trace!;
    expect([t.format, t.skipBadRows, t.summary.sessions, t.summary.calls, t.summary.blocks])
      .toEqual(['otel', false, 4, 15, 'sessions']);
    expect(plan.cells[0]!.contextTokens).toBe(t.summary.maxInputTokens);
    expect(plan.cells[0]!.outputTokens).toBe(t.summary.maxOutputTokens);
    const missing = { agentic: { trace: { file: 'nope.jsonl' } } };
    expect(oneLinePlanError(() => resolvePlan(missing, 'agentic', read), 'no file'))
      .toMatch(/^plan field "agentic\.trace\.file" "nope\.jsonl" cannot be read: /);
    const azure = 'examples/traces/azure.csv';
    expect(oneLinePlanError(() => resolvePlan({ agentic: { trace: { file: azure } } }, 'agentic', read), 'azure'))
      .toBe(`${azure}: no row names a session; an agent trace needs Mooncake rows with session_id, Bailian ` +
        'conversations or an OpenTelemetry span export');
  });
});
