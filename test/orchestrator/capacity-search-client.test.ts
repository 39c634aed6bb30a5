// Tests orchestrator/capacity-search.ts CapacitySearch: a step whose client limited it (analysis/client-bound.ts) is no
// measurement of the server, so it never decides a capacity: it is measured again under a cell id of its own, and a
// step client-bound twice ends the search with the capacity undetermined. Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { CapacitySearch } from '../../orchestrator/capacity-search';
import { drivenCells } from '../../orchestrator/driven-results';
import type { StepRequest, StepResult, StepSpec } from '../../orchestrator/driver';
import { USE_CASES } from '../../thresholds/use-cases';
import type { CapacitySearchConfig } from '../../lib/plan';

// TTFT < 8000 ms and decode speed > 15 tok/s (mean per step).
const chat = USE_CASES.find((u) => u.id === 'general_chatbot')!;
const config: CapacitySearchConfig = {
  warmupRequests: 0, minRequestsPerUser: 2, minMeasuredSeconds: 0, startUsers: 1, maxUsers: { general_chatbot: 64 },
  exactBelow: 16, resolutionPercent: 5, maxRepeats: 0,
};

/**
 * A server at 300 / users tok/s per request (20 users reach 15 tok/s, not above it: the capacity is 19), read by a
 * client that read `together` of each request's 10 ITL samples together.
 */
function measure(spec: StepSpec, index: number, together: number): StepResult {
  const n = spec.cell.concurrency;
  const speed = 300 / n;
  const requests: StepRequest[] = Array.from({ length: 2 * n + 4 }, (_, i) => ({
    ticket: i, ok: true, startMs: index * 1000, endMs: index * 1000 + 900, ttftMs: 500, ttfcMs: 500, e2eMs: 1000,
    tpotMs: 1000 / speed, decodeTokensPerSecond: speed, prefillTokensPerSecond: 1e4, outputTokens: 11,
    itlMs: Array.from({ length: 10 }, () => 1000 / speed), goodput: true, phase: 'measured', vu: i % n, runner: 0,
    readLagMs: together > 0 ? 80 : 0.2, stallMs: 0, cpuPerCore: null, tokensReadTogether: together,
  }));
  return { index, spec, startMs: index * 1000, endMs: index * 1000 + 900, requests };
}

/** Runs the search to its end; `together(users, measurements of those users so far)` scripts the client. */
function run(together: (users: number, before: number) => number): { search: CapacitySearch; steps: StepResult[] } {
  const search = new CapacitySearch([{ useCase: chat, outputTokens: 256 }], config, 'avg');
  const steps: StepResult[] = [];
  for (let spec = search.next(steps); spec !== null; spec = search.next(steps)) {
    const users = spec.cell.concurrency;
    const before = steps.filter((s) => s.spec.cell.concurrency === users).length;
    steps.push(measure(spec, steps.length, together(users, before)));
    if (steps.length > 60) throw new Error('the search did not end');
  }
  return { search, steps };
}

describe('a client-bound step in the capacity search', () => {
  it('is measured again under a cell id of its own, and the clean measurement decides', () => {
    const clean = run(() => 0);
    // The first measurement of 16 users read 2 of 10 tokens together: 20%, far over the 1% limit.
    const retried = run((users, before) => (users === 16 && before === 0 ? 2 : 0));
    expect(clean.search.searches[0]!.outcome).toEqual({ kind: 'done', lastPass: 19, firstFail: 20 });
    expect(retried.search.searches[0]!.outcome).toEqual(clean.search.searches[0]!.outcome);
    const ids = retried.steps.map((s) => s.spec.cell.id);
    expect(ids).toContain('capacity_general_chatbot_n16');
    expect(ids.indexOf('capacity_general_chatbot_n16_again')).toBe(ids.indexOf('capacity_general_chatbot_n16') + 1);
    // Two cells in plan.json, each judged on its own samples by the report.
    const cells = drivenCells(retried.steps, new Map(), 0).filter((c) => c.concurrency === 16);
    expect(cells.map((c) => c.id)).toEqual(['capacity_general_chatbot_n16', 'capacity_general_chatbot_n16_again']);
  });

  it('ends the search, undetermined above the last clean pass, when the step is client-bound again', () => {
    const { search, steps } = run((users) => (users >= 16 ? 1 : 0));
    const s = search.searches[0]!;
    expect(s.decision).toBe('client-bound');
    expect(s.outcome).toEqual({ kind: 'done', lastPass: 8, firstFail: null });
    expect(s.clientBound).toMatchObject([{ users: 16, cause: { reading: { kind: 'readTogether', share: 0.1 } } }]);
    expect(steps.map((r) => r.spec.cell.concurrency)).toEqual([1, 2, 4, 8, 16, 16]);
  });
});
