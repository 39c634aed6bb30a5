// The rate and trace scripts' sender: a VU sends a cell's schedule (or its share of it), each request at its intended
// time, without waiting for earlier ones to end (open loop). Runs in k6 (bundled).
//
// A rate cell may have several senders (plan rate.senders, one per runner of a split run): sender s of n sends requests
// s, s + n, s + 2n ... of the one seeded schedule, each at its own intended time from the cell's start, so the senders'
// requests together are the schedule exactly, and each request's lag is from its own intended time.
//
// k6's arrival-rate executors space iterations evenly and drop one when no VU is free; a Poisson or gamma schedule
// needs random gaps, a trace its recorded ones, and an open loop must never wait for the server. So the schedule
// (lib/arrivals.ts, lib/trace-replay.ts) is kept by timers in one VU: the agent streams every request in its own
// process and k6 holds only the pending calls. Every request's schedule lag (when the agent started it, the hand-off
// from k6 to the agent included, minus its intended time) and its TTFT and e2e from the intended time, what a user
// arriving on the schedule saw, are pushed when it ends.

import { achievedRate, senderShare } from '../arrivals';
import { ARRIVAL_METRICS, SAMPLE_TAGS } from '../metrics';
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
  /** This VU's share: requests i with i % of === index; absent: the whole schedule. */
  readonly share?: { readonly index: number; readonly of: number };
  /** Requests meant to go before this many ms from the start are warm-up (tag phase): 0 or absent, none. */
  readonly warmupMs?: number;
}

/** The phase tag of request i: warm-up or measured when the schedule has a warm-up; undefined when it has none. */
export type SchedulePhase = 'warmup' | 'measured' | undefined;

/**
 * Builds request i of the schedule and returns what sends it; the send pushes its llm_* samples (tagged `phase`) when
 * the request ends. Built ahead, so the body's cost is not schedule lag.
 */
export type PrepareScheduled = (index: number, phase: SchedulePhase) => () => Promise<SentRequest>;

/** Request i's phase: warm-up when meant to go before the warm-up ends. */
function phaseOf(schedule: OpenLoopSchedule, i: number): SchedulePhase {
  const warmupMs = schedule.warmupMs ?? 0;
  if (warmupMs <= 0) return undefined;
  return schedule.atMs[i]! < warmupMs ? 'warmup' : 'measured';
}

/**
 * Requests built ahead of their time, at most. A long prompt takes the VU milliseconds to build, and a Poisson gap is
 * as often shorter than that: built only one ahead, the next request would wait for its own body. Bodies are built
 * while the VU would otherwise sleep, and only built on time when none is ready.
 */
const BUILT_AHEAD = 8;
/** Time kept free before a send: building stops this long before the next request is due. */
const BUILD_MARGIN_MS = 3;

/**
 * Runs one open-loop cell (this VU's share of it): returns once every request it sends has ended (or the scenario is
 * stopped). Each request's lag is pushed when it ends, from the record's start: the VU's clock is placed on the wall
 * clock first (calibrateCallClock), so the agent starts the record when the request really started, not when k6 made
 * the call. The achieved rate of this sender's share is pushed after its last send (a request the slot's end cuts off
 * still counts as sent); the report adds the senders' rates up.
 */
export async function runOpenLoop(schedule: OpenLoopSchedule, prepare: PrepareScheduled): Promise<void> {
  calibrateCallClock();
  const startMs = nowMs();
  const own = senderShare(schedule.atMs.length, schedule.share?.index ?? 0, schedule.share?.of ?? 1);
  const ended: Promise<void>[] = [];
  const settled: boolean[] = [];
  let lagMs = 0;
  const fire = (
    i: number, send: () => Promise<SentRequest>, intendedMs: number, pushLag: boolean,
  ): Promise<void> => {
    const phase = phaseOf(schedule, i);
    const tags = phase ? { [SAMPLE_TAGS.phase]: phase } : undefined;
    return send().then((sent) => {
      const r = sent.record;
      // The record starts when the agent started the request (the hand-off to it included): its lateness.
      if (pushLag) lag.add(r.startMs - intendedMs, tags);
      if (r.outcome !== 'completed') return;
      ttftIntended.add(r.ttftMs + r.startMs - intendedMs, tags);
      e2eIntended.add(r.e2eMs + r.startMs - intendedMs, tags);
    }).finally(() => {
      settled[i] = true;
    });
  };
  const built: (() => Promise<SentRequest>)[] = [];
  let next = 0;
  for (let k = 0; k < own.length; k++) {
    const i = own[k]!;
    const intendedMs = startMs + schedule.atMs[i]!;
    while (next < own.length && built.length < BUILT_AHEAD &&
      (built.length === 0 || nowMs() < intendedMs - BUILD_MARGIN_MS)) {
      const j = own[next++]!;
      built.push(prepare(j, phaseOf(schedule, j)));
    }
    const send = built.shift()!;
    const waitMs = intendedMs - nowMs();
    if (waitMs > 0) await pause(waitMs);
    const before = schedule.after ? schedule.after(i) : -1;
    if (before >= 0 && settled[before] !== true) {
      ended[i] = ended[before]!.then(() => fire(i, send, nowMs(), false));
      continue;
    }
    lagMs = nowMs() - intendedMs;
    ended[i] = fire(i, send, intendedMs, true);
  }
  achieved.add(achievedRate(own.length, schedule.durationMs, lagMs));
  await Promise.all(ended.filter((p) => p !== undefined));
}
