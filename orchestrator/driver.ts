// The scheduler of a bench-driven run: pure state, no I/O, no clock of its own. Runs in Node.
// It decides which VU sends which request of which step, when a step ends, and each request's phase.
//
// A step is N users (VUs) sending requests of one cell back to back, closed loop. Two kinds:
//   rounds: each user sends exactly `rounds` requests, all measured; the step ends when all are done
//           (k6's per-vu-iterations, without the idle rest of a fixed time slot).
//   steady: N users held in steady state. Users a step adds together (two or more) send
//           `warmupRequests` first (phase warmup); users carried over, or a single added user, need none.
//           The step ends when every added user is past its warm-up, at least minRequestsPerUser x N requests
//           were measured and minMeasuredSeconds have passed. Requests still running then are `transition`:
//           they ran partly under the next step's load, so neither step counts them. After a step down, a
//           request sent while users the step dropped are still finishing theirs is a warm-up too. A step with
//           a `noiseProbe` (a search's first step, one user) measures a few requests more, within a time cap:
//           their spread is the noise a larger step's requests share (analysis/capacity-interval.ts).
//           A step with `quietEdges` (closed-loop capacity steps) also waits out the quiet gap where the server is idle
//           at an edge of its measured requests anyway: when it begins with no request running, and before its first
//           measured request when only its warm-ups ran and none runs. A one-user step is then bracketed by scrapes
//           that count its measured requests and nothing else (analysis/server-metrics.ts).
// docs/design/architecture.md, "Bench-driven runs".

import type { DoneReport, Phase, Ticket } from '../lib/drive';

export type StepMode =
  | { readonly kind: 'rounds'; readonly rounds: number }
  | {
      readonly kind: 'steady';
      readonly warmupRequests: number;
      readonly minRequestsPerUser: number;
      readonly minMeasuredSeconds: number;
      /**
       * Start with no users carried over, on a drained server: the first step of a use case, after
       * requests of other lengths. Its users start once every earlier request has ended.
       */
      readonly freshUsers: boolean;
      /**
       * Measure also until `requests` requests or `seconds` seconds, after `warmupRequests` of its own (default
       * none).
       */
      readonly noiseProbe?: NoiseProbe;
      /**
       * Closed-loop users, no think time: the server is idle only at the edges of a one-user step's measured
       * requests, and there the step waits out the quiet gap (see the header). Not for sessions, whose users think.
       */
      readonly quietEdges?: boolean;
    };

/** How long a step measures the requests that show the server's own noise (one user: each request alone). */
export interface NoiseProbe {
  readonly requests: number;
  readonly seconds: number;
  /** Warm-up requests first, even for one user: the run's first request meets cold connections and code. */
  readonly warmupRequests: number;
}

export interface StepSpec {
  readonly cell: Ticket['cell'];
  readonly mode: StepMode;
}

export interface StepRequest extends DoneReport {
  readonly phase: Phase;
  readonly vu: number;
  /** The k6 process (0-based) of a split run the request ran on, whose run clock its startMs and endMs are on. */
  readonly runner: number;
}

export interface StepResult {
  readonly index: number;
  readonly spec: StepSpec;
  /** Bench clock (ms) when the step began and ended. */
  readonly startMs: number;
  readonly endMs: number;
  /** Every request issued in this step that has ended, in the order they ended. */
  readonly requests: readonly StepRequest[];
}

/** Where the steps come from: a fixed list, or a search that looks at what was measured. */
export interface StepSource {
  /** The step after `done` (all steps so far, in order); null when there is none. */
  next(done: readonly StepResult[]): StepSpec | null;
}

/**
 * A wait's `forMs`: how long until the clock alone may give the VU work (a step's quiet gap), read from the same
 * clock reading as the decision, so a caller that asks again then cannot find the gap over and no timer set;
 * null when only a request ending can.
 */
export type NextDecision =
  | { readonly kind: 'ticket'; readonly ticket: Ticket }
  | { readonly kind: 'wait'; readonly forMs: number | null }
  | { readonly kind: 'stop' };

const WAIT_FOR_DONE: NextDecision = { kind: 'wait', forMs: null };

interface IssuedTicket {
  readonly vu: number;
  readonly step: number;
  readonly phase: 'warmup' | 'measured';
}

interface StepState {
  readonly index: number;
  readonly spec: StepSpec;
  /**
   * When its first request may be sent: after the drain (a fresh step) and the quiet gap after the step before
   * (rounds and fresh steps, not the first). No request goes out before it.
   */
  startMs: number;
  /** A fresh steady step waits until every request of earlier steps has ended. */
  drain: boolean;
  /** Users (VU ids) of the step in the order they joined. */
  readonly members: number[];
  /** Per member: warm-up requests still to issue (steady) or requests still to issue (rounds). */
  readonly left: Map<number, number>;
  /** Members added by this step whose warm-up requests have not all ended. */
  readonly warming: Map<number, number>;
  readonly requests: StepRequest[];
  measured: number;
  /** Users this step adds to the ones carried over. */
  added: number;
  /** When its first measured request may go, after a quiet gap at that edge (quietEdges); null: no gap taken. */
  measureFromMs: number | null;
  /** A measured request has been issued. */
  measuring: boolean;
}

export class Driver {
  private readonly results: StepResult[] = [];
  private readonly tickets = new Map<number, IssuedTicket>();
  private step: StepState | null = null;
  private nextTicket = 1;
  private exhausted = false;
  private endedCount = 0;
  private failedCount = 0;
  /** The first step begins when the first VU asks, so an engine's start-up is not counted in it. */
  private begun = false;
  /** Time with at least one request running, ms, and since when the current busy period runs. */
  private busyMs = 0;
  private busySince: number | null = null;
  private readonly startedMs: number;
  private onStep: ((result: StepResult) => void) | null = null;
  /** The runner (0-based k6 process of a split run) each VU said it runs on. */
  private readonly runnerOfVu = new Map<number, number>();
  /** A request was issued since the last quiet gap: a scrape in a gap taken now would fall after it. */
  private issuedSinceQuiet = false;

  /**
   * `shareOf(runner, users)`: in a run split over k6 processes, the users of a step each runner may hold
   * (k6's own split of a scenario's VUs, lib/segments.ts), so every runner drives its share of the load;
   * null for one process.
   */
  /**
   * `quietMs`: a step that starts on a drained server (rounds, fresh steady) sends nothing for this long after the
   * server drained, so a scrape of the server's metrics falls between it and the step before and the server's
   * histograms can be read per step (analysis/server-metrics.ts); 0 when nothing scrapes them.
   */
  constructor(
    private readonly source: StepSource,
    private readonly now: () => number,
    private readonly shareOf: ((runner: number, users: number) => number) | null = null,
    private readonly quietMs = 0,
  ) {
    this.startedMs = now();
  }

  /** Called with each step as it ends (before the next one begins). */
  onStepEnd(listener: (result: StepResult) => void): void {
    this.onStep = listener;
  }

  get steps(): readonly StepResult[] {
    return this.results;
  }

  get current(): {
    readonly spec: StepSpec; readonly startMs: number; readonly ended: number; readonly measured: number;
    readonly warmingUsers: number; readonly members: number;
  } | null {
    const s = this.step;
    return s
      ? {
          spec: s.spec, startMs: s.startMs, ended: s.requests.length, measured: s.measured,
          warmingUsers: s.warming.size, members: s.members.length,
        }
      : null;
  }

  /** Requests ended so far over all steps, and how many of them failed (kept as they end, for progress lines). */
  get totals(): { readonly ended: number; readonly failed: number } {
    return { ended: this.endedCount, failed: this.failedCount };
  }

  /** Every step has ended and every request has reported: VUs may stop. */
  get finished(): boolean {
    return this.exhausted && this.tickets.size === 0;
  }

  /** The first step has begun (a VU has asked). */
  get started(): boolean {
    return this.begun;
  }

  get inFlight(): number {
    return this.tickets.size;
  }

  /** The steps that ended, then the one running (if any) as it stands: what a run that stops now has measured. */
  snapshot(): StepResult[] {
    const s = this.step;
    return s
      ? [
          ...this.results,
          // A step stopped in its quiet gap has not started: it ends where it would have started.
          {
            index: s.index, spec: s.spec, startMs: s.startMs, endMs: Math.max(this.now(), s.startMs),
            requests: [...s.requests],
          },
        ]
      : [...this.results];
  }

  /** Requests issued and not yet ended, per step index: cut, if the run ends now. */
  unfinishedByStep(): Map<number, number> {
    const out = new Map<number, number>();
    for (const t of this.tickets.values()) out.set(t.step, (out.get(t.step) ?? 0) + 1);
    return out;
  }

  /** Wall time so far with at least one request running, and the whole time since the driver was made, ms. */
  busy(): { busyMs: number; wallMs: number } {
    const t = this.now();
    return { busyMs: this.busyMs + (this.busySince === null ? 0 : t - this.busySince), wallMs: t - this.startedMs };
  }

  /** What VU `vu` (which has no request running) should do now; `runner`: its k6 process, once known. */
  next(vu: number, runner?: number): NextDecision {
    if (runner !== undefined) this.runnerOfVu.set(vu, runner);
    if (!this.begun) {
      this.begun = true;
      this.begin(this.source.next([]), []);
    }
    const s = this.step;
    if (s === null) return this.finished ? { kind: 'stop' } : WAIT_FOR_DONE;
    // One reading of the clock per decision: a second one could find the gap over that the first found running.
    const now = this.now();
    if (s.drain) {
      // A use case's first step starts on a drained server: requests of other lengths still running
      // would load its first requests (a single added user has no warm-up to absorb them).
      if (this.tickets.size > 0) return WAIT_FOR_DONE;
      s.drain = false;
      s.startMs = now + (this.results.length > 0 ? this.quietMs : 0);
      this.issuedSinceQuiet = false;
    }
    if (now < s.startMs) return { kind: 'wait', forMs: s.startMs - now };
    const n = s.spec.cell.concurrency;
    let joined = false;
    if (!s.left.has(vu)) {
      if (s.members.length >= n || !this.hasRoom(s.members, this.runnerOfVu.get(vu) ?? 0, n)) return WAIT_FOR_DONE;
      this.join(s, vu);
      joined = true;
    }
    const mode = s.spec.mode;
    const left = s.left.get(vu)!;
    let phase: 'warmup' | 'measured' = 'measured';
    if (mode.kind === 'rounds') {
      if (left === 0) return WAIT_FOR_DONE;
      s.left.set(vu, left - 1);
    } else if (left > 0) {
      phase = 'warmup';
      s.left.set(vu, left - 1);
    } else if (this.droppedStillRunning(s)) {
      // A step down: users the step no longer holds are finishing requests, so this one starts under more load
      // than the step's (74 users' tails loaded a one-user probe's first request to a third of its speed).
      phase = 'warmup';
    } else {
      const gapMs = this.measureGapMs(s, now);
      if (gapMs > 0) return { kind: 'wait', forMs: gapMs };
      s.measuring = true;
    }
    this.issuedSinceQuiet = true;
    const id = this.nextTicket++;
    this.tickets.set(id, { vu, step: s.index, phase });
    if (this.busySince === null) this.busySince = now;
    return { kind: 'ticket', ticket: { ticket: id, cell: s.spec.cell, ...(joined ? { joined: true } : {}) } };
  }

  /**
   * A request ended: records it and returns its phase; may end the step and begin the next. Unknown tickets get
   * null.
   */
  done(report: DoneReport): Phase | null {
    const t = this.tickets.get(report.ticket);
    if (!t) return null;
    this.tickets.delete(report.ticket);
    if (this.tickets.size === 0 && this.busySince !== null) {
      this.busyMs += this.now() - this.busySince;
      this.busySince = null;
    }
    this.endedCount++;
    if (!report.ok) this.failedCount++;
    const s = this.step;
    const current = s !== null && s.index === t.step;
    const phase: Phase = current ? t.phase : 'transition';
    const request: StepRequest = { ...report, phase, vu: t.vu, runner: this.runnerOfVu.get(t.vu) ?? 0 };
    if (current) {
      s.requests.push(request);
      if (phase === 'measured') s.measured++;
      const warming = s.warming.get(t.vu);
      if (phase === 'warmup' && warming !== undefined) {
        if (warming <= 1) s.warming.delete(t.vu);
        else s.warming.set(t.vu, warming - 1);
      }
      if (this.stepComplete(s)) this.end(s);
    } else {
      // A transition request belongs to the step it was issued in, which has ended: its record is amended.
      const past = this.results.find((r) => r.index === t.step);
      if (past) (past.requests as StepRequest[]).push(request);
    }
    return phase;
  }

  /**
   * How long the step's first measured request waits (quietEdges): a quiet gap when none runs and requests went since
   * the last gap (its warm-ups, the dropped users' last ones), so a scrape counts them before it; 0: go now.
   */
  private measureGapMs(s: StepState, now: number): number {
    const mode = s.spec.mode;
    if (mode.kind !== 'steady' || !mode.quietEdges || s.measuring || this.quietMs <= 0) return 0;
    if (s.measureFromMs === null && this.tickets.size === 0 && this.issuedSinceQuiet) {
      s.measureFromMs = now + this.quietMs;
      this.issuedSinceQuiet = false;
    }
    return s.measureFromMs === null ? 0 : Math.max(0, s.measureFromMs - now);
  }

  /** Whether a request of an earlier step runs on a VU the step does not hold (it stepped down from more users). */
  private droppedStillRunning(s: StepState): boolean {
    for (const t of this.tickets.values()) if (t.step < s.index && !s.left.has(t.vu)) return true;
    return false;
  }

  /** Whether `members` of a step of `users` leave room for another user of `runner` (always, in one process). */
  private hasRoom(members: readonly number[], runner: number, users: number): boolean {
    if (!this.shareOf) return true;
    return members.filter((vu) => this.runnerOfVu.get(vu) === runner).length < this.shareOf(runner, users);
  }

  private join(s: StepState, vu: number): void {
    s.members.push(vu);
    const mode = s.spec.mode;
    if (mode.kind === 'rounds') s.left.set(vu, mode.rounds);
    else {
      // Users added together arrive in a burst and need a warm-up to spread out; a single added user
      // joins at a random phase of the others' requests, already as in service.
      const warmup = s.added >= 2 ? mode.warmupRequests : (mode.noiseProbe?.warmupRequests ?? 0);
      s.left.set(vu, warmup);
      if (warmup > 0) s.warming.set(vu, warmup);
    }
  }

  private stepComplete(s: StepState): boolean {
    const mode = s.spec.mode;
    const n = s.spec.cell.concurrency;
    if (mode.kind === 'rounds') return s.requests.length >= n * mode.rounds;
    // A quiet gap before the measured requests is not measured time.
    const elapsedMs = this.now() - Math.max(s.startMs, s.measureFromMs ?? -Infinity);
    const probe = mode.noiseProbe;
    return (
      s.members.length >= n &&
      s.warming.size === 0 &&
      s.measured >= mode.minRequestsPerUser * n &&
      elapsedMs >= mode.minMeasuredSeconds * 1000 &&
      (probe === undefined || s.measured >= probe.requests || elapsedMs >= probe.seconds * 1000)
    );
  }

  private end(s: StepState): void {
    const result: StepResult = {
      index: s.index, spec: s.spec, startMs: s.startMs, endMs: this.now(), requests: s.requests,
    };
    this.results.push(result);
    this.step = null;
    // The source folds the result in first, so a listener sees the verdict it led to.
    const next = this.source.next(this.results);
    this.onStep?.(result);
    this.begin(next, s.members);
  }

  private begin(spec: StepSpec | null, previousMembers: readonly number[]): void {
    if (spec === null) {
      this.exhausted = true;
      this.step = null;
      return;
    }
    const fresh = spec.mode.kind === 'steady' && spec.mode.freshUsers;
    // A rounds step begins when the one before has ended all its requests: the server is drained already. So does a
    // step with quiet edges begun with no request running (after a one-user step).
    const idle = spec.mode.kind === 'rounds' || (spec.mode.quietEdges === true && !fresh && this.tickets.size === 0);
    const quiet = idle && this.results.length > 0 ? this.quietMs : 0;
    if (quiet > 0) this.issuedSinceQuiet = false;
    const s: StepState = {
      index: this.results.length, spec, startMs: this.now() + quiet, drain: fresh,
      members: [], left: new Map(), warming: new Map(), requests: [], measured: 0, added: 0,
      measureFromMs: null, measuring: false,
    };
    const mode = spec.mode;
    if (mode.kind === 'steady' && !mode.freshUsers) {
      // Users carried over keep sending without a new warm-up; the step keeps the earliest joined (within
      // each runner's share, in a split run).
      for (const vu of previousMembers) {
        if (s.members.length >= spec.cell.concurrency) break;
        if (!this.hasRoom(s.members, this.runnerOfVu.get(vu) ?? 0, spec.cell.concurrency)) continue;
        s.members.push(vu);
        s.left.set(vu, 0);
      }
    }
    s.added = spec.cell.concurrency - s.members.length;
    this.step = s;
  }
}

/** A fixed list of steps (sweep, burst, mix): each cell's users send their rounds, then the next cell begins. */
export class FixedSteps implements StepSource {
  constructor(private readonly specs: readonly StepSpec[]) {}

  next(done: readonly StepResult[]): StepSpec | null {
    return this.specs[done.length] ?? null;
  }
}
