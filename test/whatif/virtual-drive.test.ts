// The virtual drive: the bench's Driver against the batcher in virtual time, and its requests as the samples the
// report reads (report/samples-collector.ts). Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { FixedSteps, type StepSpec } from '../../orchestrator/driver';
import { predictedSamples } from '../../report/predicted-samples';
import { findProfile } from '../../sim/profiles';
import { runVirtualClosedLoop } from '../../sim/virtual-run';
import { driveVirtually } from '../../whatif/virtual-drive';
import { predictedRequest } from '../../whatif/virtual-samples';

const profile = findProfile('A')!;
const cell = (n: number) => ({
  id: `capacity_x_n${n}`, script: 'capacity' as const, contextTokens: 8192, outputTokens: 64, concurrency: n,
  useCase: 'x', profile: null,
});
const steady = (n: number, freshUsers: boolean): StepSpec => ({
  cell: cell(n), mode: { kind: 'steady', warmupRequests: 1, minRequestsPerUser: 3, minMeasuredSeconds: 0, freshUsers },
});
const limits = [{ metric: 'ttft' as const, operator: '<' as const, value: 1000, label: 'TTFT < 1 s' }];

describe('driveVirtually', () => {
  it('serves a fresh step of n users as the simulator\'s own closed loop does', () => {
    const drive = driveVirtually(profile, new FixedSteps([steady(4, true)]), {
      vus: 4, sharedPrompts: false, sloOf: () => null,
    });
    // Once the step has ended no user sends again, so the requests still running (transition) see less load.
    const ours = drive.steps[0]!.requests.filter((r) => r.phase !== 'transition').map((r) => [
      r.startMs, r.ttftMs, r.e2eMs,
    ]);
    expect(ours.length).toBeGreaterThanOrEqual(16);
    const loop = runVirtualClosedLoop(profile, 8192, 64, [{ users: 4, seconds: 3600 }]).slice(0, ours.length);
    expect(ours).toEqual(loop.map((r) => [r.startMs, r.ttftMs, r.e2eMs]));
  });

  it("sends each user's next request the client's gap after its last, as the closed loop does", () => {
    const drive = driveVirtually(profile, new FixedSteps([steady(4, true)]), {
      vus: 4, sharedPrompts: false, sloOf: () => null, requestGapMs: 20,
    });
    const ours = drive.steps[0]!.requests.filter((r) => r.phase !== 'transition').map((r) => [
      r.startMs, r.ttftMs, r.e2eMs,
    ]);
    expect(ours.length).toBeGreaterThanOrEqual(16);
    const loop = runVirtualClosedLoop(profile, 8192, 64, [{ users: 4, seconds: 3600 }], { requestGapMs: 20 });
    expect(ours).toEqual(loop.slice(0, ours.length).map((r) => [r.startMs, r.ttftMs, r.e2eMs]));
    // Not the schedule without the gap.
    const atOnce = runVirtualClosedLoop(profile, 8192, 64, [{ users: 4, seconds: 3600 }]).slice(0, ours.length);
    expect(ours).not.toEqual(atOnce.map((r) => [r.startMs, r.ttftMs, r.e2eMs]));
  });

  it('runs the steps back to back with the Driver\'s phases, users carried over', () => {
    const source = new FixedSteps([steady(2, true), steady(3, false)]);
    const drive = driveVirtually(profile, source, { vus: 3, sharedPrompts: false, sloOf: () => limits });
    expect(drive.steps).toHaveLength(2);
    const [first, second] = drive.steps;
    expect(first!.requests.filter((r) => r.phase === 'warmup')).toHaveLength(2);
    expect(first!.requests.filter((r) => r.phase === 'measured').length).toBeGreaterThanOrEqual(6);
    // One user added to two carried over: a single arriving user needs no warm-up.
    expect(second!.requests.filter((r) => r.phase === 'warmup')).toHaveLength(0);
    expect(second!.startMs).toBe(first!.endMs);
    expect(drive.unfinished.size).toBe(0);
    for (const r of drive.steps.flatMap((s) => s.requests)) expect(r.goodput).toBe(r.ttftMs! < 1000);
  });

  it('gives the report each request as its cell, figures and phases', () => {
    const drive = driveVirtually(profile, new FixedSteps([steady(2, true)]), {
      vus: 2, sharedPrompts: false, sloOf: () => limits,
    });
    const step = drive.steps[0]!;
    const records = step.requests.map((r) => predictedRequest(step.spec.cell, r, drive.extras.get(r.ticket)!, 1.8e12));
    const data = predictedSamples(records);
    const acc = data.cells.get('capacity_x_n2')!;
    const measured = step.requests.filter((r) => r.phase === 'measured');
    expect(data.malformedRows).toBe(0);
    expect(acc.tags).toMatchObject({ cell: 'capacity_x_n2', use_case: 'x', concurrency: '2', context: '8192' });
    expect(acc.okCount).toBe(measured.length);
    expect(acc.excluded.warmup).toBe(2);
    expect([...acc.trends.ttft.values()]).toEqual(measured.map((r) => r.ttftMs));
    expect(acc.excluded.transition).toBe(step.requests.filter((r) => r.phase === 'transition').length);
    expect(acc.trends.itl.values().length).toBe(measured.length * 63);
    expect(acc.goodput.judged).toBe(measured.length);
    expect(acc.inputTokens).toBe(8192 * measured.length);
    expect(acc.outputTokens).toBe(64 * measured.length);
  });
});
