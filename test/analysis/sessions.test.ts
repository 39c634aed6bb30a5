// The sessions figures of a cell and of a use case: requests in flight, turns, capacity in active users.
// Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { activeUsersCapacities } from '../../analysis/active-users';
import { ladderLimits, useCaseCapacity } from '../../analysis/capacity';
import { addSessionSample, newSessionAccumulator } from '../../analysis/session-samples';
import { addRequestSpan, newRequestSpans } from '../../analysis/request-spans';
import { inFlight, sessionCellStats } from '../../analysis/sessions';
import { resolvePlan } from '../../lib/plan';
import type { Report } from '../../report/report-types';
import { activeUsersSection } from '../../report/sections/active-users';
import { cell, flat } from '../report/helpers';
import { ladderDisplay } from '../../report/capacity-words';

describe('inFlight', () => {
  it('is the time-weighted mean and 95th percentile of the requests running, worked by hand', () => {
    const starts = [0, 5, 12];
    const ends = [10, 15, 20];
    // [0,20]: one request for 5 + 2 + 5 ms, two for 5 + 3 ms: mean (12 + 16) / 20; two for 40% of the time.
    expect(inFlight(starts, ends, 0, 20)).toEqual({ mean: 1.4, p95: 2 });
    // [6,14]: two for 4 + 2 ms, one for 2 ms.
    expect(inFlight(starts, ends, 6, 14)).toEqual({ mean: 1.75, p95: 2 });
    // One ending as the next starts is never two at once; nothing outside the window counts.
    expect(inFlight([0, 5, 30], [5, 10, 40], 0, 10)).toEqual({ mean: 1, p95: 1 });
    expect(inFlight([], [], 0, 10)).toEqual({ mean: 0, p95: 0 });
    expect(inFlight([0], [1], 5, 5)).toBeNull();
  });
});

describe('sessionCellStats', () => {
  it('gives TTFT and hit rate by turn from measured turns, and spans from every request', () => {
    const acc = newSessionAccumulator();
    const spans = newRequestSpans();
    const add = (key: string, turn: string, v: number, at = 0, measured = true) => {
      // read-samples.ts keeps every request's span, whatever its phase.
      if (key === 'e2e') addRequestSpan(spans, at, v);
      addSessionSample(acc, key, { turn }, v, measured);
    };
    // Turn 1: two requests, nothing cached (vLLM writes no cached_tokens then). Turn 2: one, 900 of 1000 cached.
    add('ttft', '1', 100);
    add('ttft', '1', 300);
    add('inputTokens', '1', 800);
    add('inputTokens', '1', 800);
    add('ttft', '2', 50);
    add('inputTokens', '2', 1000);
    add('cachedTokens', '2', 900);
    // A warm-up turn counts in flight, not in the turns.
    add('ttft', '16+', 10, 0, false);
    add('e2e', '1', 1000, 1000, false);
    add('e2e', '2', 1000, 2000);
    // The spans are the part's: a request of the step before, running into this one, counts too.
    spans.starts.push(1500);
    spans.ends.push(2500);
    const s = sessionCellStats(acc, spans, { startMs: 0, endMs: 2000 });
    expect(s.turns).toEqual([
      { turn: '1', requests: 2, ttftMeanMs: 200, ttftP95Ms: expect.any(Number) as number, hitRate: 0 },
      { turn: '2', requests: 1, ttftMeanMs: 50, ttftP95Ms: 50, hitRate: 0.9 },
    ]);
    expect(s.hitRate).toBe(900 / 2600);
    expect(s.concurrentMean).toBe(1.25);
    expect(s.concurrentP95).toBe(2);
    // A server that never reports cached tokens: no hit rate rather than 0.
    const silent = newSessionAccumulator();
    addSessionSample(silent, 'inputTokens', { turn: '1' }, 500, true);
    expect(sessionCellStats(silent, null, null))
      .toMatchObject({ hitRate: null, concurrentMean: null, turns: [{ hitRate: null }] });
  });
});

describe('activeUsersCapacities', () => {
  it("reads the capacity off the sessions steps, beside the concurrent capacity and Little's law", () => {
    const limits = [{ metric: 'decodeSpeed', operator: '>', value: 100 }];
    const useCases = [{ id: 'tiny', contextTokens: 2000, outputTokens: 50, limits }];
    const plan = resolvePlan({
      useCases, sessions: { models: { tiny: { turns: 2, thinkTime: { distribution: 'constant', seconds: 3 } } } },
    }, 'sessions');
    const sessions = (n: number, speed: number, mean: number) => cell({
      id: `sessions_tiny_n${n}`, script: 'sessions', useCase: 'tiny', concurrency: n, measurement: 'search',
      metrics: { decodeSpeed: flat(speed), e2e: flat(1000), ttft: flat(100) },
      sessions: { concurrentMean: mean, concurrentP95: Math.ceil(mean * 1.5), hitRate: 0.5, turns: [] },
    });
    const capacity = (n: number, speed: number) => cell({
      id: `capacity_tiny_n${n}`, script: 'capacity', useCase: 'tiny', concurrency: n, measurement: 'search',
      metrics: { decodeSpeed: flat(speed) },
    });
    const cells = [
      capacity(4, 120), capacity(5, 90), sessions(8, 130, 2.5), sessions(12, 110, 3.2), sessions(13, 95, 3.4),
    ];
    const concurrent = [useCaseCapacity(plan.useCases[0]!, cells, 'avg', 0.99)];
    const [a] = activeUsersCapacities([plan], cells, 'avg', 0.99, concurrent);
    expect(a!.limits).toEqual(ladderLimits(plan.useCases[0]!.limits, 'avg', 0.99));
    expect(a!.result).toMatchObject({ kind: 'within', lastPass: 12, firstFail: 13, estimate: 12, interpolated: false });
    expect(a!.atCapacity).toMatchObject({
      cellId: 'sessions_tiny_n12', users: 12, concurrentMean: 3.2, requestSeconds: 1, hitRate: 0.5,
    });
    expect(a!.atCapacity!.usersPerSlot).toBeCloseTo(12 / 3.2, 12);
    // Think 3 s over requests of 1 s: k = 3, so (3 + 1) x 4 concurrent = 16 users by Little's law; 12 measured.
    expect(a).toMatchObject({ concurrentCapacity: 4, ratioToConcurrent: 3, thinkToRequest: 3, littleLawUsers: 16 });
    expect(activeUsersCapacities([resolvePlan({}, 'capacity')], cells, 'avg', 0.99, concurrent)).toEqual([]);
  });

  it('describes no step by turn when the client set the pace of the deciding one, and says so', () => {
    const limits = [{ metric: 'e2e', operator: '<', value: 5000 }];
    const useCases = [{ id: 'tiny', title: 'Tiny', contextTokens: 2000, outputTokens: 50, limits }];
    const plan = resolvePlan({
      useCases, sessions: { models: { tiny: { turns: 2, thinkTime: { distribution: 'constant', seconds: 1 } } } },
    }, 'sessions');
    const bound = cell({
      id: 'sessions_tiny_n3', script: 'sessions', useCase: 'tiny', concurrency: 3,
      clientBound: { agentCpuShare: 0.95, reading: null, stall: null },
      metrics: { e2e: flat(1000) }, sessions: { concurrentMean: 2, concurrentP95: 3, hitRate: 0.5, turns: [] },
    });
    const [a] = activeUsersCapacities([plan], [bound], 'avg', 0.99, []);
    expect(ladderDisplay(a!.result)).toBe('undetermined: client-bound at 3');
    expect(a!.atCapacity).toBeNull();
    const report = { activeUsers: [a!], limitStat: 'avg' } as unknown as Report;
    const text = JSON.stringify(activeUsersSection(report, new Set()));
    expect(text).toContain('the client, not the server, set the pace of the step that would decide it');
    expect(text).not.toContain('broke a limit');
  });
});
