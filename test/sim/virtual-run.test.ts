// Tests sim/virtual-run.ts's closed loop. Runs in Node (vitest).
// Users send back to back, follow the steps' user counts, and in steady state the arrival burst is gone.
import { describe, expect, it } from 'vitest';
import { findProfile } from '../../sim/profiles';
import { runVirtualBatch, runVirtualClosedLoop } from '../../sim/virtual-run';

const profile = findProfile('A')!;

describe('runVirtualClosedLoop', () => {
  it('sends each user its next request the moment the previous one ends, never two at once', () => {
    const reqs = runVirtualClosedLoop(profile, 1024, 32, [{ users: 3, seconds: 5 }]);
    for (const user of [0, 1, 2]) {
      const mine = reqs.filter((r) => r.user === user).sort((a, b) => a.startMs - b.startMs);
      expect(mine.length).toBeGreaterThan(5);
      expect(mine[0]!.startMs).toBe(0);
      for (let i = 1; i < mine.length; i++) expect(mine[i]!.startMs).toBeCloseTo(mine[i - 1]!.endMs, 9);
    }
    expect(new Set(reqs.map((r) => r.user))).toEqual(new Set([0, 1, 2]));
  });

  it('follows the steps: users added start at the step, users removed send no new request', () => {
    const reqs = runVirtualClosedLoop(profile, 1024, 32, [
      { users: 1, seconds: 2 }, { users: 3, seconds: 2 }, { users: 1, seconds: 2 },
    ]);
    expect(Math.min(...reqs.filter((r) => r.user === 2).map((r) => r.startMs))).toBe(2000);
    expect(reqs.filter((r) => r.user > 0 && r.startMs >= 4000)).toEqual([]);
    expect(reqs.filter((r) => r.user === 0 && r.startMs >= 4000).length).toBeGreaterThan(0);
  });

  it('spreads the arrivals in steady state: after the first round, 32K prompts see far less TTFT than one burst of ' +
    'them', () => {
    const burst = runVirtualBatch(profile, 32 * 1024, 64, 8);
    const burstTtft = burst.requests.reduce((s, r) => s + r.ttftMs, 0) / burst.requests.length;
    const reqs = runVirtualClosedLoop(profile, 32 * 1024, 64, [{ users: 8, seconds: 60 }]);
    const later = reqs.filter((r) => r.startMs > 0);
    const steadyTtft = later.reduce((s, r) => s + r.ttftMs, 0) / later.length;
    expect(steadyTtft).toBeLessThan(burstTtft / 2);
  });
});

describe('per-request overhead in virtual time', () => {
  it('a closed-loop request waits out o_req before its prefill, as over HTTP and as a batch does', () => {
    const d = findProfile('D')!;
    const batch = runVirtualBatch(d, 1024, 64, 1).requests[0]!.ttftMs;
    const loop = runVirtualClosedLoop(d, 1024, 64, [{ users: 1, seconds: 3 }]);
    expect(loop.length).toBeGreaterThan(2);
    // Every request of one user is alone on the batcher: the same TTFT as the batch's, overhead (344 ms) included.
    for (const r of loop) expect(r.ttftMs).toBeCloseTo(batch, 6);
    expect(batch).toBeGreaterThan(d.hardware.requestOverheadMs);
  });
});

describe('users started as a client starts them', () => {
  it('sends each user its first request at its own start, and a spread burst waits less than one at an instant', () => {
    const users = 64;
    const together = runVirtualClosedLoop(profile, 256, 32, [{ users, seconds: Infinity }], { requestsPerUser: 1 });
    const userStartMs = Array.from({ length: users }, (_, u) => 5 * u);
    const spread = runVirtualClosedLoop(profile, 256, 32, [{ users, seconds: Infinity }],
      { requestsPerUser: 1, userStartMs });
    for (const r of spread) expect(r.startMs).toBe(5 * r.user);
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    // 64 prompts of 256 tokens at one instant share two 8K-token prefill steps; 5 ms apart, a few at a time.
    expect(median(spread.map((r) => r.ttftMs))).toBeLessThan(median(together.map((r) => r.ttftMs)));
  });
});
