// The rate and trace scripts' sender: one VU sends a cell's whole schedule, each request at its intended time, without
// waiting for earlier ones to end (open loop). Runs in k6 (bundled).
//
// k6's arrival-rate executors space iterations evenly and drop one when no VU is free; a Poisson or gamma schedule
// needs random gaps, a trace its recorded ones, and an open loop must never wait for the server. So the schedule
// (lib/arrivals.ts, lib/trace-replay.ts) is kept by timers in one VU: the agent streams every request in its own
// process and k6 holds only the pending calls. Every request's schedule lag (when the agent started it, the hand-off
// from k6 to the agent included, minus its intended time) and its TTFT and e2e from the intended time, what a user
// arriving on the schedule saw, are pushed when it ends.

import { achievedRate } from '../arrivals';
import { ARRIVAL_METRICS } from '../metrics';
import { calibrateCallClock } from './call-clock';
import { nowMs, pause } from './clock';
import type { SentRequest } from './llm-request';
import { createMetric } from './metric-object';

const lag = createMetric(ARRIVAL_METRICS.scheduleLag);
const ttftIntended = createMetric(ARRIVAL_METRICS.ttftIntended);
const e2eIntended = createMetric(ARRIVAL_METRICS.e2eIntended);
const achieved = createMetric(ARRIVAL_METRICS.achievedRate);

/** When a cell's requests are meant to go. */
export interface OpenLoopSchedule {
  /** Intended send times, ms from the cell's start, in order. */
  readonly atMs: readonly number[];
  /** The schedule's nominal length, ms: the achieved rate counts the requests over it. */
  readonly durationMs: number;
  /**
   * The request a request follows (a conversation's earlier turn), whose answer its user waits for, or -1. A turn
   * whose earlier turn has not ended at its time is held until it has, and then sent: its intended time is that end,
   * and its wait is the server's doing, not the sender's, so it pushes no schedule lag.
   */
  readonly after?: (index: number) => number;
}

/**
 * Builds request i of the schedule and returns what sends it; the send pushes its llm_* samples when the request
 * ends. Built ahead, so the body's cost is not schedule lag.
 */
export type PrepareScheduled = (index: number) => () => Promise<SentRequest>;

/**
 * Requests built ahead of their time, at most. A long prompt takes the VU milliseconds to build, and a Poisson gap is
 * as often shorter than that: built only one ahead, the next request would wait for its own body. Bodies are built
 * while the VU would otherwise sleep, and only built on time when none is ready.
 */
const BUILT_AHEAD = 8;
/** Time kept free before a send: building stops this long before the next request is due. */
const BUILD_MARGIN_MS = 3;

/**
 * Runs one open-loop cell: returns once every request of its schedule has ended (or the scenario is stopped). Each
 * request's lag is pushed when it ends, from the record's start: the VU's clock is placed on the wall clock first
 * (calibrateCallClock), so the agent starts the record when the request really started, not when k6 made the call.
 * The achieved rate is pushed after the last send: a request the slot's end cuts off still counts as sent.
 */
export async function runOpenLoop(schedule: OpenLoopSchedule, prepare: PrepareScheduled): Promise<void> {
  calibrateCallClock();
  const startMs = nowMs();
  const ended: Promise<void>[] = [];
  const settled: boolean[] = [];
  let lagMs = 0;
  const fire = (i: number, send: () => Promise<SentRequest>, intendedMs: number, pushLag: boolean): Promise<void> =>
    send().then((sent) => {
      const r = sent.record;
      // The record starts when the agent started the request (the hand-off to it included): its lateness.
      if (pushLag) lag.add(r.startMs - intendedMs);
      if (r.outcome !== 'completed') return;
      ttftIntended.add(r.ttftMs + r.startMs - intendedMs);
      e2eIntended.add(r.e2eMs + r.startMs - intendedMs);
    }).finally(() => {
      settled[i] = true;
    });
  const built: (() => Promise<SentRequest>)[] = [];
  let next = 0;
  for (let i = 0; i < schedule.atMs.length; i++) {
    const intendedMs = startMs + schedule.atMs[i]!;
    while (next < schedule.atMs.length && built.length < BUILT_AHEAD &&
      (built.length === 0 || nowMs() < intendedMs - BUILD_MARGIN_MS)) built.push(prepare(next++));
    const send = built.shift()!;
    const waitMs = intendedMs - nowMs();
    if (waitMs > 0) await pause(waitMs);
    const before = schedule.after ? schedule.after(i) : -1;
    if (before >= 0 && settled[before] !== true) {
      ended.push(ended[before]!.then(() => fire(i, send, nowMs(), false)));
      continue;
    }
    lagMs = nowMs() - intendedMs;
    ended.push(fire(i, send, intendedMs, true));
  }
  achieved.add(achievedRate(schedule.atMs.length, schedule.durationMs, lagMs));
  await Promise.all(ended);
}
