// The phrases the report sections and its verdicts (judgement.ts) share: where a cell sits, a metric's name and value,
// a statistic's name. Runs in Node.
//
// Only description lives here; the words that judge a figure (within, breaks, slow) are in
// report/judgement.ts.

import type { CellStats } from '../analysis/cells';
import type { TrendKey } from '../analysis/cell-accumulator';
import type { PartSummary, Report } from './report-types';
import { statistic } from '../analysis/stats';
import { fmtMsFine, fmtPct, fmtSec, fmtTokS0, fmtTokens, plural, fmtInt } from './format';
import { clientBoundWords } from './capacity-words';

export type MaybeNumber = number | null;

/** A paragraph from its sentences; a sentence that does not apply is given as null and left out. */
export function sentences(...parts: (string | null)[]): string {
  return parts.filter((sentence): sentence is string => sentence !== null).join(' ');
}

/** Where a cell sits in the grid: "32K context, 4 concurrent requests". */
export function where(cell: CellStats): string {
  return `${fmtTokens(cell.contextTokens)} context, ${plural(cell.concurrency, 'concurrent request')}`;
}

/** The mean of a Trend of a cell, for picking the best or worst cell. */
export const meanOf = (trend: TrendKey) => (cell: CellStats): MaybeNumber => cell.metrics[trend]?.mean ?? null;

/** How a part's prompts began: unique per request, one shared prefix, or prefix groups (plan prompts.prefixGroups). */
export function promptKind(part: PartSummary): 'unique' | 'shared-prefix' | 'groups' {
  return part.prefixGroups !== null ? 'groups' : part.promptMode;
}

/** A part's prefix groups as prose: "8 groups sharing a 2K-token prefix". */
export function prefixGroupsPhrase(groups: NonNullable<PartSummary['prefixGroups']>): string {
  return `${plural(groups.groups, 'group')} sharing a ${fmtTokens(groups.prefixTokens)}-token prefix`;
}

/** Cells that received at least one request. */
export function measuredCells(report: Report): CellStats[] {
  return report.cells.filter((cell) => cell.requests > 0);
}

/** A k6 statistic as prose: "avg" -> "average", "p(95)" -> "P95". */
export function statName(stat: string): string {
  switch (stat) {
    case 'avg':
      return 'average';
    case 'med':
      return 'median';
    default:
      return stat.replace('p(', 'P').replace(')', '');
  }
}

/** A capacity-table metric of a cell: a Trend at the limit statistic, or the success rate, or the system throughput. */
export function metricValue(cell: CellStats, metric: string, stat: string): MaybeNumber {
  if (metric === 'successRate') return cell.successRate;
  if (metric === 'goodput') return cell.goodput;
  if (metric === 'throughput') return cell.throughput;
  return statistic(cell.metrics[metric as TrendKey], stat);
}

export function metricLabel(metric: string): string {
  switch (metric) {
    case 'ttft':
      return 'TTFT';
    case 'ttfc':
      return 'Time to first content token';
    case 'e2e':
      return 'End-to-end latency';
    case 'decodeSpeed':
      return 'Generation speed';
    case 'itl':
      return 'Inter-token latency';
    case 'tpot':
      return 'Time per output token';
    case 'successRate':
      return 'Success rate';
    case 'goodput':
      return 'Goodput (requests within every limit)';
    default:
      return metric;
  }
}

/** The label inside a sentence: lower case, except acronyms (TTFT). */
export function labelInSentence(metric: string): string {
  const label = metricLabel(metric);
  return /^[A-Z]{2,}/.test(label) ? label : label.toLowerCase();
}

/** A metric's value in its own unit: seconds for TTFT, ms for e2e, tok/s for speeds, percent for success. */
export function fmtMetric(metric: string, value: MaybeNumber): string {
  if (value === null) return 'n/a';
  switch (metric) {
    case 'ttft':
      return fmtSec(value);
    case 'e2e':
      return `${Math.round(value)}ms`;
    case 'decodeSpeed':
    case 'throughput':
      return fmtTokS0(value);
    case 'successRate':
    case 'goodput':
      return fmtPct(value);
    default:
      return fmtMsFine(value);
  }
}

/** The note under a section whose cells the load generator limited; null when none did. */
export function clientBoundNote(cells: readonly CellStats[]): string | null {
  const bound = cells.filter((cell) => cell.clientBound);
  if (bound.length === 0) return null;
  return sentences(
    `⚠ Client-bound: ${bound.map((cell) => `${cell.id} (${clientBoundWords(cell.clientBound!)})`).join('; ')}.`,
    'The load generator limited these cells, so their figures understate what the server can do.',
  );
}

/** "k6 v1.8.1 (go1.26.8, linux/amd64)": k6's version line already starts with its name, so it is not named twice. */
export function engineLabel(
  run: { readonly engine: string; readonly engineVersion: string },
  runnerName: string,
  runnerSuffix = '',
): string {
  if (run.engine !== 'k6') return `${runnerName} ${run.engineVersion}${runnerSuffix}`;
  return /^k6\b/.test(run.engineVersion) ? run.engineVersion : `k6 ${run.engineVersion}`;
}

/**
 * The server's own per-request speed beside the client's, at the cell (lowest concurrency, then longest
 * window) where the server timed it (llama.cpp: tokens over the seconds it spent on them); null when
 * it did not.
 */
export function serverSpeedSentence(grid: readonly CellStats[], kind: 'prefill' | 'decode'): string | null {
  const serverSpeed = (cell: CellStats): MaybeNumber =>
    (kind === 'prefill' ? cell.server?.serverPrefillTokensPerSecond : cell.server?.serverDecodeTokensPerSecond) ?? null;
  // The monitor samples the counters every interval, so a cell's window also takes in requests of its
  // neighbours: the longest window at the lowest concurrency blurs least.
  const timed = grid.filter((cell) => serverSpeed(cell) !== null)
    .sort((a, b) => a.concurrency - b.concurrency || (b.wallSeconds ?? 0) - (a.wallSeconds ?? 0));
  const cell = timed[0];
  if (!cell) return null;
  const client = cell.metrics[kind === 'prefill' ? 'prefillSpeed' : 'decodeSpeed']?.mean ?? null;
  const what = kind === 'prefill' ? 'prompt processing' : 'generation';
  return `As the server timed its own ${what} (tokens over the seconds it spent on them, summed over its slots), ` +
    `one request ran at **${fmtInt(serverSpeed(cell))} tok/s** over the window of ${where(cell)}` +
    (client === null ? '.' : `, where the client measured ${fmtInt(client)} tok/s.`);
}
