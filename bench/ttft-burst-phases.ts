// Where a burst's TTFT goes: one request's client times (bench/k6/burst-phases.js) set beside the simulator's record of
// the same request, phase by phase on one wall clock. Pure; runs in Node (bench/ttft-burst.ts).

import type { GroundTruthRecord } from '../sim/ground-truth';

/** What the k6 script logged for one request: run-clock ms, and the wall-clock time of the run clock's zero. */
export interface ClientTimes {
  readonly id: string | null;
  readonly zeroEpochMs: number;
  readonly burstAtMs: number;
  readonly startMs: number;
  readonly sentMs: number;
  readonly handoffMs: number | null;
  readonly firstTokenMs: number | null;
}

/** One request's TTFT from the burst instant, cut where its times allow, ms. The phases add up to fromBurst. */
export interface Phases {
  /** The burst instant to k6's call to the agent: VUs waking and building the call. */
  readonly dispatch: number;
  /** k6's call to the request's start in the agent: the loopback and the agent reading the params. */
  readonly handoff: number;
  /** The agent's start to the request written whole: connect and write. */
  readonly connectWrite: number;
  /** The request written to the simulator reading its head: the simulator's accept queue and event loop. */
  readonly serverQueue: number;
  /** The simulator reading the head to writing the first token: the TTFT the server's truth states. */
  readonly serverTtft: number;
  /** The first token written to its kernel receive time in the agent. */
  readonly delivery: number;
  /** The burst instant to the first token's receive time. */
  readonly fromBurst: number;
  /** The client's TTFT: the agent's start to the first token's receive time. */
  readonly clientTtft: number;
}

export const PHASE_NAMES = ['dispatch', 'handoff', 'connectWrite', 'serverQueue', 'serverTtft', 'delivery'] as const;

/** The phases of one request, or null when it has no first token, no hand-off, or no record in the truth. */
export function phasesOf(c: ClientTimes, truth: ReadonlyMap<string, GroundTruthRecord>): Phases | null {
  const t = c.id === null ? undefined : truth.get(c.id);
  if (!t || c.firstTokenMs === null || c.handoffMs === null || t.tokenEpochMs.length === 0) return null;
  const epoch = (runMs: number): number => c.zeroEpochMs + runMs;
  const calledMs = c.startMs - c.handoffMs;
  const firstWrite = t.tokenEpochMs[0]!;
  return {
    dispatch: calledMs - c.burstAtMs,
    handoff: c.handoffMs,
    connectWrite: c.sentMs - c.startMs,
    serverQueue: t.arrivalEpochMs - epoch(c.sentMs),
    serverTtft: firstWrite - t.arrivalEpochMs,
    delivery: epoch(c.firstTokenMs) - firstWrite,
    fromBurst: c.firstTokenMs - c.burstAtMs,
    clientTtft: c.firstTokenMs - c.startMs,
  };
}

/** Reads the k6 script's JSON lines (k6 --log-format raw prints each console.log line as it is). */
export function readClientLines(text: string): ClientTimes[] {
  const out: ClientTimes[] = [];
  for (const line of text.split('\n')) {
    const s = line.trim();
    if (!s.startsWith('{')) continue;
    const v = JSON.parse(s) as ClientTimes;
    if (typeof v.zeroEpochMs === 'number' && typeof v.startMs === 'number') out.push(v);
  }
  return out;
}
