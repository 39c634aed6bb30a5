// The rate script's sender: one VU sends a cell's whole arrival schedule, each request at its intended time, without
// waiting for earlier ones to end (open loop). Runs in k6 (bundled).
//
// k6's arrival-rate executors space iterations evenly and drop one when no VU is free; a Poisson or gamma schedule
// needs random gaps, and an open loop must never wait for the server. So the schedule (lib/arrivals.ts) is kept by
// timers in one VU: the agent streams every request in its own process and k6 holds only the pending calls.
// Every request's schedule lag (its actual start, as the agent stamped it, minus its intended time) is pushed beside
// its samples, with TTFT and e2e from the intended time: what a user arriving on the schedule saw.

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

/** Runs one rate cell: returns once every request of its schedule has ended (or the scenario is stopped). */
export async function runOpenLoop(arrivals: CellArrivals, prepare: PrepareScheduled): Promise<void> {
  const schedule = arrivalTimesMs(arrivals);
  const startMs = nowMs();
  const pending: Promise<void>[] = [];
  let lastLagMs = 0;
  for (let i = 0; i < schedule.length; i++) {
    const intendedMs = startMs + schedule[i]!;
    const send = prepare(i);
    const waitMs = intendedMs - nowMs();
    if (waitMs > 0) await pause(waitMs);
    const last = i === schedule.length - 1;
    pending.push(send().then((sent) => {
      const r = sent.record;
      const lagMs = r.startMs - intendedMs;
      if (last) lastLagMs = lagMs;
      lag.add(lagMs);
      if (r.outcome !== 'completed') return;
      ttftIntended.add(r.ttftMs + lagMs);
      e2eIntended.add(r.e2eMs + lagMs);
    }));
  }
  await Promise.all(pending);
  achieved.add(achievedRate(schedule.length, arrivals.durationSeconds * 1000, lastLagMs));
}
