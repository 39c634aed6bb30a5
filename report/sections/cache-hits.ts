// TTFT with and without a prefix-cache hit, per cell, from what each response's usage said. Runs in Node.

import type { CellStats } from '../../analysis/cells';
import { DocBuilder, type Block } from '../document';
import { fmtMs, fmtPct, fmtTokens, plural } from '../format';
import type { Report } from '../report-types';
import { prefixGroupsPhrase, sentences } from '../phrases';

/** Rows the table shows at most: the cells the report lists first. */
const MAX_ROWS = 24;

const hitsOf = (cell: CellStats): number => cell.metrics.ttftCacheHit?.count ?? 0;
const missesOf = (cell: CellStats): number => cell.metrics.ttftCacheMiss?.count ?? 0;

/** "31-45%" or "38%": the smallest and largest of some shares. */
function shareRange(shares: readonly number[]): string {
  const lo = Math.min(...shares);
  const hi = Math.max(...shares);
  return fmtPct(lo, 0) === fmtPct(hi, 0) ? fmtPct(lo, 0) : `${fmtPct(lo, 0).slice(0, -1)}-${fmtPct(hi, 0)}`;
}

/** What the reader needs to read the table: where the hits came from, and how a hit's TTFT compares. */
function introduction(report: Report, cells: readonly CellStats[]): string {
  const groups = report.parts.flatMap((part) => (part.prefixGroups !== null ? [part.prefixGroups] : []));
  const both = cells.filter((cell) => hitsOf(cell) > 0 && missesOf(cell) > 0);
  const ratios = both.map((cell) => cell.metrics.ttftCacheHit!.p50 / cell.metrics.ttftCacheMiss!.p50);
  // A server that leaves cached_tokens out at 0 (vLLM before 0.32) reports hits only: its misses have no TTFT here.
  const unreported = cells.some((cell) => missesOf(cell) === 0 && hitsOf(cell) < cell.succeeded);
  return sentences(
    "TTFT of the requests whose response said the server's prefix cache served part of the prompt " +
      '(usage.prompt_tokens_details.cached_tokens above 0: a hit) beside those it served none of (a miss); ' +
      'the hit share is hits over succeeded requests.',
    groups.length > 0
      ? `The prompts came in ${groups.map(prefixGroupsPhrase).join('; ')}, a suffix of its own per request, dealt ` +
          "round robin: a cell's first request of each group misses, and the later ones hit while the cache holds " +
          "their group's prefix."
      : null,
    ratios.length > 0
      ? `In ${plural(both.length, 'cell')} with both, a hit's median TTFT was ${shareRange(ratios)} of a miss's: ` +
          'the difference is the prefill the cache saved.'
      : null,
    unreported ? 'The server left cached tokens out when there were none: misses have no TTFT of their own.' : null,
  );
}

/**
 * The cells' TTFT p50 and p99 with and without a cache hit, and their hit share: shown when a request hit, or when a
 * part dealt prompts to prefix groups (no hit is then a finding); nothing when no response reported cached tokens.
 */
export function cacheHitSection(report: Report): Block[] {
  const cells = report.cells.filter((cell) => cell.requests > 0 && hitsOf(cell) + missesOf(cell) > 0);
  const grouped = report.parts.some((part) => part.prefixGroups !== null);
  if (cells.length === 0 || (!grouped && !cells.some((cell) => hitsOf(cell) > 0))) return [];
  const doc = new DocBuilder();
  doc.h(3, 'Prefix-Cache Hits and TTFT');
  doc.p(introduction(report, cells));
  const hit = (cell: CellStats) => cell.metrics.ttftCacheHit;
  const miss = (cell: CellStats) => cell.metrics.ttftCacheMiss;
  const row = (cell: CellStats): string[] => [
    cell.id,
    fmtTokens(cell.contextTokens),
    fmtPct(cell.cacheHitShare, 1),
    fmtMs(hit(cell)?.p50),
    fmtMs(miss(cell)?.p50),
    fmtMs(hit(cell)?.p99),
    fmtMs(miss(cell)?.p99),
  ];
  const header = ['CELL', 'CONTEXT', 'HIT SHARE', 'TTFT P50 HIT', 'TTFT P50 MISS', 'TTFT P99 HIT', 'TTFT P99 MISS'];
  const more = cells.length > MAX_ROWS ? `The first ${MAX_ROWS} of ${cells.length} cells.` : undefined;
  doc.table(header, cells.slice(0, MAX_ROWS).map(row), more);
  return doc.blocks;
}
