// A timer that fires a fraction of a millisecond before its deadline (Node's timers count whole milliseconds from a
// cached loop time) must not let the simulator write a token before the time its own metrics record for it: vLLM's
// TTFT and e2e end before the client reads the bytes, so a server figure above the client's is a measurement fault
// (analysis/clock-faults.ts). Fake timers truncate each delay to whole milliseconds, as Node's may, so a deadline at a
// fractional time fires early on every step. Runs in Node.

import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { BatchRequest, FinishedEvent, TokenEvent } from '../../sim/batcher';
import { PROFILES } from '../../sim/profiles';
import { BatcherScheduler, FixedScheduler, type Scheduler, type TokenSink } from '../../sim/scheduler';

interface Written {
  readonly firstWriteMs: Map<string, number>;
  readonly lastWriteMs: Map<string, number>;
  readonly finished: FinishedEvent[];
}

function recordingSink(): TokenSink & Written {
  const firstWriteMs = new Map<string, number>();
  const lastWriteMs = new Map<string, number>();
  const finished: FinishedEvent[] = [];
  return {
    firstWriteMs, lastWriteMs, finished,
    onTokens(tokens: readonly TokenEvent[], nowMs: number) {
      for (const t of tokens) {
        if (!firstWriteMs.has(t.id)) firstWriteMs.set(t.id, nowMs);
        lastWriteMs.set(t.id, nowMs);
      }
    },
    onFinished(ev: FinishedEvent) {
      finished.push(ev);
    },
    onPreemptions() {},
  };
}

// The scheduler's clock runs 0.37 ms off the timers' whole milliseconds, so its deadlines fall between them.
const clock = (): number => Date.now() + 0.37;

function request(id: string, outputTokens: number): BatchRequest {
  const now = clock();
  return { id, promptTokens: 300, outputTokens, finishReason: 'length', arrivalMs: now, queuedMs: now };
}

function runToEnd(scheduler: Scheduler, sink: Written, requests: number): void {
  for (let i = 0; i < requests; i++) {
    scheduler.submit(request(`r${i}`, 6));
    vi.advanceTimersByTime(3);
  }
  vi.advanceTimersByTime(60_000);
  expect(sink.finished).toHaveLength(requests);
}

function expectNoWriteBeforeItsRecord(sink: Written): void {
  for (const f of sink.finished) {
    expect(sink.firstWriteMs.get(f.id)).toBeGreaterThanOrEqual(f.firstTokenMs!);
    expect(sink.lastWriteMs.get(f.id)).toBeGreaterThanOrEqual(f.lastTokenMs!);
  }
}

describe('a timer firing before its deadline', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('writes no batched token before the step end the server records for it', () => {
    const sink = recordingSink();
    runToEnd(new BatcherScheduler(PROFILES[0]!, sink, clock), sink, 4);
    expectNoWriteBeforeItsRecord(sink);
  });

  it('writes no fixed-timing token before its deadline', () => {
    const sink = recordingSink();
    runToEnd(new FixedScheduler(10.3, 4.6, sink, 100, clock), sink, 4);
    expectNoWriteBeforeItsRecord(sink);
  });
});
