// A server's clock above the client's for the same requests: a measurement fault, judged here, worded by the report.
// Runs in Node (pure).
//
// The server starts its clock once a request has reached it and stops it before the last token leaves; the client
// starts before it sends and stops when the last byte arrives. Over the same requests (analysis/server-metrics.ts
// reads the histograms over exactly the cell's measured requests or not at all) the server's mean TTFT and e2e can
// therefore not be above the client's by more than the readings allow: the histogram sums as k6's CSV keeps them (6
// decimals of a second: 1 us for the difference of two), and the two clocks' rates (NTP slews a clock by at most
// 500 ppm). Beyond that, one of the two clocks is wrong, or the two figures are not over the same requests: neither
// is to be trusted until that is explained, so the report says so rather than show the pair as if they agreed
// (report/clock-fault-warning.ts).

import type { CellStats } from './cells';

/** The resolution of a difference of two histogram sums in k6's CSV, seconds. */
export const SUM_RESOLUTION_S = 1e-6;

/** How far two clocks' rates may differ: NTP's largest slew, 500 ppm. */
export const CLOCK_RATE_TOLERANCE = 5e-4;

export interface ClockFault {
  readonly cellId: string;
  readonly metric: 'TTFT' | 'e2e';
  readonly suiteMs: number;
  readonly serverMs: number;
  readonly requests: number;
  /** How far above the suite's the server's mean may read without a fault, ms. */
  readonly toleranceMs: number;
}

/** How far above a suite mean of `suiteMs` over `requests` requests a server mean may read, ms. */
export function clockToleranceMs(suiteMs: number, requests: number): number {
  return (SUM_RESOLUTION_S * 1000) / Math.max(1, requests) + CLOCK_RATE_TOLERANCE * suiteMs;
}

/** The cell's server means of TTFT and e2e that are above the suite's for the same requests beyond the tolerance. */
export function clockFaultsOf(cell: CellStats): ClockFault[] {
  const s = cell.server;
  if (s === null || s.scrapes === null) return [];
  const pairs = [
    ['TTFT', cell.metrics.ttft?.mean, s.serverTtftMs],
    ['e2e', cell.metrics.e2e?.mean, s.serverE2eMs],
  ] as const;
  const faults: ClockFault[] = [];
  for (const [metric, suiteMs, serverMs] of pairs) {
    if (suiteMs == null || serverMs === null) continue;
    const toleranceMs = clockToleranceMs(suiteMs, cell.succeeded);
    if (serverMs > suiteMs + toleranceMs) {
      faults.push({ cellId: cell.id, metric, suiteMs, serverMs, requests: cell.succeeded, toleranceMs });
    }
  }
  return faults;
}
