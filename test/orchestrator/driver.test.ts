// Tests orchestrator/driver.ts: who sends what, when steps end, each request's phase, and the busy time, on a fake
// clock. Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { Driver, FixedSteps, type NextDecision, type StepSpec } from '../../orchestrator/driver';
import type { DoneReport } from '../../lib/drive';

function cell(id: string, concurrency: number): StepSpec['cell'] {
  return {
    id, script: 'capacity', contextTokens: 1024, outputTokens: 16, concurrency, useCase: 'code_completion',
    profile: null,
  };
}

function steady(id: string, n: number, over: Partial<Extract<StepSpec['mode'], { kind: 'steady' }>> = {}): StepSpec {
  return {
    cell: cell(id, n),
    mode: {
      kind: 'steady', warmupRequests: 1, minRequestsPerUser: 1, minMeasuredSeconds: 0, freshUsers: false, ...over,
    },
  };
}

function report(ticket: number, ok = true): DoneReport {
  return {
    ticket, ok, startMs: 0, endMs: 1, ttftMs: 10, ttfcMs: 10, e2eMs: 100, tpotMs: 6, decodeTokensPerSecond: 160,
    prefillTokensPerSecond: 1e5, outputTokens: 16, itlMs: [6, 6], goodput: null, readLagMs: null, stallMs: null,
    cpuPerCore: null,
    tokensReadTogether: null,
  };
}

function ticketOf(d: NextDecision): number {
  if (d.kind !== 'ticket') throw new Error(`expected a ticket, got ${d.kind}`);
  return d.ticket.ticket;
}

describe('Driver, rounds steps', () => {
  it('gives each of N users exactly `rounds` requests, parks the rest, and starts the next cell when all ended', () => {
    let now = 0;
    const specs: StepSpec[] = [
      { cell: cell('a', 2), mode: { kind: 'rounds', rounds: 2 } },
      { cell: cell('b', 1), mode: { kind: 'rounds', rounds: 1 } },
    ];
    const d = new Driver(new FixedSteps(specs), () => now);
    const t1 = ticketOf(d.next(1));
    const t2 = ticketOf(d.next(2));
    expect(d.next(3).kind).toBe('wait');
    now = 10;
    expect(d.done(report(t1))).toBe('measured');
    const t3 = ticketOf(d.next(1));
    expect(d.done(report(t2))).toBe('measured');
    const t4 = ticketOf(d.next(2));
    expect(d.next(2).kind).toBe('wait'); // its two rounds are out
    expect(d.done(report(t3))).toBe('measured');
    expect(d.steps).toHaveLength(0);
    expect(d.done(report(t4))).toBe('measured');
    expect(d.steps.map((s) => s.spec.cell.id)).toEqual(['a']);
    // Cell b: users join afresh, one of them.
    const d3 = d.next(3);
    expect(d3.kind === 'ticket' && d3.ticket.cell.id).toBe('b');
    expect(d.next(1).kind).toBe('wait');
    expect(d.finished).toBe(false);
    d.done(report(ticketOf(d3)));
    expect(d.finished).toBe(true);
    expect(d.next(1).kind).toBe('stop');
  });
});

describe('Driver, steady steps', () => {
  it('warms up the users a step adds, measures the rest, and tags requests running across the step end as ' +
    'transition', () => {
    const now = 0;
    const d = new Driver(new FixedSteps([steady('s2', 2, { freshUsers: true }), steady('s3', 3)]), () => now);
    const w1 = ticketOf(d.next(1));
    const w2 = ticketOf(d.next(2));
    expect(d.current!.warmingUsers).toBe(2);
    expect(d.done(report(w1))).toBe('warmup');
    const m1 = ticketOf(d.next(1)); // user 1 is past its warm-up
    expect(d.done(report(m1))).toBe('measured');
    const m1b = ticketOf(d.next(1));
    // Two measured would meet 1 x 2 users, but user 2 is still warming up: the step goes on.
    expect(d.done(report(m1b))).toBe('measured');
    expect(d.steps).toHaveLength(0);
    const m1c = ticketOf(d.next(1));
    expect(d.done(report(w2))).toBe('warmup'); // now every user is past warm-up, 2 measured: the step ends
    expect(d.steps).toHaveLength(1);
    // m1c was running when s2 ended: a transition, kept with s2 but measured by neither.
    expect(d.done(report(m1c))).toBe('transition');
    expect(d.steps[0]!.requests.map((r) => r.phase))
      .toEqual(['warmup', 'measured', 'measured', 'warmup', 'transition']);
    // s3 keeps users 1 and 2 without warm-up and adds user 3, alone, so without one either.
    expect(d.current!.members).toBe(2);
    const a = ticketOf(d.next(1));
    const b = ticketOf(d.next(3));
    expect(d.done(report(a))).toBe('measured');
    expect(d.done(report(b))).toBe('measured');
  });

  it("marks a user's first ticket of a step it joins, not those of users carried over (a conversation starts " +
    'anew)', () => {
    const specs = [steady('s1', 1, { freshUsers: true, warmupRequests: 0 }), steady('s2', 2)];
    const d = new Driver(new FixedSteps(specs), () => 0);
    const first = d.next(1);
    expect(first.kind === 'ticket' && first.ticket.joined).toBe(true);
    d.done(report(ticketOf(first)));
    // s2 carries user 1 over and adds user 2.
    const carried = d.next(1);
    const added = d.next(2);
    expect(carried.kind === 'ticket' && carried.ticket.joined).toBeUndefined();
    expect(added.kind === 'ticket' && added.ticket.joined).toBe(true);
    d.done(report(ticketOf(added)));
    const again = d.next(2);
    expect(again.kind === 'ticket' && again.ticket.joined).toBeUndefined();
  });

  it('knows nothing of unknown tickets', () => {
    const d = new Driver(new FixedSteps([steady('s1', 1)]), () => 0);
    expect(d.done(report(999))).toBeNull();
  });
});

describe('Driver, a steady step down to fewer users', () => {
  const threeThenOne = (): StepSpec[] => [steady('s3', 3, { freshUsers: true, warmupRequests: 0 }), steady('s1', 1)];

  it('keeps the earliest users when a step has fewer, and parks the others', () => {
    const d = new Driver(new FixedSteps(threeThenOne()), () => 0);
    const ts = [1, 2, 3].map((vu) => ticketOf(d.next(vu)));
    for (const t of ts) d.done(report(t));
    // s3 ended (3 measured); s1 keeps user 1 only.
    expect(d.steps).toHaveLength(1);
    expect(d.next(2).kind).toBe('wait');
    expect(d.next(3).kind).toBe('wait');
    expect(d.next(1).kind).toBe('ticket');
  });

  it('after a step down, does not measure a request sent while a dropped user is still finishing its own', () => {
    const d = new Driver(new FixedSteps(threeThenOne()), () => 0);
    const [a1, a2, a3] = [1, 2, 3].map((vu) => ticketOf(d.next(vu)));
    d.done(report(a1!));
    const b1 = ticketOf(d.next(1));
    d.done(report(a3!));
    ticketOf(d.next(3));
    d.done(report(b1));
    // s3 measured three requests and ended; s1 keeps user 1, while users 2 and 3 still run requests of s3.
    expect(d.steps).toHaveLength(1);
    const early = ticketOf(d.next(1));
    expect(d.done(report(a2!))).toBe('transition');
    const late = ticketOf(d.next(1));
    expect(d.done(report(early))).toBe('warmup');
    // User 3's request still runs: user 1's next one is not measured either, nor does it end the step.
    expect(d.done(report(late))).toBe('warmup');
    expect(d.steps).toHaveLength(1);
  });
});

describe('Driver, the end of a steady step', () => {
  it('waits for minMeasuredSeconds, and counts failed measured requests toward the step', () => {
    let now = 0;
    const spec = steady('s1', 1, { freshUsers: true, warmupRequests: 0, minMeasuredSeconds: 5 });
    const d = new Driver(new FixedSteps([spec]), () => now);
    d.done(report(ticketOf(d.next(1)), false));
    expect(d.steps).toHaveLength(0);
    now = 5000;
    d.done(report(ticketOf(d.next(1)), false));
    expect(d.steps).toHaveLength(1);
    expect(d.finished).toBe(true);
  });

  it('a noise probe warms its one user up, then measures its requests or its seconds, whichever comes first', () => {
    let now = 0;
    const noiseProbe = { requests: 3, seconds: 5, warmupRequests: 1 };
    const probe = steady('p1', 1, { freshUsers: true, warmupRequests: 0, noiseProbe });
    const d = new Driver(new FixedSteps([probe, { ...probe, cell: cell('p2', 1) }]), () => now);
    expect(d.done(report(ticketOf(d.next(1))))).toBe('warmup');
    for (let i = 0; i < 2; i++) expect(d.done(report(ticketOf(d.next(1))))).toBe('measured');
    expect(d.steps).toHaveLength(0);
    d.done(report(ticketOf(d.next(1))));
    expect(d.steps.map((r) => r.requests.filter((q) => q.phase === 'measured').length)).toEqual([3]);
    // The second probe's requests are slow: it ends at its time cap with two measured.
    d.done(report(ticketOf(d.next(1))));
    now = 3000;
    d.done(report(ticketOf(d.next(1))));
    expect(d.steps).toHaveLength(1);
    now = 5000;
    d.done(report(ticketOf(d.next(1))));
    expect(d.steps).toHaveLength(2);
    expect(d.steps[1]!.requests.map((q) => q.phase)).toEqual(['warmup', 'measured', 'measured']);
  });
});

describe('Driver busy time', () => {
  it('counts wall time with at least one request running', () => {
    let now = 0;
    const d = new Driver(new FixedSteps([{ cell: cell('a', 2), mode: { kind: 'rounds', rounds: 2 } }]), () => now);
    const t1 = ticketOf(d.next(1));
    now = 100;
    const t2 = ticketOf(d.next(2));
    now = 300;
    d.done(report(t1));
    now = 400;
    d.done(report(t2)); // busy 0..400
    now = 1000; // idle 400..1000
    const t3 = ticketOf(d.next(1));
    now = 1500;
    d.done(report(t3)); // busy 1000..1500
    expect(d.busy()).toEqual({ busyMs: 900, wallMs: 1500 });
    expect(d.totals).toEqual({ ended: 3, failed: 0 });
    expect(d.unfinishedByStep().size).toBe(0);
  });
});

describe('Driver warm-up', () => {
  it('warms up users added together, not a single added user (it arrives unsynchronized)', () => {
    const specs = [steady('s1', 1, { freshUsers: true }), steady('s2', 2), steady('s4', 4)];
    const d = new Driver(new FixedSteps(specs), () => 0);
    // One user on an idle server: nothing to spread out.
    expect(d.done(report(ticketOf(d.next(1))))).toBe('measured');
    // s2 adds one user: measured at once.
    const a = ticketOf(d.next(1));
    const b = ticketOf(d.next(2));
    expect(d.done(report(b))).toBe('measured');
    expect(d.done(report(a))).toBe('measured'); // s2 done: 2 measured
    // s4 adds two users together: both warm up.
    expect(d.current!.spec.cell.id).toBe('s4');
    const c = ticketOf(d.next(3));
    const e = ticketOf(d.next(4));
    expect(d.done(report(c))).toBe('warmup');
    expect(d.done(report(e))).toBe('warmup');
  });
});

describe('Driver, a fresh step', () => {
  it('starts once every request of the earlier steps has ended, and counts its time from then', () => {
    let now = 0;
    const d = new Driver(
      new FixedSteps([
        steady('a2', 2, { freshUsers: true, warmupRequests: 0 }),
        steady('b1', 1, { freshUsers: true, minMeasuredSeconds: 1 }),
      ]),
      () => now,
    );
    const t1 = ticketOf(d.next(1));
    const t2 = ticketOf(d.next(2));
    d.done(report(t1));
    const t3 = ticketOf(d.next(1));
    d.done(report(t2)); // a2 ends (2 measured); t3 is still running
    expect(d.current!.spec.cell.id).toBe('b1');
    expect(d.next(2).kind).toBe('wait'); // b1 waits for t3
    now = 500;
    expect(d.done(report(t3))).toBe('transition');
    const t4 = ticketOf(d.next(2));
    expect(d.current!.startMs).toBe(500);
    now = 1400;
    d.done(report(t4)); // 0.9 s since b1 began: not yet its 1 s
    expect(d.steps).toHaveLength(1);
    now = 1600;
    d.done(report(ticketOf(d.next(2))));
    expect(d.steps.map((s) => s.spec.cell.id)).toEqual(['a2', 'b1']);
  });
});

describe('Driver, split over k6 processes', () => {
  // Two runners, k6's split of a scenario's users: runner 0 takes the extra one.
  const shareOf = (runner: number, users: number): number => Math.floor(users / 2) + (runner < users % 2 ? 1 : 0);

  it("gives each runner k6's share of a step's users: the third VU of runner 0 waits while runner 1 has room", () => {
    const specs: StepSpec[] = [{ cell: cell('a', 3), mode: { kind: 'rounds', rounds: 1 } }];
    const d = new Driver(new FixedSteps(specs), () => 0, shareOf);
    ticketOf(d.next(1, 0));
    ticketOf(d.next(3, 0));
    expect(d.next(5, 0).kind).toBe('wait');
    ticketOf(d.next(2, 1));
    expect(d.next(4, 1).kind).toBe('wait'); // the step is full
  });

  it('keeps each runner within its share when a step carries users over to a smaller one', () => {
    const specs = [steady('s4', 4, { freshUsers: true, warmupRequests: 0 }), steady('s2', 2)];
    const d = new Driver(new FixedSteps(specs), () => 0, shareOf);
    const first = [[1, 0], [3, 0], [2, 1], [4, 1]].map(([vu, runner]) => ticketOf(d.next(vu!, runner)));
    for (const t of first) d.done(report(t));
    // Step s2 keeps the earliest joined within each runner's share of 2 users: VU 1 (runner 0) and VU 2 (runner 1).
    expect(d.current?.members).toBe(2);
    expect(d.next(3).kind).toBe('wait');
    expect(d.next(1).kind).toBe('ticket');
    expect(d.next(2).kind).toBe('ticket');
  });
});

describe('Driver, the quiet gap between steps (a scrape of the server falls between them)', () => {
  it('starts a rounds step quietMs after the one before ended, and the first step at once', () => {
    let now = 0;
    const specs: StepSpec[] = [
      { cell: cell('a', 1), mode: { kind: 'rounds', rounds: 1 } },
      { cell: cell('b', 1), mode: { kind: 'rounds', rounds: 1 } },
    ];
    const d = new Driver(new FixedSteps(specs), () => now, null, 750);
    const t1 = ticketOf(d.next(1));
    now = 1000;
    d.done(report(t1));
    now = 1749;
    expect(d.next(1).kind).toBe('wait');
    now = 1750;
    const t2 = ticketOf(d.next(1));
    now = 2000;
    d.done(report(t2));
    const [a, b] = d.snapshot();
    expect([a!.startMs, a!.endMs, b!.startMs, b!.endMs]).toEqual([0, 1000, 1750, 2000]);
  });

  it('a wait in the gap says how long from the clock reading it decided on: asked again then, the VU has work', () => {
    // A clock that moves on at every reading, as a busy machine's does between two of them: a caller that read it
    // again to learn how long to wait could find the gap over that the decision found running, and never ask again.
    let now = 0;
    const clock = (): number => (now += 0.4);
    const specs: StepSpec[] = [
      { cell: cell('a', 1), mode: { kind: 'rounds', rounds: 1 } },
      { cell: cell('b', 1), mode: { kind: 'rounds', rounds: 1 } },
    ];
    const d = new Driver(new FixedSteps(specs), clock, null, 3);
    d.done(report(ticketOf(d.next(1))));
    const waits: (number | null)[] = [];
    for (let decision = d.next(1); decision.kind !== 'ticket'; decision = d.next(1)) {
      expect(decision.kind).toBe('wait');
      const forMs = decision.kind === 'wait' ? decision.forMs : null;
      waits.push(forMs);
      expect(forMs, `wait ${waits.length}`).toBeGreaterThan(0);
      now += forMs! / 2;
    }
    expect(waits.length).toBeGreaterThan(1);
    // A VU that is not a member of a full step waits for a request to end, not for the clock.
    expect(d.next(2)).toEqual({ kind: 'wait', forMs: null });
  });

  it('a run stopped in the gap: the step not started yet ends where it would have started (no negative span)', () => {
    let now = 0;
    const specs: StepSpec[] = [
      { cell: cell('a', 1), mode: { kind: 'rounds', rounds: 1 } },
      { cell: cell('b', 1), mode: { kind: 'rounds', rounds: 1 } },
    ];
    const d = new Driver(new FixedSteps(specs), () => now, null, 750);
    d.done(report(ticketOf(d.next(1))));
    now = 200;
    const b = d.snapshot()[1]!;
    expect([b.startMs, b.endMs, b.requests.length]).toEqual([750, 750, 0]);
  });

  it('waits quietMs after the drain before a fresh steady step, and not at all when nothing scrapes (0)', () => {
    for (const quietMs of [500, 0]) {
      let now = 0;
      const specs = [steady('s1', 1, { freshUsers: true, warmupRequests: 0 }), steady('t1', 1, { freshUsers: true })];
      const d = new Driver(new FixedSteps(specs), () => now, null, quietMs);
      const t1 = ticketOf(d.next(1));
      now = 100;
      expect(d.done(report(t1))).toBe('measured');
      // The step ended with its one measured request; the next waits for the drain (none left), then quietMs.
      if (quietMs > 0) expect(d.next(1).kind).toBe('wait');
      now = 100 + quietMs;
      expect(d.next(1).kind).toBe('ticket');
      expect(d.snapshot()[1]!.startMs).toBe(100 + quietMs);
    }
  });
});

describe('Driver, quiet edges: a one-user step bracketed by scrapes of the idle server', () => {
  it('waits quietMs after its warm-up before the first measured request, and the next step quietMs after it', () => {
    let now = 0;
    const probe = { requests: 2, seconds: 60, warmupRequests: 1 };
    const specs = [
      steady('q1', 1, { freshUsers: true, warmupRequests: 0, noiseProbe: probe, quietEdges: true }),
      steady('q2', 2, { quietEdges: true }),
    ];
    const d = new Driver(new FixedSteps(specs), () => now, null, 500);
    const warm = ticketOf(d.next(1));
    now = 100;
    expect(d.done(report(warm))).toBe('warmup');
    // Nothing runs and the warm-up went since the last gap: a gap before the measured requests.
    expect(d.next(1)).toEqual({ kind: 'wait', forMs: 500 });
    now = 600;
    const m1 = ticketOf(d.next(1));
    now = 700;
    expect(d.done(report(m1))).toBe('measured');
    // The second measured request goes at once: a gap only at the edge.
    const m2 = ticketOf(d.next(1));
    now = 800;
    expect(d.done(report(m2))).toBe('measured');
    // q1 ended with nothing running: q2 (one user carried, one added) waits out a gap first.
    expect(d.snapshot()[1]!.startMs).toBe(1300);
    expect(d.next(1)).toEqual({ kind: 'wait', forMs: 500 });
    now = 1300;
    expect(d.next(1).kind).toBe('ticket');
    // A single added user has no warm-up, and with a request running no gap comes before its measured ones.
    expect(d.next(2).kind).toBe('ticket');
  });

  it('after a step down to one user: a gap once the requests of the step before have ended, then measured', () => {
    let now = 0;
    const specs = [steady('d2', 2, { freshUsers: true, warmupRequests: 0, quietEdges: true }),
      steady('d1', 1, { quietEdges: true })];
    const d = new Driver(new FixedSteps(specs), () => now, null, 500);
    const [a, b] = [ticketOf(d.next(1)), ticketOf(d.next(2))];
    now = 100;
    expect(d.done(report(a))).toBe('measured');
    const a2 = ticketOf(d.next(1));
    now = 200;
    // d2 has its 2 measured requests: d1 keeps user 1, whose request runs on; user 2's is a transition.
    expect(d.done(report(b))).toBe('measured');
    expect(d.snapshot()[1]!.spec.cell.id).toBe('d1');
    now = 300;
    expect(d.done(report(a2))).toBe('transition');
    // User 2 (dropped) has nothing to do. Nothing runs, but user 1's last request ran since the last gap: a scrape
    // must fall after it, so d1's first measured request waits out a gap.
    expect(d.next(2)).toEqual({ kind: 'wait', forMs: null });
    expect(d.next(1)).toEqual({ kind: 'wait', forMs: 500 });
    now = 800;
    const m = ticketOf(d.next(1));
    now = 900;
    expect(d.done(report(m))).toBe('measured');
  });

  it('takes no gap where requests run (several users), nor without quietEdges or without a monitor', () => {
    for (const [quietEdges, quietMs] of [[true, 0], [false, 500]] as const) {
      let now = 0;
      const noiseProbe = { requests: 2, seconds: 60, warmupRequests: 1 };
      const specs = [steady('a1', 1, { freshUsers: true, warmupRequests: 0, noiseProbe, quietEdges })];
      const d = new Driver(new FixedSteps(specs), () => now, null, quietMs);
      const t = ticketOf(d.next(1));
      now = 10;
      expect(d.done(report(t))).toBe('warmup');
      expect(d.next(1).kind).toBe('ticket');
    }
    let now = 0;
    const three = new FixedSteps([steady('b3', 3, { freshUsers: true, quietEdges: true })]);
    const d = new Driver(three, () => now, null, 500);
    const warmups = [1, 2, 3].map((vu) => ticketOf(d.next(vu)));
    now = 10;
    expect(d.done(report(warmups[0]!))).toBe('warmup');
    // Its warm-up over, user 1's measured request goes while the others' warm-ups run.
    expect(d.next(1).kind).toBe('ticket');
  });
});
