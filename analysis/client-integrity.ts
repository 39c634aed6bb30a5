// How far a cell's own client can be trusted: what the load generator did and delivered, per cell, and the verdict
// that a cell the client limited is not a measurement of the server. Pure; runs in Node.
//
// Each figure is the client's own record of itself: the measuring agent's read lag, CPU and tokens read together
// (analysis/client-bound.ts judges them), the requests that failed or were cut, and the load delivered against the load
// planned: for a closed-loop cell the mean requests in flight against its users, for a rate cell the achieved rate
// against the offered one and its send lag (analysis/open-loop.ts judges those).

import type { CellAccumulator } from './cell-accumulator';
import { clientBoundCause, cpuShareBetween, STALL_LIMIT_MS, type ClientBoundCause } from './client-bound';
import type { OpenLoopStats } from './open-loop';
import { summarize, type Distribution } from './stats';

export interface ClientIntegrity {
  /** The agent's longest read lag per request (llm_client_read_lag), ms: median, p99 and max over requests. */
  readonly readLag: Pick<Distribution, 'p50' | 'p99' | 'max'> | null;
  /**
   * The machine's stalls under the agent (llm_client_stall): the longest within any request, ms, and the requests that
   * ran across one of STALL_LIMIT_MS or more; null when the agent did not say.
   */
  readonly stall: { readonly maxMs: number; readonly requestsOver: number } | null;
  /** Share of its cores the measuring agent used over the cell (llm_client_cpu_seconds); k6's CPU is not measured. */
  readonly agentCpuShare: number | null;
  /** Tokens the agent read together with the chunk before them; null when the agent did not count them. */
  readonly tokensReadTogether: number | null;
  /** Tokens the server sent several to a chunk (its own chunking); null when the agent did not count them. */
  readonly tokensChunked: number | null;
  /** ITL samples of the cell: the denominator of both shares. */
  readonly itlSamples: number;
  /** Requests that failed, and planned requests cut unfinished. */
  readonly failed: number;
  readonly cut: number;
  /**
   * Closed loop: users planned, and the mean requests in flight: for a bench-driven step, every request over the time
   * its measured ones ran (orchestrator/step-in-flight.ts); else the measured requests' e2e over the wall time.
   */
  readonly usersPlanned: number | null;
  readonly meanInFlight: number | null;
  /**
   * What meanInFlight counts: 'every request' the client held over the measured requests' time (a bench-driven step),
   * or the 'measured requests' alone over the wall time (a k6 time slot, a driven run from before 2026-12-07); null
   * without the figure.
   */
  readonly inFlightCounted: 'every request' | 'measured requests' | null;
  /** Open loop: send lag p99 (ms), the offered and the achieved rate (requests/s); null for a closed-loop cell. */
  readonly sendLagP99Ms: number | null;
  readonly offeredRate: number | null;
  readonly achievedRate: number | null;
  /** Why the client limited the cell (analysis/client-bound.ts), null when nothing says it did: then it is valid. */
  readonly clientBound: ClientBoundCause | null;
}

/** What a cell's statistics hold that its client integrity reads. */
export interface IntegrityInputs {
  readonly concurrency: number;
  readonly failed: number;
  readonly cut: number;
  readonly wallSeconds: number | null;
  readonly itl: Distribution | null;
  readonly openLoop: OpenLoopStats | null;
  /** A step the search measured more than once: its wall time is its busy time, so no mean in flight is given. */
  readonly pooled: boolean;
  /** A bench-driven step: the mean in flight the bench counted from each request's start and end; null otherwise. */
  readonly drivenInFlight: number | null;
}

/** The cell's client integrity from its accumulated samples; null when the cell never ran. */
export function clientIntegrity(acc: CellAccumulator | undefined, cell: IntegrityInputs): ClientIntegrity | null {
  if (acc === undefined) return null;
  const lag = summarize(acc.readLag.sorted());
  const counted = acc.reading.requests > 0;
  const itlSamples = cell.itl?.count ?? 0;
  const agentCpuShare = acc.cpuFirst && acc.cpuLast ? cpuShareBetween(acc.cpuFirst, acc.cpuLast) : null;
  const tokensReadTogether = counted ? acc.reading.readTogether : null;
  const open = cell.openLoop;
  const stalls = stallsOf(acc);
  return {
    readLag: lag && { p50: lag.p50, p99: lag.p99, max: lag.max },
    stall: stalls.requests > 0 ? { maxMs: stalls.longestMs, requestsOver: stalls.over } : null,
    agentCpuShare,
    tokensReadTogether,
    tokensChunked: counted ? acc.reading.chunked : null,
    itlSamples,
    failed: cell.failed,
    cut: cell.cut,
    usersPlanned: open ? null : cell.concurrency,
    ...inFlightOf(acc, cell),
    sendLagP99Ms: open?.lag?.p99 ?? null,
    offeredRate: open?.offeredRate ?? null,
    achievedRate: open?.achievedRate ?? null,
    clientBound: clientBoundCause({
      readLagP99Ms: lag ? lag.p99 : null, cpuShare: agentCpuShare, itlMedianMs: cell.itl ? cell.itl.p50 : null,
      tokensReadTogether, itlSamples, stalls,
    }),
  };
}

/** The cell's requests that reported their stalls, those across one of STALL_LIMIT_MS or more, and the longest. */
function stallsOf(acc: CellAccumulator): { requests: number; over: number; longestMs: number } {
  let over = 0;
  let longestMs = 0;
  for (const ms of acc.stall.values()) {
    if (ms >= STALL_LIMIT_MS) over++;
    if (ms > longestMs) longestMs = ms;
  }
  return { requests: acc.stall.length, over, longestMs };
}

/** A closed-loop cell's mean in flight, and what it counts (ClientIntegrity.inFlightCounted). */
function inFlightOf(
  acc: CellAccumulator, cell: IntegrityInputs,
): Pick<ClientIntegrity, 'meanInFlight' | 'inFlightCounted'> {
  if (cell.openLoop) return { meanInFlight: null, inFlightCounted: null };
  if (cell.drivenInFlight !== null) return { meanInFlight: cell.drivenInFlight, inFlightCounted: 'every request' };
  const measured = cell.pooled ? null : meanInFlight(acc, cell.wallSeconds);
  return { meanInFlight: measured, inFlightCounted: measured === null ? null : 'measured requests' };
}

/** Little's law over the cell: the measured requests' time in service / its wall time; null without either. */
function meanInFlight(acc: CellAccumulator, wallSeconds: number | null): number | null {
  if (wallSeconds === null || wallSeconds <= 0) return null;
  // Summed in sorted order, so that a split run's merged cell gives the same figure to the last bit.
  const e2e = acc.trends.e2e.sorted();
  let sum = 0;
  for (let i = 0; i < e2e.length; i++) sum += e2e[i]!;
  return e2e.length > 0 ? sum / 1000 / wallSeconds : null;
}
