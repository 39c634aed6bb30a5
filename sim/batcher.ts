// The continuous-batching step loop of the simulator: pure state, no I/O, no clock. Runs in Node.
// See docs/design/simulator-model.md, "One scheduling step".
//
// The caller (BatcherScheduler in sim/scheduler.ts on the real clock, sim/virtual-run.ts or a test on a virtual one)
// calls beginStep(startMs) to schedule a batch, learns its duration, and calls endStep() at the step's deadline to
// sample tokens.

import { KvCache } from './kv-cache';
import { StepNoise, type NoiseSettings } from './noise';
import type { Profile } from './profiles';
import { stepTime, type StepEntry, type StepTime } from './step-time';

export type FinishReason = 'length' | 'stop' | 'abort';

export interface BatchRequest {
  readonly id: string;
  readonly promptTokens: number;
  /** Tokens to sample before finishing (>= 1). */
  readonly outputTokens: number;
  /** Reason reported when outputTokens have been sampled. */
  readonly finishReason: 'length' | 'stop';
  /** When the request reached the server (HTTP arrival), ms on the batcher clock. */
  readonly arrivalMs: number;
  /** When it entered the waiting queue (arrival + per-request overhead), ms. */
  readonly queuedMs: number;
  /**
   * Chained hashes of the prompt's full KV blocks (block i covers tokens 0..(i+1)*blockSize), for the
   * prefix cache; absent = a prompt that shares nothing with any other.
   */
  readonly blockHashes?: readonly number[];
  /**
   * How far past queuedMs the simulator's own work (reading the body, counting tokens) brought the request, ms:
   * an idle batcher may start its step that far back, so that work never shows in TTFT; absent = 0.
   */
  readonly lateMs?: number;
}

export interface BatcherOptions {
  /** Automatic prefix caching, as vLLM v1 (default on). */
  readonly prefixCaching?: boolean;
  /** Step-time noise (sim/noise.ts); absent = every step lasts exactly its modelled time. */
  readonly noise?: NoiseSettings;
}

/** One sampled token: `index` is the 1-based count of tokens the request has sampled. */
export interface TokenEvent {
  readonly id: string;
  readonly index: number;
  /** Time since the request's previous token, ms (null for the first token). */
  readonly gapMs: number | null;
  readonly finished: 'length' | 'stop' | null;
  /**
   * On the first token (index 1) only: prompt tokens the prefix cache served at the request's first admission, as
   * vLLM reports them (num_cached_tokens is set once, when the request is first scheduled; a re-admission after
   * preemption does not change it).
   */
  readonly cachedTokens?: number;
}

export interface FinishedEvent {
  readonly id: string;
  readonly reason: FinishReason;
  readonly promptTokens: number;
  readonly generatedTokens: number;
  readonly arrivalMs: number;
  readonly queuedMs: number;
  readonly firstScheduledMs: number | null;
  readonly firstTokenMs: number | null;
  readonly lastTokenMs: number | null;
  readonly endMs: number;
  readonly preemptions: number;
  /** Prompt tokens served from the prefix cache at the latest admission. */
  readonly cachedTokens: number;
}

export interface StepPlan {
  readonly startMs: number;
  /** startMs + the modelled time (time.totalMs), or with noise the jittered time plus any stall. */
  readonly endMs: number;
  /** The performance model's step time, without noise. */
  readonly time: StepTime;
  /** Stall added after this step by the noise, ms (0 without noise). */
  readonly stallMs: number;
  readonly sequences: number;
  readonly tokens: number;
  readonly preempted: number;
  /** Prefix-cache lookups of the requests admitted in this step: prompt (sequence) tokens queried, and found cached. */
  readonly prefixQueryTokens: number;
  readonly prefixHitTokens: number;
}

export interface StepResult {
  readonly endMs: number;
  readonly tokens: TokenEvent[];
  readonly finished: FinishedEvent[];
}

interface Seq {
  readonly req: BatchRequest;
  generated: number;
  computed: number;
  firstScheduledMs: number | null;
  firstTokenMs: number | null;
  lastTokenMs: number | null;
  preemptions: number;
  /** Prompt tokens found in the prefix cache at the latest admission. */
  cachedTokens: number;
  /** ...and at the first admission (what the response's usage reports); null before it. */
  firstCachedTokens: number | null;
  done: boolean;
  /** Prefill-first policy: the first token is sampled but not yet streamed (it goes out with the second). */
  heldFirst: boolean;
}

interface Scheduled {
  readonly seq: Seq;
  readonly newTokens: number;
}

/** Blocks a hybrid-attention sequence holds for its recurrent state: half of the r+w bytes, in KV-token units. */
export function stateBlocksPerSeq(profile: Profile): number {
  const hw = profile.hardware;
  if (hw.stateBytesPerSeq <= 0) return 0;
  return Math.ceil(hw.stateBytesPerSeq / 2 / hw.kvBytesPerToken / profile.scheduler.blockSize);
}

export class Batcher {
  readonly kv: KvCache;
  private readonly waiting: Seq[] = [];
  private running: Seq[] = [];
  private readonly byId = new Map<string, Seq>();
  private inFlight: { plan: StepPlan; batch: Scheduled[] } | null = null;
  private readonly noise: StepNoise | null;
  /** Cumulative counters for /metrics. */
  preemptionsTotal = 0;
  promptTokensTotal = 0;
  generationTokensTotal = 0;
  /** vLLM v1 prefix-cache stats, in tokens: sequence tokens looked up at admission, and tokens found cached. */
  prefixQueryTokensTotal = 0;
  prefixHitTokensTotal = 0;

  constructor(
    readonly profile: Profile, options: BatcherOptions = {},
  ) {
    const s = profile.scheduler;
    this.kv = new KvCache(
      Math.floor(s.kvCapacityTokens / s.blockSize), s.blockSize, stateBlocksPerSeq(profile),
      options.prefixCaching ?? true,
    );
    this.noise = options.noise ? new StepNoise(options.noise) : null;
  }

  /** The noise this batcher runs with, or null (exact modelled step times). */
  get noiseSettings(): NoiseSettings | null {
    return this.noise?.settings ?? null;
  }

  get prefixCaching(): boolean {
    return this.kv.prefixCaching;
  }

  get runningCount(): number {
    return this.running.length;
  }

  get waitingCount(): number {
    return this.waiting.length;
  }

  get stepInFlight(): boolean {
    return this.inFlight !== null;
  }

  hasWork(): boolean {
    return this.running.length > 0 || this.waiting.length > 0;
  }

  /** True when a sequence of this many tokens (prompt + output) can ever fit in the whole KV cache. */
  fitsCapacity(tokens: number): boolean {
    return this.kv.blocksFor(tokens) <= this.kv.totalBlocks;
  }

  add(req: BatchRequest): void {
    if (this.byId.has(req.id)) throw new Error(`duplicate request id ${req.id}`);
    if (req.outputTokens < 1) throw new Error('outputTokens must be >= 1');
    if (!this.fitsCapacity(req.promptTokens + req.outputTokens))
      throw new Error(`request ${req.id} cannot fit in the KV cache`);
    const seq: Seq = {
      req, generated: 0, computed: 0, firstScheduledMs: null, firstTokenMs: null, lastTokenMs: null, preemptions: 0,
      cachedTokens: 0, firstCachedTokens: null, done: false, heldFirst: false,
    };
    this.byId.set(req.id, seq);
    this.waiting.push(seq);
  }

  /**
   * Client disconnect: frees the request's blocks at once; returns its finished event (reason abort), or undefined if
   * unknown.
   */
  abort(id: string, nowMs: number): FinishedEvent | undefined {
    const seq = this.byId.get(id);
    if (!seq || seq.done) return undefined;
    seq.done = true;
    this.byId.delete(id);
    this.kv.free(id);
    const wi = this.waiting.indexOf(seq);
    if (wi >= 0) this.waiting.splice(wi, 1);
    const ri = this.running.indexOf(seq);
    if (ri >= 0) this.running.splice(ri, 1);
    return this.finishedEvent(seq, 'abort', nowMs);
  }

  /** Schedules one step starting at startMs; null when there is nothing to run. Must be followed by endStep(). */
  beginStep(startMs: number): StepPlan | null {
    if (this.inFlight) throw new Error('beginStep called while a step is in flight');
    const { chunkTokens, maxNumSeqs } = this.profile.scheduler;
    let budget = chunkTokens;
    const batch: Scheduled[] = [];
    let preempted = 0;

    // Prefill-first (SGLang): while a prompt is left to prefill, the step runs prefill work only.
    const prefillFirst = this.profile.scheduler.policy === 'prefill-first';
    const prefillPending = prefillFirst && (this.waiting.length > 0 || this.running.some(inPrefill));

    // 1-2. Running requests, oldest first; on KV exhaustion preempt the newest running request.
    for (let i = 0; i < this.running.length && budget > 0;) {
      const seq = this.running[i]!;
      if (prefillPending && !inPrefill(seq)) {
        i++;
        continue;
      }
      const need = Math.min(seqLength(seq) - seq.computed, budget);
      let ok = this.kv.tryAllocate(seq.req.id, seq.computed + need, hashCount(seq));
      let selfPreempted = false;
      while (!ok) {
        const victim = this.running.pop()!;
        this.preempt(victim);
        preempted++;
        if (victim === seq) {
          selfPreempted = true;
          break;
        }
        ok = this.kv.tryAllocate(seq.req.id, seq.computed + need, hashCount(seq));
      }
      if (selfPreempted) break;
      this.kv.commit(seq.req.id, seq.req.blockHashes, seq.computed + need);
      batch.push({ seq, newTokens: need });
      budget -= need;
      i++;
    }

    // 3. Admission, only when nothing was preempted: whole current sequence must fit in free blocks
    // (blocks of a prefix hit that another sequence holds cost nothing; cached free blocks are reclaimed).
    // (If preemption left the batch empty, admit anyway rather than idle with work waiting.)
    let prefixQueryTokens = 0;
    let prefixHitTokens = 0;
    if (preempted === 0 || batch.length === 0) {
      const bs = this.kv.blockSize;
      while (this.waiting.length > 0 && budget > 0 && this.running.length < maxNumSeqs) {
        const seq = this.waiting[0]!;
        const length = seqLength(seq);
        // vLLM recomputes at least the last token (to get its logits): a hit covers at most floor((n-1)/bs) blocks.
        const hit = this.kv.lookup(seq.req.blockHashes, Math.floor((length - 1) / bs));
        if (!this.kv.fits(length, hit)) break;
        const cached = hit.blocks.length * bs;
        const need = Math.min(length - cached, budget);
        this.kv.acquire(seq.req.id, hit, hashCount(seq));
        this.kv.tryAllocate(seq.req.id, cached + need, hashCount(seq));
        this.kv.commit(seq.req.id, seq.req.blockHashes, cached + need);
        seq.computed = cached;
        seq.cachedTokens = cached;
        seq.firstCachedTokens ??= cached;
        if (this.kv.prefixCaching) {
          prefixQueryTokens += length;
          prefixHitTokens += cached;
        }
        this.waiting.shift();
        this.running.push(seq);
        if (seq.firstScheduledMs === null) seq.firstScheduledMs = startMs;
        batch.push({ seq, newTokens: need });
        budget -= need;
      }
      this.prefixQueryTokensTotal += prefixQueryTokens;
      this.prefixHitTokensTotal += prefixHitTokens;
    }

    if (batch.length === 0 && prefillPending && preempted === 0) {
      // Nothing could be admitted (KV or max_num_seqs): SGLang then runs its decode batch.
      return this.decodeOnly(startMs);
    }
    if (batch.length === 0) return null;
    return this.plan(startMs, batch, budget, preempted, prefixQueryTokens, prefixHitTokens);
  }

  /**
   * A decode-only step of the running requests (prefill-first policy when no prefill could be scheduled). On KV
   * exhaustion the newest running request is preempted, as in the mixed walk (SGLang retracts decode requests).
   */
  private decodeOnly(startMs: number): StepPlan | null {
    const batch: Scheduled[] = [];
    let budget = this.profile.scheduler.chunkTokens;
    let preempted = 0;
    for (let i = 0; i < this.running.length && budget > 0; i++) {
      const seq = this.running[i]!;
      if (inPrefill(seq)) continue;
      let ok = this.kv.tryAllocate(seq.req.id, seq.computed + 1, hashCount(seq));
      while (!ok) {
        const victim = this.running.pop()!;
        this.preempt(victim);
        preempted++;
        if (victim === seq) break;
        ok = this.kv.tryAllocate(seq.req.id, seq.computed + 1, hashCount(seq));
      }
      if (!ok) break;
      this.kv.commit(seq.req.id, seq.req.blockHashes, seq.computed + 1);
      batch.push({ seq, newTokens: 1 });
      budget--;
    }
    if (batch.length === 0) return null;
    return this.plan(startMs, batch, budget, preempted, 0, 0);
  }

  private plan(
    startMs: number, batch: Scheduled[], budget: number, preempted: number, prefixQueryTokens: number,
    prefixHitTokens: number,
  ): StepPlan {
    const { chunkTokens } = this.profile.scheduler;
    const entries: StepEntry[] = batch.map((b) => ({ newTokens: b.newTokens, cachedTokens: b.seq.computed }));
    const time = stepTime(this.profile.hardware, entries);
    // A stall lasts stallSteps decode steps of these sequences: each computing one token on top of all it holds.
    const noisy = this.noise
      ? this.noise.step(time.totalMs, () => stepTime(this.profile.hardware, decodeEntries(entries)).totalMs)
      : { totalMs: time.totalMs, stallMs: 0 };
    const plan: StepPlan = {
      startMs,
      endMs: startMs + noisy.totalMs,
      time,
      stallMs: noisy.stallMs,
      sequences: batch.length,
      tokens: chunkTokens - budget,
      preempted,
      prefixQueryTokens,
      prefixHitTokens,
    };
    this.inFlight = { plan, batch };
    return plan;
  }

  /**
   * Completes the step in flight at its deadline: requests whose sequence is fully computed sample one token.
   * `heldToMs`: when the step really ended, if a server stall (sim/scheduler.ts) held it past its planned end; the
   * tokens' times and gaps are then that late, as a GPU that paused mid-step would make them.
   */
  endStep(heldToMs?: number): StepResult {
    if (!this.inFlight) throw new Error('endStep called with no step in flight');
    const { plan, batch } = this.inFlight;
    this.inFlight = null;
    const endMs = Math.max(plan.endMs, heldToMs ?? plan.endMs);
    const tokens: TokenEvent[] = [];
    const finished: FinishedEvent[] = [];
    let anyDone = false;
    for (const { seq, newTokens } of batch) {
      if (seq.done) continue; // aborted during the step
      seq.computed += newTokens;
      if (seq.computed < seqLength(seq)) continue; // prefill chunk, more to come
      seq.generated++;
      this.generationTokensTotal++;
      const isLast = seq.generated >= seq.req.outputTokens;
      if (seq.generated === 1 && !isLast && this.profile.scheduler.policy === 'prefill-first') {
        seq.heldFirst = true;
        continue;
      }
      if (seq.heldFirst) {
        // The held first token goes out now, in the same write as the second.
        seq.heldFirst = false;
        tokens.push({
          id: seq.req.id, index: 1, gapMs: null, finished: null, cachedTokens: seq.firstCachedTokens ?? 0,
        });
        seq.lastTokenMs = endMs;
      }
      const gapMs = seq.lastTokenMs === null ? null : endMs - seq.lastTokenMs;
      if (seq.firstTokenMs === null) {
        seq.firstTokenMs = endMs;
        this.promptTokensTotal += seq.req.promptTokens;
      }
      seq.lastTokenMs = endMs;
      const token: TokenEvent = {
        id: seq.req.id, index: seq.generated, gapMs, finished: isLast ? seq.req.finishReason : null,
      };
      tokens.push(seq.generated === 1 ? { ...token, cachedTokens: seq.firstCachedTokens ?? 0 } : token);
      if (isLast) {
        seq.done = true;
        anyDone = true;
        this.kv.free(seq.req.id);
        this.byId.delete(seq.req.id);
        finished.push(this.finishedEvent(seq, seq.req.finishReason, endMs));
      }
    }
    if (anyDone) this.running = this.running.filter((s) => !s.done);
    return { endMs, tokens, finished };
  }

  private preempt(seq: Seq): void {
    this.kv.free(seq.req.id);
    seq.computed = 0;
    seq.preemptions++;
    this.preemptionsTotal++;
    this.waiting.unshift(seq);
  }

  private finishedEvent(seq: Seq, reason: FinishReason, endMs: number): FinishedEvent {
    return {
      id: seq.req.id,
      reason,
      promptTokens: seq.req.promptTokens,
      generatedTokens: seq.generated,
      arrivalMs: seq.req.arrivalMs,
      queuedMs: seq.req.queuedMs,
      firstScheduledMs: seq.firstScheduledMs,
      firstTokenMs: seq.firstTokenMs,
      lastTokenMs: seq.lastTokenMs,
      endMs,
      preemptions: seq.preemptions,
      cachedTokens: seq.cachedTokens,
    };
  }
}

/** The entries of a decode-only step of the same sequences: one new token each, on top of all the step leaves in KV. */
function decodeEntries(entries: readonly StepEntry[]): StepEntry[] {
  return entries.map((e) => ({ newTokens: 1, cachedTokens: e.cachedTokens + e.newTokens - 1 }));
}

/** Still computing its prompt (or, after preemption, recomputing): more than the one decode token to go. */
function inPrefill(seq: Seq): boolean {
  return seq.req.promptTokens + seq.generated - seq.computed > 1 || seq.generated === 0;
}

/** How many of the sequence's blocks a hash of its prompt names: the KV cache keeps only those as objects. */
function hashCount(seq: Seq): number {
  return seq.req.blockHashes?.length ?? 0;
}

/** Tokens of a sequence's current length: prompt plus tokens sampled so far. */
function seqLength(seq: Seq): number {
  return seq.req.promptTokens + seq.generated;
}
