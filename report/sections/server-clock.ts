// The server's own clock beside the suite's, per cell: TTFT, ITL and request latency from the server's histograms,
// its queue and prefill time, and how full its KV cache got. Runs in Node.

import type { CellStats } from '../../analysis/cells';
import { DocBuilder, type Block } from '../document';
import { fmtMs, fmtMsFine, fmtPct } from '../format';
import type { Report } from '../report-types';
import { maxBy } from '../../analysis/stats';
import { measuredCells, where } from '../phrases';
import { clockFaultsOf } from '../../analysis/clock-faults';
import type { LeftOut } from '../../analysis/server-metrics';

/** "4.4s / 4.1s": the suite's figure, then the server's; "n/a" where either is missing; a fault marked. */
function pair(
  suite: number | null | undefined, server: number | null | undefined, fmt: (v: number | null) => string,
  fault = false,
) {
  if (server === null || server === undefined) return fmt(suite ?? null);
  return `${fmt(suite ?? null)} / ${fmt(server)}${fault ? ' **FAULT**' : ''}`;
}

const hasServerClock = (cell: CellStats): boolean =>
  cell.server !== null && [cell.server.serverTtftMs, cell.server.serverItlMs, cell.server.serverE2eMs,
    cell.server.maxKvCacheUsage].some((v) => v !== null);

/**
 * Per cell, the suite's means beside the server's (vLLM, SGLang: their TTFT, inter-token and e2e histograms over
 * exactly the cell's measured requests, or none: analysis/server-metrics.ts). The suite's TTFT and e2e cannot be below
 * the server's: it starts its clock before the request reaches the server and stops it after the last token leaves;
 * a server mean above the suite's is marked a fault (analysis/clock-faults.ts).
 */
export function serverClockSection(report: Report): Block[] {
  const cells = measuredCells(report).filter(hasServerClock);
  if (cells.length === 0) return [];
  const doc = new DocBuilder();
  doc.h(2, "The Server's Own Clock");
  doc.p(
    "Each cell's means as the suite measured them / as the server's own histograms timed the same requests: " +
      "the server's figures are read between two scrapes of its metrics that bracket the cell's measured requests " +
      "and nothing else (no warm-up, no request across a step change, no other cell's), where the server counted " +
      "exactly as many as the suite measured; where no two scrapes do, the server's mean is left out (n/a) rather " +
      "than taken over other requests. The suite's TTFT and e2e include the way in (connect, HTTP, template, " +
      "tokenizing before the server starts its clock) and the last chunk's way out, so they are never below the " +
      "server's; a server mean above the suite's is marked **FAULT**: a measurement fault. KV CACHE is the highest " +
      'usage the monitor sampled.',
  );
  const row = (cell: CellStats): string[] => {
    const s = cell.server!;
    const faults = new Set(clockFaultsOf(cell).map((f) => f.metric));
    return [
      cell.id, String(cell.concurrency), String(cell.succeeded),
      pair(cell.metrics.ttft?.mean, s.serverTtftMs, fmtMs, faults.has('TTFT')),
      pair(cell.metrics.itl?.mean, s.serverItlMs, fmtMsFine),
      pair(cell.metrics.e2e?.mean, s.serverE2eMs, fmtMs, faults.has('e2e')),
      fmtMs(s.queueWaitMs), fmtMs(s.prefillTimeMs), fmtPct(s.maxKvCacheUsage),
    ];
  };
  doc.table(
    ['CELL', 'USERS', 'REQ', 'TTFT SUITE / SERVER', 'ITL SUITE / SERVER', 'E2E SUITE / SERVER', 'QUEUE', 'PREFILL',
      'KV CACHE'],
    cells.map(row),
  );
  leftOutNote(doc, cells);
  const fullest = maxBy(cells.filter((c) => c.server!.maxKvCacheUsage !== null), (c) => c.server!.maxKvCacheUsage);
  if (fullest) {
    doc.p(`The KV cache was at most **${fmtPct(fullest.server!.maxKvCacheUsage)}** full (${where(fullest)}).`);
  }
  return doc.blocks;
}

/** Why a server histogram's mean is left out, as a clause of the note below. */
function leftOutWords(l: LeftOut): string {
  if (l.kind === 'shared') {
    return 'other requests (warm-ups, requests across a step change or another cell\'s) ran between every pair of ' +
      'scrapes around its measured requests';
  }
  return `the server counted ${l.counted} ${l.of === 'requests' ? 'requests' : 'token gaps'} between the scrapes ` +
    `around its measured requests, the client measured ${l.observations}`;
}

/** Why the server's means of some cells are left out, cells of one reason together. */
function leftOutNote(doc: DocBuilder, cells: readonly CellStats[]): void {
  const byReason = new Map<string, string[]>();
  for (const c of cells) {
    const reason = c.server!.leftOut && leftOutWords(c.server!.leftOut);
    if (reason !== null) byReason.set(reason, [...(byReason.get(reason) ?? []), c.id]);
  }
  if (byReason.size === 0) return;
  doc.p(
    "The server's means left out, rather than read over other requests than the suite's (a capacity step of " +
      'several closed-loop users always has requests running across its first and last measured ones):',
  );
  doc.list([...byReason].map(([reason, ids]) => `${ids.join(', ')}: ${reason}.`));
}
