// The report's warning for a server clock above the client's (analysis/clock-faults.ts judges it). Runs in Node (pure).

import type { CellStats } from '../analysis/cells';
import { clockFaultsOf, type ClockFault } from '../analysis/clock-faults';
import { fmtMs, plural } from './format';
import type { ReportWarning } from './warnings';

/** One sentence per fault. */
export function describeClockFault(f: ClockFault): string {
  return `Cell ${f.cellId}: the server's mean ${f.metric} (${fmtMs(f.serverMs)}) is above the client's ` +
    `(${fmtMs(f.suiteMs)}) over the same ${f.requests} requests, beyond the ${f.toleranceMs.toFixed(3)} ms the ` +
    'readings allow: a measurement fault.';
}

/** The report's warning: every cell whose server clock read above the client's, one sentence each. */
export function clockFaultWarning(cells: readonly CellStats[]): ReportWarning | null {
  const faults = cells.flatMap(clockFaultsOf);
  if (faults.length === 0) return null;
  const cellCount = new Set(faults.map((f) => f.cellId)).size;
  return {
    kind: 'clock-fault',
    summary: `The server's own TTFT or e2e read above the client's for the same requests in ` +
      `${plural(cellCount, 'cell')}: a measurement fault, so those cells' timings are not to be trusted as they stand.`,
    details: faults.map(describeClockFault),
  };
}
