// The server's own clock beside the suite's, per cell: TTFT, ITL and request latency from the server's histograms,
// its queue and prefill time, and how full its KV cache got. Runs in Node.

import type { CellStats } from '../cells';
import { DocBuilder, type Block } from '../document';
import { fmtMs, fmtMsFine, fmtPct } from '../format';
import type { Report } from '../report-types';
import { maxBy } from '../stats';
import { measuredCells, where } from './phrases';

/** "4.4s / 4.1s": the suite's figure, then the server's; "n/a" where either is missing. */
function pair(suite: number | null | undefined, server: number | null | undefined, fmt: (v: number | null) => string) {
  return server === null || server === undefined ? fmt(suite ?? null) : `${fmt(suite ?? null)} / ${fmt(server)}`;
}

const hasServerClock = (cell: CellStats): boolean =>
  cell.server !== null && [cell.server.serverTtftMs, cell.server.serverItlMs, cell.server.serverE2eMs,
    cell.server.maxKvCacheUsage].some((v) => v !== null);

/**
 * Per cell, the suite's means beside the server's (vLLM, SGLang: their TTFT, inter-token and e2e histograms over the
 * cell's window). The suite's TTFT and e2e cannot be below the server's: it starts its clock before the request
 * reaches the server and stops it after the last token leaves.
 */
export function serverClockSection(report: Report): Block[] {
  const cells = measuredCells(report).filter(hasServerClock);
  if (cells.length === 0) return [];
  const doc = new DocBuilder();
  doc.h(2, "The Server's Own Clock");
  doc.p(
    "Each cell's means as the suite measured them / as the server's own histograms timed the same cell's requests " +
      '(the requests the server observed between scrapes inside the cell, or all of them when the scrapes around it ' +
      'counted exactly its requests). The suite\'s TTFT and e2e include the way in (connect, HTTP, template, ' +
      'tokenizing before the server starts its clock) and the last chunk\'s way out, so they are never below the ' +
      "server's. KV CACHE is the highest usage the monitor sampled.",
  );
  const row = (cell: CellStats): string[] => {
    const s = cell.server!;
    return [
      cell.id, String(cell.concurrency), String(cell.succeeded),
      pair(cell.metrics.ttft?.mean, s.serverTtftMs, fmtMs),
      pair(cell.metrics.itl?.mean, s.serverItlMs, fmtMsFine),
      pair(cell.metrics.e2e?.mean, s.serverE2eMs, fmtMs),
      fmtMs(s.queueWaitMs), fmtMs(s.prefillTimeMs), fmtPct(s.maxKvCacheUsage),
    ];
  };
  doc.table(
    ['CELL', 'USERS', 'REQ', 'TTFT SUITE / SERVER', 'ITL SUITE / SERVER', 'E2E SUITE / SERVER', 'QUEUE', 'PREFILL',
      'KV CACHE'],
    cells.map(row),
  );
  const fullest = maxBy(cells.filter((c) => c.server!.maxKvCacheUsage !== null), (c) => c.server!.maxKvCacheUsage);
  if (fullest) {
    doc.p(`The KV cache was at most **${fmtPct(fullest.server!.maxKvCacheUsage)}** full (${where(fullest)}).`);
  }
  return doc.blocks;
}
