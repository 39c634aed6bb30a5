// The two token schedulers behind the HTTP layer: the batcher driven on absolute deadlines, and fixed timing.
// Runs in Node.
//
// Both call the sink at each emission time with the tokens sampled then. Deadlines are absolute on
// the monotonic clock (performance.now()), so timer lateness delays one emission but never accumulates.
// Both can be stalled server-wide (POST /debug/stall, a GPU hiccup): for its length no token is sampled and no
// step runs; arrivals still queue, and everything resumes at its end.

import { Batcher, type BatcherOptions, type BatchRequest, type FinishedEvent, type TokenEvent } from './batcher';
import type { Profile } from './profiles';
import { stepPowerWatts } from './step-time';
import { PowerMeter } from './server-metrics';

export interface TokenSink {
  onTokens(tokens: readonly TokenEvent[], nowMs: number): void;
  onFinished(ev: FinishedEvent): void;
  onPreemptions(n: number): void;
  /** Prefix-cache lookups of the requests admitted in one step (tokens queried, tokens hit). */
  onPrefixCache?(queryTokens: number, hitTokens: number): void;
}

/** A server-wide stall's window, ms on the scheduler's clock. */
export interface StallWindow {
  readonly startMs: number;
  readonly endMs: number;
}

export interface Scheduler {
  /** Adds a request; for the batcher it enters the waiting queue at req.queuedMs (the caller waits until then). */
  submit(req: BatchRequest): void;
  /** Client gone: frees the request (reports a finished event with reason abort). */
  abort(id: string): void;
  running(): number;
  waiting(): number;
  kvUsage(): number;
  powerWatts(): number;
  /**
   * A server-wide stall from now for ms: no token is handed to the sink and no step runs until it ends (stalls that
   * overlap extend it). Returns its window, ms on the scheduler's clock: from the one reading its end is counted
   * from, so the window is ms long (or the rest of the one it extends) however late the caller was scheduled.
   */
  stall(ms: number): StallWindow;
  close(): void;
}

export type Clock = () => number;
export const monotonicMs: Clock = () => performance.now();

/** If emissions fall this far behind their deadlines (a blocked event loop), restart the schedule from now. */
const MAX_CATCH_UP_MS = 250;

/** The continuous-batching batcher on real time: one timer per step, steps back to back on absolute deadlines. */
export class BatcherScheduler implements Scheduler {
  readonly batcher: Batcher;
  private readonly power: PowerMeter;
  /** The step timer, or (idle with work during a stall) the timer that starts the first step at the stall's end. */
  private timer: NodeJS.Timeout | null = null;
  private lastEndMs = -Infinity;
  /** When the step in flight ends: its planned end, pushed back by the stalls that began before it. */
  private stepDueMs = -Infinity;
  private stallEndMs = -Infinity;
  private closed = false;

  constructor(
    readonly profile: Profile, private readonly sink: TokenSink, private readonly clock: Clock = monotonicMs,
    batcherOptions: BatcherOptions = {},
  ) {
    this.batcher = new Batcher(profile, batcherOptions);
    this.power = new PowerMeter(profile.powerIdleWatts, clock());
  }

  submit(req: BatchRequest): void {
    this.batcher.add(req);
    if (this.batcher.stepInFlight || this.closed) return;
    // Idle batcher: start at the request's queue time (absolute), so a timer that brought it here late or
    // early does not shift its schedule, nor the simulator's own tokenizing (lateMs); after a long event-loop
    // stall start from now instead.
    const now = this.clock();
    if (now < this.stallEndMs) {
      // Stalled: the first step starts at the stall's end, with every request that queued meanwhile.
      this.timer ??= this.resumeTimer(now);
      return;
    }
    const start = now - req.queuedMs > MAX_CATCH_UP_MS + (req.lateMs ?? 0) ? now : req.queuedMs;
    // A back-dated start never falls inside a stall that is over: no step ran then.
    this.startStep(Math.max(this.lastEndMs, start, this.stallEndMs));
  }

  stall(ms: number): StallWindow {
    const now = this.clock();
    const end = Math.max(this.stallEndMs, now + ms);
    // The pause this call adds to one already under way (all of ms when none is).
    const addedMs = end - Math.max(this.stallEndMs, now);
    this.stallEndMs = end;
    const window = { startMs: now, endMs: end };
    if (addedMs <= 0 || this.closed || !this.timer) return window;
    clearTimeout(this.timer);
    if (this.batcher.stepInFlight) {
      // The GPU pauses mid-step: the rest of the step runs after the stall (a step already due ends at its end).
      this.stepDueMs = Math.max(this.stepDueMs, now) + addedMs;
      this.timer = setTimeout(() => this.fire(), Math.max(0, this.stepDueMs - now));
    } else {
      this.timer = this.resumeTimer(now);
    }
    return window;
  }

  abort(id: string): void {
    const ev = this.batcher.abort(id, this.clock());
    if (ev) this.sink.onFinished(ev);
  }

  running(): number {
    return this.batcher.runningCount;
  }

  waiting(): number {
    return this.batcher.waitingCount;
  }

  kvUsage(): number {
    return this.batcher.kv.usage;
  }

  powerWatts(): number {
    return this.power.read(this.clock());
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private startStep(startMs: number): void {
    const plan = this.batcher.beginStep(startMs);
    if (!plan) {
      this.power.setTarget(this.profile.powerIdleWatts, startMs);
      return;
    }
    if (plan.preempted > 0) this.sink.onPreemptions(plan.preempted);
    if (plan.prefixQueryTokens > 0) this.sink.onPrefixCache?.(plan.prefixQueryTokens, plan.prefixHitTokens);
    this.power.setTarget(stepPowerWatts(plan.time, this.profile.powerIdleWatts, this.profile.powerMaxWatts), startMs);
    this.stepDueMs = plan.endMs;
    this.timer = setTimeout(() => this.fire(), Math.max(0, plan.endMs - this.clock()));
  }

  /** Idle with work during a stall: the timer that starts the first step at the stall's end. */
  private resumeTimer(now: number): NodeJS.Timeout {
    return setTimeout(() => {
      this.timer = null;
      if (this.closed || this.batcher.stepInFlight) return;
      this.startStep(Math.max(this.lastEndMs, this.stallEndMs));
    }, Math.max(0, this.stallEndMs - now));
  }

  private fire(): void {
    this.timer = null;
    if (this.closed) return;
    const due = Math.max(this.stepDueMs, this.stallEndMs);
    if (this.clock() < due) {
      // A timer a fraction of a millisecond early (Node counts whole milliseconds from a cached loop time), or a
      // stall: nothing is written before the step's end the metrics record for it, nor before the stall's end.
      this.timer = setTimeout(() => this.fire(), Math.max(0, due - this.clock()));
      return;
    }
    const res = this.batcher.endStep(this.stepDueMs);
    this.lastEndMs = res.endMs;
    const now = this.clock();
    if (res.tokens.length > 0) this.sink.onTokens(res.tokens, now);
    for (const f of res.finished) this.sink.onFinished(f);
    if (this.closed) return;
    if (this.batcher.hasWork()) {
      const start = now - res.endMs > MAX_CATCH_UP_MS ? now : res.endMs;
      this.startStep(start);
    } else {
      this.power.setTarget(this.profile.powerIdleWatts, res.endMs);
    }
  }
}

interface FixedEntry {
  readonly req: BatchRequest;
  index: number;
  nextMs: number;
  prevMs: number | null;
  firstMs: number | null;
  dead: boolean;
}

/**
 * Fixed timing: every request gets exactly ttftMs and then one token per itlMs, whatever the load.
 * One min-heap of deadlines and one timer for all streams, so hundreds of streams cost one wake-up per
 * distinct deadline rather than a timer per token per stream.
 */
export class FixedScheduler implements Scheduler {
  private readonly heap: FixedEntry[] = [];
  private readonly live = new Map<string, FixedEntry>();
  private timer: NodeJS.Timeout | null = null;
  private armedFor = Infinity;
  /** The latest stall's end: no token is written before it. */
  private stallEndMs = -Infinity;
  private closed = false;

  constructor(
    readonly ttftMs: number,
    readonly itlMs: number,
    private readonly sink: TokenSink,
    private readonly idleWatts: number,
    private readonly clock: Clock = monotonicMs,
  ) {}

  submit(req: BatchRequest): void {
    const e: FixedEntry = {
      req, index: 0, nextMs: req.arrivalMs + this.ttftMs, prevMs: null, firstMs: null, dead: false,
    };
    this.live.set(req.id, e);
    this.push(e);
    this.arm();
  }

  abort(id: string): void {
    const e = this.live.get(id);
    if (!e) return;
    e.dead = true;
    this.live.delete(id);
    this.sink.onFinished(this.finished(e, 'abort', this.clock()));
  }

  running(): number {
    return this.live.size;
  }

  waiting(): number {
    return 0;
  }

  kvUsage(): number {
    return 0;
  }

  powerWatts(): number {
    return this.idleWatts;
  }

  stall(ms: number): StallWindow {
    // The armed timer, if any, fires as planned and re-arms for the stall's end (fire()).
    const now = this.clock();
    this.stallEndMs = Math.max(this.stallEndMs, now + ms);
    return { startMs: now, endMs: this.stallEndMs };
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private arm(): void {
    if (this.closed) return;
    const top = this.heap[0];
    if (!top) return;
    const due = Math.max(top.nextMs, this.stallEndMs);
    if (this.timer && this.armedFor <= due) return;
    if (this.timer) clearTimeout(this.timer);
    this.armedFor = due;
    this.timer = setTimeout(() => this.fire(), Math.max(0, due - this.clock()));
  }

  private fire(): void {
    this.timer = null;
    this.armedFor = Infinity;
    if (this.closed) return;
    const now = this.clock();
    if (now < this.stallEndMs) {
      // Stalled (or a timer a fraction of a millisecond early): nothing is written before the stall's end.
      this.arm();
      return;
    }
    const tokens: TokenEvent[] = [];
    const finished: FinishedEvent[] = [];
    // Everything due by now; a token due a fraction of a millisecond later waits for the next timer (the timer fired
    // early), as writing it now would put it before the time the metrics record for it.
    while (this.heap.length > 0 && this.heap[0]!.nextMs <= now) {
      const e = this.pop()!;
      if (e.dead) continue;
      e.index++;
      // A token due during a stall goes out at its end: the stream's tokens held by it leave together.
      const at = Math.max(e.nextMs, this.stallEndMs);
      const gapMs = e.prevMs === null ? null : at - e.prevMs;
      if (e.firstMs === null) e.firstMs = at;
      e.prevMs = at;
      const last = e.index >= e.req.outputTokens;
      tokens.push({ id: e.req.id, index: e.index, gapMs, finished: last ? e.req.finishReason : null });
      if (last) {
        e.dead = true;
        this.live.delete(e.req.id);
        finished.push(this.finished(e, e.req.finishReason, at));
      } else {
        // Absolute schedule: token k at arrival + ttft + (k-1)*itl.
        e.nextMs = e.req.arrivalMs + this.ttftMs + e.index * this.itlMs;
        this.push(e);
      }
    }
    if (tokens.length > 0) this.sink.onTokens(tokens, now);
    for (const f of finished) this.sink.onFinished(f);
    this.arm();
  }

  private finished(e: FixedEntry, reason: FinishedEvent['reason'], endMs: number): FinishedEvent {
    return {
      id: e.req.id,
      reason,
      promptTokens: e.req.promptTokens,
      generatedTokens: e.index,
      arrivalMs: e.req.arrivalMs,
      queuedMs: e.req.arrivalMs,
      firstScheduledMs: e.req.arrivalMs,
      firstTokenMs: e.firstMs,
      lastTokenMs: e.prevMs,
      endMs,
      preemptions: 0,
      cachedTokens: 0,
    };
  }

  private push(e: FixedEntry): void {
    const h = this.heap;
    h.push(e);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (h[p]!.nextMs <= h[i]!.nextMs) break;
      [h[p], h[i]] = [h[i]!, h[p]!];
      i = p;
    }
  }

  private pop(): FixedEntry | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0 && last) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && h[l]!.nextMs < h[m]!.nextMs) m = l;
        if (r < h.length && h[r]!.nextMs < h[m]!.nextMs) m = r;
        if (m === i) break;
        [h[m], h[i]] = [h[i]!, h[m]!];
        i = m;
      }
    }
    return top;
  }
}
