import { describe, expect, it } from 'vitest';
import type { StepRequest, StepResult, StepSpec } from '../../orchestrator/driver';
import { stepInFlight } from '../../orchestrator/step-in-flight';
import type { Phase } from '../../lib/drive';

const SPEC = {
  cell: { id: 'capacity_chat_n2', script: 'capacity', contextTokens: 512, outputTokens: 16, concurrency: 2 },
  mode: { kind: 'steady' },
} as unknown as StepSpec;

/** A request of `vu` from `startMs` to `endMs` on its runner's clock. */
function request(vu: number, [startMs, endMs]: [number, number], phase: Phase, runner = 0): StepRequest {
  return {
    ticket: 0, ok: true, startMs, endMs, ttftMs: 1, ttfcMs: 1, e2eMs: endMs - startMs, tpotMs: 1,
    decodeTokensPerSecond: 1, prefillTokensPerSecond: 1, outputTokens: 2, itlMs: [1], goodput: null, readLagMs: 0,
    stallMs: 0, cpuPerCore: null, tokensReadTogether: 0, phase, vu, runner,
  };
}

const requestsOf = (steps: readonly StepResult[]) => steps.flatMap((r) => r.requests);
const step = (index: number, requests: StepRequest[]): StepResult =>
  ({ index, spec: SPEC, startMs: 0, endMs: 0, requests });

describe('stepInFlight: the mean requests the client held in flight while a step was measured', () => {
  it('counts warm-up and transition requests too, over the time the measured ones ran', () => {
    // User 1: measured 0-100 and 100-200. User 2 joins: warm-up 0-50, then measured 60-200. Window 0-200.
    const s = step(1, [
      request(1, [0, 100], 'measured'), request(1, [100, 200], 'measured'),
      request(2, [0, 50], 'warmup'), request(2, [60, 200], 'measured'),
    ]);
    expect(stepInFlight([s], requestsOf([s]))).toBeCloseTo((100 + 100 + 50 + 140) / 200, 9);
    // The step before it left a request running into it (a transition): its 30 ms inside count.
    const before = step(0, [request(3, [-50, 30], 'transition')]);
    expect(stepInFlight([s], requestsOf([before, s]))).toBeCloseTo((390 + 30) / 200, 9);
  });

  it('leaves out the time between two measurements of a step, and a request that ran in it', () => {
    const first = step(1, [request(1, [0, 100], 'measured'), request(2, [0, 100], 'measured')]);
    const other = step(2, [request(1, [100, 900], 'measured')]);
    const again = step(3, [request(1, [900, 1000], 'measured'), request(2, [900, 950], 'measured')]);
    expect(stepInFlight([first, again], requestsOf([first, other, again]))).toBeCloseTo((200 + 150) / 200, 9);
  });

  it('reads each runner of a split run on its own clock and adds their means', () => {
    const s = step(1, [
      request(1, [0, 100], 'measured', 0), request(2, [0, 50], 'measured', 0),
      // Runner 2's clock began 10 s before: the same time reads 10,000 ms more.
      request(3, [10_000, 10_100], 'measured', 1), request(4, [10_000, 10_100], 'measured', 1),
    ]);
    expect(stepInFlight([s], requestsOf([s]))).toBeCloseTo(1.5 + 2, 9);
  });

  it('is null for a step with no measured request', () => {
    const s = step(1, [request(1, [0, 100], 'warmup'), request(2, [0, 100], 'transition')]);
    expect(stepInFlight([s], requestsOf([s]))).toBeNull();
  });
});
