import { describe, expect, it } from 'vitest';
import type { PlanInput } from '../../lib/plan';
import type { LadderStep, UseCaseCapacity } from '../../analysis/capacity';
import type { Report } from '../../report/report-types';
import {
  verify, verifyPlanInput, verifySelection, verifySteps, VERIFY_RUN_OVERHEAD_SECONDS, VERIFY_STEP_OVERHEAD_SECONDS,
} from '../../whatif/verify';

/** A use case's ladder as the report holds it: steps with one TTFT check and one success check each. */
function useCase(id: string, steps: [users: number, ttftMs: number, ok: boolean][]): UseCaseCapacity {
  const ladder: LadderStep[] = steps.map(([users, ttft, ok]) => ({
    cellId: `capacity_${id}_n${users}`, concurrency: users, ok,
    checks: [
      { metric: 'ttft', label: 'TTFT < 1 s', expression: 'avg<1000', actual: ttft, ok },
      { metric: 'successRate', label: 'success >= 99%', expression: 'rate>=0.99', actual: 1, ok: true },
    ],
  }));
  const passes = steps.filter((s) => s[2]).map((s) => s[0]);
  const fails = steps.filter((s) => !s[2]).map((s) => s[0]);
  return {
    useCase: { id } as UseCaseCapacity['useCase'], source: 'capacity', cellIds: [], limits: [],
    result: {
      steps: ladder, kind: fails.length > 0 && passes.length > 0 ? 'within' : 'beyond',
      lastPass: passes.length > 0 ? Math.max(...passes) : null, firstFail: fails.length > 0 ? Math.min(...fails) : null,
      estimate: passes.length > 0 ? Math.max(...passes) : null, interpolated: false, brokenBy: null,
    },
    goodputAtCapacity: null,
  };
}

const report = (useCases: UseCaseCapacity[]) => ({ useCases, runDir: '/r' }) as unknown as Report;

describe('verification of a prediction', () => {
  const predicted = report([
    useCase('chat', [[1, 100, true], [8, 800, true], [9, 1100, false]]),
    useCase('code', [[1, 50, true], [4, 900, true], [5, 1200, false]]),
    useCase('docs', [[1, 90, true], [2, 400, true]]),
  ]);

  it('measures the steps either side of each capacity found between two steps, for the first n use cases', () => {
    expect(verifySteps(predicted, 1)).toEqual([
      { useCase: 'chat', users: 8, predictedOk: true }, { useCase: 'chat', users: 9, predictedOk: false },
    ]);
    // docs has no failing step: no capacity between two steps to check.
    expect(verifySteps(predicted, 5).map((s) => s.useCase)).toEqual(['chat', 'chat', 'code', 'code']);
  });

  it('measures first where the prediction is least certain: beyond the fit run, then the widest interval', () => {
    const uncertain = {
      ...predicted,
      predicted: {
        reach: [
          { useCase: 'chat', range: 'inside', beyond: [], fitCheck: null },
          { useCase: 'code', range: 'extrapolated', beyond: ["prompt 65536 tokens > the fit's longest 16384"],
            fitCheck: null },
        ],
        intervals: [{ useCase: 'chat', low: 6, high: 9, resamples: 20 }],
      },
    } as unknown as Report;
    expect(verifySteps(uncertain, 1).map((s) => s.useCase)).toEqual(['code', 'code']);
    const inside = { ...uncertain, predicted: { ...uncertain.predicted!, reach: [] } } as unknown as Report;
    // Neither extrapolated: chat's interval is wider than code's (none).
    expect(verifySteps(inside, 1).map((s) => s.useCase)).toEqual(['chat', 'chat']);
  });

  it("searches one use case between its two steps, keeping the plan's settings for it and dropping the others'", () => {
    const plan: PlanInput = {
      name: 'quick', sweep: { contexts: [1024] },
      capacity: { useCases: ['chat', 'code'], outputTokens: { chat: 128, code: 64 }, rounds: 1, maxUsers: 128 },
    };
    const v = verifyPlanInput(plan, 'code', verifySteps(predicted, 2));
    expect(v.sweep).toBeUndefined();
    expect(v.capacity).toMatchObject({
      useCases: ['code'], concurrencies: { code: [4, 5] }, outputTokens: { code: 64 },
      startUsers: 4, maxUsers: 5, rounds: 1,
    });
  });

  it('states each limit predicted against measured, which verdicts agree, and the error over timings only', () => {
    const steps = verifySteps(predicted, 2);
    const measured = [
      report([useCase('chat', [[8, 1000, true], [9, 1250, false]])]),
      report([useCase('code', [[4, 1125, false], [3, 700, true]])]),
    ];
    const v = verify(predicted, measured, steps);
    // The search for code stopped below 5 users once 4 broke: three steps measured, code at 4 against the prediction.
    expect(v.measuredSteps).toBe(3);
    expect(v.agreed).toBe(2);
    const ttft = v.checks.filter((c) => c.metric === 'ttft').map((c) => c.errorPct);
    expect(ttft).toEqual([-20, -12, -20, null]);
    // The success shares (0% off each) do not thin out the error: 12, 20, 20.
    expect(v.medianErrorPct).toBe(20);
    expect(v.maxErrorPct).toBe(20);
    expect(v.capacities).toEqual([
      { useCase: 'chat', predicted: '8', measured: '8' }, { useCase: 'code', predicted: '4', measured: '3' },
    ]);
  });
});

describe('verification within a time budget', () => {
  const budgetPredicted = report([
    useCase('chat', [[1, 100, true], [8, 800, true], [9, 1100, false]]),
    useCase('code', [[1, 50, true], [4, 900, true], [5, 1200, false]]),
  ]);

  it('passes over a use case whose steps would overrun the time budget, estimated from the predicted cells', () => {
    // (Without the capacity part's search settings in the report, the plan's defaults: 1 warm-up, 2 measured.)
    const cell = (id: string, seconds: number) => ({ id, windowStartMs: 1_000, windowEndMs: 1_000 + seconds * 1000 });
    const timed = {
      ...budgetPredicted,
      cells: [
        cell('capacity_chat_n8', 200), cell('capacity_chat_n9', 220), cell('capacity_code_n4', 20),
        cell('capacity_code_n5', 25),
      ],
    } as unknown as Report;
    // Each window with its warm-up, one request per user beside the default two measured: half the window again.
    const chat = VERIFY_RUN_OVERHEAD_SECONDS + (200 + 220) * 1.5 + 2 * VERIFY_STEP_OVERHEAD_SECONDS;
    const code = VERIFY_RUN_OVERHEAD_SECONDS + (20 + 25) * 1.5 + 2 * VERIFY_STEP_OVERHEAD_SECONDS;
    // Unbounded, the most uncertain first (the report's order here): chat, then code.
    expect(verifySelection(timed, 2))
      .toEqual({ steps: verifySteps(timed, 2), seconds: Math.round(chat + code), leftOut: [] });
    // A budget chat would overrun: code is measured, chat named as passed over with its estimate.
    const bounded = verifySelection(timed, 2, chat - 1);
    expect(bounded.steps.map((s) => [s.useCase, s.users])).toEqual([['code', 4], ['code', 5]]);
    expect(bounded.seconds).toBe(Math.round(code));
    expect(bounded.leftOut).toEqual([{ useCase: 'chat', seconds: Math.round(chat) }]);
    // A budget nothing fits: no step.
    expect(verifySelection(timed, 2, code - 1).steps).toEqual([]);
  });
});
