// Runs the batcher in virtual time (no timers, no HTTP) for a batch of simultaneous requests: what the model predicts.
// Runs in Node, pure.
//
// Used by the fidelity bench (to show the model's own prediction next to what a client measured)
// and by unit tests; the HTTP server should reproduce these numbers within timer and network noise.

import { decodeTokensPerSecond } from '../lib/request-figures';
import { Batcher, type BatchRequest } from './batcher';
import { chainedBlockHashes } from './kv-cache';
import type { NoiseSettings } from './noise';
import type { Profile } from './profiles';
import { smoothTowards, stepPowerWatts } from './step-time';

export interface VirtualRequestResult {
  readonly ttftMs: number;
  readonly e2eMs: number;
  readonly outputTokens: number;
  /** Per-user decode speed, tokens/s (lib/request-figures.ts); null for a one-token answer. */
  readonly decodeTokensPerSecond: number | null;
}

export interface VirtualRunResult {
  readonly requests: VirtualRequestResult[];
  /** Wall time from the first arrival to the last token, ms. */
  readonly wallMs: number;
  /** Output tokens / wall time, tokens per second. */
  readonly systemTokensPerSecond: number;
  readonly preemptions: number;
  /**
   * Highest power the DCGM gauges would show, summed over the GPUs, watts: the model's per-step power
   * through the 0.5 s lag, read at every step boundary (where the lagged value turns).
   */
  readonly peakPowerWatts: number;
  /** Mean power from first arrival to last token, summed over the GPUs, watts: what a cell's average shows. */
  readonly meanPowerWatts: number;
}

export interface VirtualRunOptions {
  /** Prompt tokens every request has in common at its start (PROMPT_MODE=shared-prefix); default 0: unique prompts. */
  readonly sharedPrefixTokens?: number;
  /** Prefix caching in the batcher (default true, as the server). */
  readonly prefixCaching?: boolean;
  /** Step-time noise, as the server's --noise (sim/noise.ts); default none. One seed gives one run. */
  readonly noise?: NoiseSettings;
}

/**
 * N requests arriving together at t=0, each of promptTokens with exactly outputTokens generated.
 * Prompts are unique (no prefix-cache hits, as the suite's per-request first line makes them) unless
 * sharedPrefixTokens says how many leading tokens they share; the batcher models the server's cache.
 */
export function runVirtualBatch(
  profile: Profile, promptTokens: number, outputTokens: number, concurrency: number, options: VirtualRunOptions = {},
): VirtualRunResult {
  const caching = options.prefixCaching ?? true;
  const batcher = new Batcher(profile, { prefixCaching: caching, noise: options.noise });
  const overhead = profile.hardware.requestOverheadMs;
  const shared = Math.min(options.sharedPrefixTokens ?? 0, promptTokens);
  const bs = profile.scheduler.blockSize;
  for (let i = 0; i < concurrency; i++) {
    // Synthetic token ids, hashed as the server hashes real ones: the shared prefix the same for all,
    // the rest unique to the request (so a preempted request finds its own blocks again, as over HTTP).
    let blockHashes: number[] | undefined;
    if (caching) {
      const ids = new Uint32Array(promptTokens);
      ids.fill(1 + i, shared);
      blockHashes = chainedBlockHashes([ids], bs);
    }
    batcher.add({
      id: `r${i}`, promptTokens, outputTokens, finishReason: 'length', arrivalMs: 0, queuedMs: overhead, blockHashes,
    });
  }
  const first = new Map<string, number>();
  const requests: VirtualRequestResult[] = [];
  let now = overhead;
  const { powerIdleWatts: idle, powerMaxWatts: max } = profile;
  let watts = idle;
  let peakWatts = idle;
  // Energy per GPU in W*ms; the per-request overhead before the first step draws idle power.
  let energyWattMs = idle * overhead;
  while (batcher.hasWork()) {
    const plan = batcher.beginStep(now);
    if (!plan) throw new Error('batcher stalled with work pending');
    const res = batcher.endStep();
    const target = stepPowerWatts(plan.time, idle, max);
    energyWattMs += target * (res.endMs - now);
    watts = smoothTowards(watts, target, res.endMs - now);
    peakWatts = Math.max(peakWatts, watts);
    now = res.endMs;
    for (const t of res.tokens) if (t.index === 1) first.set(t.id, res.endMs);
    for (const f of res.finished) {
      const ttft = first.get(f.id)! - f.arrivalMs;
      const e2e = f.endMs - f.arrivalMs;
      requests.push({
        ttftMs: ttft,
        e2eMs: e2e,
        outputTokens: f.generatedTokens,
        decodeTokensPerSecond: decodeTokensPerSecond(e2e, ttft, f.generatedTokens),
      });
    }
  }
  const total = requests.reduce((s, r) => s + r.outputTokens, 0);
  return {
    requests,
    wallMs: now,
    systemTokensPerSecond: (total * 1000) / now,
    preemptions: batcher.preemptionsTotal,
    peakPowerWatts: peakWatts * profile.hardware.tensorParallel,
    meanPowerWatts: (now > 0 ? energyWattMs / now : idle) * profile.hardware.tensorParallel,
  };
}

/**
 * Requests in their per-request overhead, held back from the batcher until their queuedMs, as the server holds them
 * (sim/server.ts): an batcher given a request early would schedule it at once and leave o_req out of its TTFT.
 */
export class OverheadQueue {
  private readonly pending: BatchRequest[] = [];

  constructor(private readonly batcher: Batcher) {}

  add(req: BatchRequest): void {
    let i = this.pending.length;
    while (i > 0 && this.pending[i - 1]!.queuedMs > req.queuedMs) i--;
    this.pending.splice(i, 0, req);
  }

  /** Hands the batcher every request queued by nowMs, in queue order. */
  release(nowMs: number): void {
    let n = 0;
    while (n < this.pending.length && this.pending[n]!.queuedMs <= nowMs) this.batcher.add(this.pending[n++]!);
    this.pending.splice(0, n);
  }

  /** When the next held request is queued, or null with none held. */
  nextQueuedMs(): number | null {
    return this.pending[0]?.queuedMs ?? null;
  }
}

export function mean(xs: readonly number[]): number {
  return xs.length === 0 ? 0 : xs.reduce((s, x) => s + x, 0) / xs.length;
}

/** A user's time from its request's end to its next request, ms. */
function gapOf(options: ClosedLoopOptions, user: number): number {
  const gap = options.requestGapMs ?? 0;
  return typeof gap === 'function' ? gap(user) : gap;
}

export interface ClosedLoopStep {
  /** Users in service during this step. */
  readonly users: number;
  /** Virtual seconds the step lasts. */
  readonly seconds: number;
}

export interface ClosedLoopRequest extends VirtualRequestResult {
  /** Index of the step the request started in. */
  readonly step: number;
  readonly user: number;
  readonly startMs: number;
  readonly endMs: number;
}

export interface ClosedLoopOptions {
  readonly noise?: NoiseSettings;
  readonly requestsPerUser?: number;
  /**
   * Per user, how long after its step's start it sends its first request (missing: at the start). A measured cell's
   * users do not start at one instant: the client hands their first requests on over tens to hundreds of ms.
   */
  readonly userStartMs?: readonly number[];
  /**
   * How long after a request ends its user sends the next (default 0): a measured client's turnaround (reading the
   * last chunk, handing the record on, starting the next request) is milliseconds to a hundred, and where a schedule
   * turns on a millisecond (two users' prompts meeting in one step or not) it decides what is measured.
   */
  readonly requestGapMs?: number | ((user: number) => number);
}

/**
 * Closed-loop users in virtual time: each user sends its next request the moment the previous one
 * ends (no think time). The user count follows `steps` back to back: users added at a step start at
 * its beginning; users removed finish their request first. What the model predicts for a steady-state
 * capacity step, and for a ramp of steps. With `noise`, what the simulator with that noise (--noise) predicts.
 * With `requestsPerUser`, each user stops after that many requests (a sweep cell's rounds); a step may then last
 * Infinity seconds: the run ends when the last user is done.
 */
export function runVirtualClosedLoop(
  profile: Profile, promptTokens: number, outputTokens: number, steps: readonly ClosedLoopStep[],
  options: ClosedLoopOptions = {},
): ClosedLoopRequest[] {
  const batcher = new Batcher(profile, { prefixCaching: false, noise: options.noise });
  const overhead = profile.hardware.requestOverheadMs;
  const boundaries: number[] = [];
  let t = 0;
  for (const s of steps) {
    boundaries.push(t);
    t += s.seconds * 1000;
  }
  const endAll = t;
  const stepAt = (ms: number) => {
    let i = 0;
    while (i + 1 < boundaries.length && boundaries[i + 1]! <= ms) i++;
    return i;
  };
  const out: ClosedLoopRequest[] = [];
  const active = new Map<string, { user: number; step: number; startMs: number }>();
  const busy = new Set<number>();
  const sentBy = new Map<number, number>();
  const perUser = options.requestsPerUser ?? Infinity;
  const first = new Map<string, number>();
  const queue = new OverheadQueue(batcher);
  let seq = 0;
  const submit = (user: number, at: number) => {
    const id = `u${user}-${seq++}`;
    active.set(id, { user, step: stepAt(at), startMs: at });
    busy.add(user);
    sentBy.set(user, (sentBy.get(user) ?? 0) + 1);
    queue.add({ id, promptTokens, outputTokens, finishReason: 'length', arrivalMs: at, queuedMs: at + overhead });
  };
  let now = 0;
  let nextBoundary = 0;
  for (;;) {
    // Start users added at boundaries that have been reached.
    while (nextBoundary < boundaries.length && boundaries[nextBoundary]! <= now) {
      const users = steps[nextBoundary]!.users;
      const at = (u: number) => boundaries[nextBoundary]! + (options.userStartMs?.[u] ?? 0);
      for (let u = 0; u < users; u++) if (!busy.has(u)) submit(u, at(u));
      nextBoundary++;
    }
    queue.release(now);
    if (!batcher.hasWork()) {
      // Idle: on to the next request out of its overhead, or the next step of users, whichever comes first.
      const next = Math.min(queue.nextQueuedMs() ?? Infinity, boundaries[nextBoundary] ?? Infinity);
      if (next === Infinity) break;
      now = next;
      continue;
    }
    const plan = batcher.beginStep(now);
    if (!plan) throw new Error('batcher stalled with work pending');
    const res = batcher.endStep();
    now = res.endMs;
    for (const tk of res.tokens) if (tk.index === 1) first.set(tk.id, res.endMs);
    for (const f of res.finished) {
      const a = active.get(f.id)!;
      active.delete(f.id);
      busy.delete(a.user);
      const ttft = first.get(f.id)! - f.arrivalMs;
      const e2e = f.endMs - f.arrivalMs;
      out.push({
        ttftMs: ttft,
        e2eMs: e2e,
        outputTokens: f.generatedTokens,
        decodeTokensPerSecond: decodeTokensPerSecond(e2e, ttft, f.generatedTokens),
        step: a.step,
        user: a.user,
        startMs: a.startMs,
        endMs: f.endMs,
      });
      const s = stepAt(f.endMs);
      const more = f.endMs < endAll && a.user < steps[s]!.users && sentBy.get(a.user)! < perUser;
      if (more) submit(a.user, f.endMs + gapOf(options, a.user));
    }
  }
  return out;
}
