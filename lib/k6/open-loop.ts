// The rate script's sender: one VU sends a cell's whole arrival schedule, each request at its intended time, without
// waiting for earlier ones to end (open loop). Runs in k6 (bundled).
//
// k6's arrival-rate executors space iterations evenly and drop one when no VU is free; a Poisson or gamma schedule
// needs random gaps, and an open loop must never wait for the server. So the schedule (lib/arrivals.ts) is kept by
// timers in one VU: the agent streams every request in its own process and k6 holds only the pending calls.
// Every request's schedule lag (when it was handed to the agent minus its intended time) is pushed as it goes, and
// TTFT and e2e from the intended time, what a user arriving on the schedule saw, when it ends.

import { achievedRate, arrivalTimesMs } from '../arrivals';
import { ARRIVAL_METRICS } from '../metrics';
import type { CellArrivals } from '../plan';
import { nowMs, pause } from './clock';
import type { SentRequest } from './llm-request';
import { createMetric } from './metric-object';

const lag = createMetric(ARRIVAL_METRICS.scheduleLag);
const ttftIntended = createMetric(ARRIVAL_METRICS.ttftIntended);
const e2eIntended = createMetric(ARRIVAL_METRICS.e2eIntended);
const achieved = createMetric(ARRIVAL_METRICS.achievedRate);

/**
 * Builds request i of the schedule (its prompt prefix unique to it) and returns what sends it; the send pushes its
 * llm_* samples when the request ends. Built ahead, so the body's cost is not schedule lag.
 */
export type PrepareScheduled = (index: number) => () => Promise<SentRequest>;

/**
 * Runs one rate cell: returns once every request of its schedule has ended (or the scenario is stopped). Each
 * request's lag is pushed as it goes (the agent stamps its start with the caller's clock at the call, so the two
 * agree) and the achieved rate after the last send: a request the slot's end cuts off still counts as sent.
 */
export async function runOpenLoop(arrivals: CellArrivals, prepare: PrepareScheduled): Promise<void> {
  const schedule = arrivalTimesMs(arrivals);
  const startMs = nowMs();
  const pending: Promise<void>[] = [];
  let lagMs = 0;
  for (let i = 0; i < schedule.length; i++) {
    const intendedMs = startMs + schedule[i]!;
    const send = prepare(i);
    const waitMs = intendedMs - nowMs();
    if (waitMs > 0) await pause(waitMs);
    lagMs = nowMs() - intendedMs;
    lag.add(lagMs);
    pending.push(send().then((sent) => {
      const r = sent.record;
      if (r.outcome !== 'completed') return;
      // From the agent's start stamp, which the record's TTFT and e2e count from (tenths of a ms after lagMs's).
      ttftIntended.add(r.ttftMs + r.startMs - intendedMs);
      e2eIntended.add(r.e2eMs + r.startMs - intendedMs);
    }));
  }
  achieved.add(achievedRate(schedule.length, arrivals.durationSeconds * 1000, lagMs));
  await Promise.all(pending);
}
