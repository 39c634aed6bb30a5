// The per-cell tables: latency percentiles of every measured cell, and every cell's figures in one table. Runs in Node.

import type { CellStats } from '../../analysis/cells';
import { DocBuilder, type Block } from '../document';
import { fmtMs, fmtMsFine, fmtPct, fmtTokS, fmtTokS0, fmtTokens, fmtWatts } from '../format';
import type { TrendKey } from '../../analysis/cell-accumulator';
import type { Report } from '../report-types';
import { measuredCells } from '../phrases';

/** P50 to P99 (and mean and max) of TTFT, ITL, TPOT and e2e for every measured cell. */
export function latencyPercentilesSection(report: Report): Block[] {
  const cells = measuredCells(report);
  if (cells.length === 0) return [];
  const doc = new DocBuilder();
  doc.h(2, 'Latency Percentiles');
  doc.p("Full percentile breakdowns per cell (k6's method: linear interpolation between closest ranks). Times in ms.");
  const thinking = reasoningSentence(cells);
  return [
    ...doc.blocks,
    ...percentileTable(cells, 'ttft', 'TTFT (ms)'),
    ...(thinking === null ? [] : [...new DocBuilder().p(thinking).blocks, ...percentileTable(
      cells, 'ttfc', 'Time to First Content Token (ms)',
    )]),
    ...percentileTable(cells, 'itl', 'Inter-Token Latency (ms)'),
    ...percentileTable(cells, 'tpot', 'Time per Output Token (ms)'),
    ...percentileTable(cells, 'e2e', 'End-to-End Latency (ms)'),
  ];
}

/**
 * What a reasoning model's thinking cost, when one thought: TTFT is its first thought, TTFC its answer's first
 * token; null when no request said it thought.
 */
function reasoningSentence(cells: readonly CellStats[]): string | null {
  const thought = cells.filter((cell) => (cell.reasoningTokensPerRequest ?? 0) > 0);
  if (thought.length === 0) return null;
  const perRequest = thought.map((cell) => cell.reasoningTokensPerRequest!);
  const [low, high] = [Math.min(...perRequest), Math.max(...perRequest)];
  const range = low === high ? fmtTokens(low) : `${fmtTokens(low)} to ${fmtTokens(high)}`;
  return (
    `The model thought before it answered: ${range} reasoning tokens per request (llm_reasoning_tokens) in ` +
    `${thought.length} of ${cells.length} cells. TTFT above is its first thought; the time to its answer's first ` +
    'token (TTFC) is below, the figure a user waits for and a use case may limit (metric ttfc).'
  );
}

function percentileTable(cells: readonly CellStats[], trend: TrendKey, title: string): Block[] {
  const doc = new DocBuilder();
  doc.h(3, title);
  const row = (cell: CellStats): string[] => {
    const distribution = cell.metrics[trend]!;
    const { mean, p50, p90, p95, p99, max } = distribution;
    const values = [mean, p50, p90, p95, p99, max].map((value) => value.toFixed(1));
    return [cell.id, String(cell.concurrency), String(distribution.count), ...values];
  };
  const head = ['CELL', 'USERS', 'SAMPLES', 'MEAN', 'P50', 'P90', 'P95', 'P99', 'MAX'];
  doc.table(head, cells.filter((cell) => cell.metrics[trend] !== null).map(row));
  return doc.blocks;
}

/** Every measured cell's figures, as in cells.csv. */
export function allCellsSection(report: Report): Block[] {
  const cells = measuredCells(report);
  if (cells.length === 0) return [];
  const doc = new DocBuilder();
  doc.h(2, 'All Cells');
  doc.p('Every measured cell (also in cells.csv). Times are means; throughput is output tokens / cell wall time.');
  // Goodput (requests within every limit of the cell's use case) only where requests were judged against one.
  const withGoodput = cells.some((cell) => cell.goodput !== null);
  const row = (cell: CellStats): string[] => [
    `${cell.id}${cell.clientBound ? ' ⚠ client-bound' : ''}`,
    fmtTokens(cell.contextTokens),
    fmtTokens(cell.outputTokens),
    String(cell.concurrency),
    String(cell.requests),
    ...(withGoodput ? [fmtPct(cell.goodput)] : []),
    fmtMs(cell.metrics.ttft?.mean),
    fmtMsFine(cell.metrics.itl?.mean),
    fmtTokS(cell.metrics.decodeSpeed?.mean),
    fmtTokS0(cell.metrics.prefillSpeed?.mean),
    fmtTokS(cell.throughput),
    fmtPct(cell.scalingEfficiency, 0),
    fmtMs(cell.server?.queueWaitMs),
    fmtWatts(cell.power?.meanWatts),
  ];
  const head = [
    'CELL', 'CONTEXT', 'OUTPUT', 'USERS', 'REQ', ...(withGoodput ? ['GOODPUT'] : []), 'TTFT', 'ITL', 'DECODE',
    'PREFILL', 'THROUGHPUT', 'EFFICIENCY', 'QUEUE WAIT', 'POWER',
  ];
  doc.table(head, cells.map(row));
  return doc.blocks;
}
