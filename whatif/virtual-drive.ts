// Drives a part's steps against the simulator's batcher in virtual time: the bench's own Driver and step source
// (fixed cells, or the adaptive capacity search) with the batcher in place of k6, the HTTP server and the clock.
// Pure. Runs in Node.
//
// The Driver decides which user sends what and when a step ends, exactly as in a measured run; only the requests are
// served by sim/batcher.ts, as the simulator's own virtual-time closed loop serves them (sim/virtual-run.ts
// runVirtualClosedLoop, the model bench/virtual-capacity.ts's true capacities come from): a request enters the batcher
// once its per-request overhead is over, as the HTTP server hands it on. docs/guides/what-if.md says where the two
// differ.

import type { DoneReport, Ticket } from '../lib/drive';
import {
  decodeTokensPerSecond, judgeGoodput, prefillTokensPerSecond, timePerOutputTokenMs,
} from '../lib/request-figures';
import { Driver, type StepResult, type StepSource } from '../orchestrator/driver';
import { Batcher, type FinishedEvent, type TokenEvent } from '../sim/batcher';
import { chainedBlockHashes } from '../sim/kv-cache';
import type { NoiseSettings } from '../sim/noise';
import type { Profile } from '../sim/profiles';
import { OverheadQueue } from '../sim/virtual-run';
import type { UseCaseLimit } from '../thresholds/use-cases';

/** What the report's samples need of a request beyond the Driver's record of it. */
export interface RequestExtras {
  readonly inputTokens: number;
  readonly cachedTokens: number;
}

export interface VirtualDrive {
  /** Every step as the Driver recorded it, requests with their phases. */
  readonly steps: readonly StepResult[];
  /** Per ticket: its prompt tokens and the prompt tokens the prefix cache served. */
  readonly extras: ReadonlyMap<number, RequestExtras>;
  /** Requests issued and never ended, per step index (none: the batcher serves every request it is given). */
  readonly unfinished: ReadonlyMap<number, number>;
  /** Virtual time from the first request to the last, and with at least one request running, ms. */
  readonly wallMs: number;
  readonly busyMs: number;
}

export interface VirtualDriveOptions {
  /** Closed-loop users the part may need at once (the k6 script's VUs). */
  readonly vus: number;
  /** Every prompt the same (prompts.mode shared-prefix): the batcher's prefix cache serves them; else all unique. */
  readonly sharedPrompts: boolean;
  /** The limits a cell's requests are judged on for goodput (its use case's), null for a cell without one. */
  readonly sloOf: (cell: Ticket['cell']) => readonly UseCaseLimit[] | null;
  /**
   * The prompt a cell of this context sends: its context, or less where the profile's window must hold the output
   * too (the bench fits such prompts the same way, orchestrator/context-window.ts); default the context.
   */
  readonly promptTokensOf?: (contextTokens: number) => number;
  readonly noise?: NoiseSettings;
  /**
   * How long after a request ends its user sends the next, ms (default 0): the client's turnaround a fitted profile's
   * run measured (its `fit.clientGapMs`), as sim/virtual-run.ts's closed loop sends it.
   */
  readonly requestGapMs?: number;
}

interface InFlight {
  readonly ticket: number;
  readonly vu: number;
  readonly cell: Ticket['cell'];
  readonly arrivalMs: number;
  firstMs: number | null;
  readonly itlMs: number[];
  cachedTokens: number;
}

/** Runs the steps `source` gives until it has none left; every request ends (the batcher never drops one). */
export function driveVirtually(profile: Profile, source: StepSource, options: VirtualDriveOptions): VirtualDrive {
  let now = 0;
  const driver = new Driver(source, () => now);
  const batcher = new Batcher(profile, { prefixCaching: options.sharedPrompts, noise: options.noise });
  const queue = new OverheadQueue(batcher);
  const overhead = profile.hardware.requestOverheadMs;
  const idle = new Set(Array.from({ length: options.vus }, (_, vu) => vu));
  const gapMs = options.requestGapMs ?? 0;
  /** Users whose request ended, with when they send again (the end plus the client's gap). */
  const returning = new Map<number, number>();
  /** When a user back from its gap would have sent: its request's arrival, even if dispatched at a later step end. */
  const sendAt = new Map<number, number>();
  const inFlight = new Map<string, InFlight>();
  const extras = new Map<number, RequestExtras>();
  /** Hands every idle VU its work; returns how long until the clock alone frees more (null: only a request ending). */
  const dispatch = (): number | null => {
    let quietMs: number | null = null;
    for (const [vu, at] of returning) {
      if (at > now) continue;
      returning.delete(vu);
      sendAt.set(vu, at);
      idle.add(vu);
    }
    for (const vu of [...idle]) {
      const d = driver.next(vu);
      // A user back from its gap during a step sends when the gap ends, not at the step's end (the batcher sees its
      // request at the next step either way); one the Driver holds back sends when it is let go.
      const back = sendAt.get(vu);
      sendAt.delete(vu);
      if (d.kind === 'wait' && d.forMs !== null) quietMs = Math.min(quietMs ?? d.forMs, d.forMs);
      if (d.kind !== 'ticket') continue;
      idle.delete(vu);
      const arrivalMs = Math.min(now, back ?? now);
      const req: InFlight = {
        ticket: d.ticket.ticket, vu, cell: d.ticket.cell, arrivalMs, firstMs: null, itlMs: [], cachedTokens: 0,
      };
      const id = `t${req.ticket}`;
      inFlight.set(id, req);
      const promptTokens = options.promptTokensOf?.(req.cell.contextTokens) ?? req.cell.contextTokens;
      queue.add({
        id, promptTokens, outputTokens: req.cell.outputTokens, finishReason: 'length', arrivalMs,
        queuedMs: arrivalMs + overhead, blockHashes: promptHashes(profile, promptTokens, options.sharedPrompts),
      });
    }
    return quietMs;
  };
  for (;;) {
    const quiet = dispatch();
    queue.release(now);
    if (!batcher.hasWork()) {
      const queued = queue.nextQueuedMs();
      const back = returning.size === 0 ? null : Math.min(...returning.values());
      if (queued === null && back === null && driver.finished) break;
      if (queued === null && back === null && quiet === null) {
        throw new Error('virtual drive: the driver waits with no request running');
      }
      // On to whichever comes first: a request out of its overhead, a user back from its gap, or the driver's send.
      now = Math.min(queued ?? Infinity, back ?? Infinity, quiet === null ? Infinity : now + quiet);
      continue;
    }
    if (!batcher.beginStep(now)) throw new Error('virtual drive: the batcher stalled with work pending');
    const res = batcher.endStep();
    now = res.endMs;
    noteTokens(res.tokens, res.endMs, inFlight);
    for (const f of res.finished) {
      const r = inFlight.get(f.id)!;
      inFlight.delete(f.id);
      extras.set(r.ticket, { inputTokens: f.promptTokens, cachedTokens: r.cachedTokens });
      driver.done(doneReport(r, f, options.sloOf(r.cell)));
      if (gapMs > 0) returning.set(r.vu, res.endMs + gapMs);
      else idle.add(r.vu);
    }
  }
  const busy = driver.busy();
  const unfinished = driver.unfinishedByStep();
  return { steps: driver.steps, extras, unfinished, wallMs: busy.wallMs, busyMs: busy.busyMs };
}

/** A step's sampled tokens: each request's first token time and cached prompt tokens, then its inter-token gaps. */
function noteTokens(tokens: readonly TokenEvent[], endMs: number, inFlight: ReadonlyMap<string, InFlight>): void {
  for (const t of tokens) {
    const r = inFlight.get(t.id)!;
    if (t.index === 1) {
      r.firstMs = endMs;
      r.cachedTokens = t.cachedTokens ?? 0;
    } else if (t.gapMs !== null) r.itlMs.push(t.gapMs);
  }
}

/** Shared prompts hash alike, so the batcher's prefix cache serves them as the server's would; unique share nothing. */
function promptHashes(profile: Profile, promptTokens: number, shared: boolean): number[] | undefined {
  if (!shared) return undefined;
  return chainedBlockHashes([new Uint32Array(promptTokens).fill(1)], profile.scheduler.blockSize);
}

/**
 * The figures a k6 VU reports for a completed request (lib/record.ts), from its token times, by the suite's one
 * definition of each (lib/request-figures.ts). Exported for the test that pins it to the agent's on one fixture.
 */
export function doneReport(
  r: Pick<InFlight, 'ticket' | 'arrivalMs' | 'firstMs' | 'itlMs'>,
  f: Pick<FinishedEvent, 'endMs' | 'generatedTokens' | 'promptTokens'>, slo: readonly UseCaseLimit[] | null,
): DoneReport {
  const { endMs, generatedTokens: outputTokens } = f;
  const ttftMs = r.firstMs! - r.arrivalMs;
  const e2eMs = endMs - r.arrivalMs;
  const figures = {
    // The batcher does not think first: its first token is content.
    ttftMs, ttfcMs: ttftMs, e2eMs,
    tpotMs: timePerOutputTokenMs(e2eMs, ttftMs, outputTokens),
    decodeTokensPerSecond: decodeTokensPerSecond(e2eMs, ttftMs, outputTokens),
    itlMs: r.itlMs,
  };
  return {
    ticket: r.ticket, ok: true, startMs: r.arrivalMs, endMs, ...figures,
    prefillTokensPerSecond: prefillTokensPerSecond(f.promptTokens, ttftMs),
    outputTokens,
    goodput: slo === null ? null : judgeGoodput(figures, slo),
    // No client in virtual time: nothing read late or together.
    readLagMs: null, stallMs: null, cpuPerCore: null, tokensReadTogether: null,
  };
}
