// The report's highlights and key findings: the few figures a reader takes away, read off the cells and capacities.
// Runs in Node, pure.

import type { CellStats } from '../analysis/cells';
import type { UseCaseCapacity } from '../analysis/capacity';
import type { BurstCapacity } from '../analysis/burst-capacity';
import { capacityFinding } from './judgement';
import { maxBy, minBy } from '../analysis/stats';
import { fmtCount, fmtMs, fmtMillions, fmtPct, fmtTokS, fmtTokens, plural } from './format';
import type { Finding, Report, Totals } from './report-types';
import { ladderDisplay, ladderDisplayShort } from './capacity-words';

function byConcurrency(a: CellStats, b: CellStats): number {
  return a.contextTokens - b.contextTokens || a.concurrency - b.concurrency;
}

/** Sweep cells, or (when there is no sweep part) every cell: the grid the performance sections describe. */
export function gridCells(r: Pick<Report, 'cells'>): CellStats[] {
  const sweep = r.cells.filter((c) => c.script === 'sweep' && c.requests > 0);
  // Bursts and sessions steps (users with pauses, not N requests) are no grid of concurrent requests.
  // Rate cells are one sender at an offered rate, not N concurrent requests either.
  const other = r.cells.filter((c) => c.requests > 0 && !['burst', 'sessions', 'rate', 'trace'].includes(c.script));
  return (sweep.length > 0 ? sweep : other).slice().sort(byConcurrency);
}

/** A single-request figure at the shortest and the longest context: "a (1K context) → b (8K context)". */
function acrossContexts(lo: CellStats, hi: CellStats, figure: (c: CellStats) => string): string {
  const at = (c: CellStats): string => `${figure(c)} (${fmtTokens(c.contextTokens)} context)`;
  return lo === hi ? at(lo) : `${at(lo)} → ${at(hi)}`;
}

/** How throughput grows from one request to the most at the single-request cell's context; null without a ladder. */
function scalingFinding(grid: readonly CellStats[], single: CellStats): Finding | null {
  const sameCtx = grid.filter((c) =>
    c.contextTokens === single.contextTokens && c.outputTokens === single.outputTokens && c.script === single.script);
  const top = maxBy(sameCtx, (c) => c.concurrency);
  if (!top || top.concurrency <= 1 || top.throughput === null || !single.throughput) return null;
  const gain = `${(top.throughput / single.throughput).toFixed(1)}× from 1 to ${top.concurrency} concurrent requests`;
  const context = `${fmtTokens(single.contextTokens)} context, ${fmtPct(top.scalingEfficiency, 0)} scaling efficiency`;
  return { label: 'Throughput Scaling', value: `${gain} (${context})` };
}

export function buildFindings(
  cells: readonly CellStats[], grid: readonly CellStats[], useCases: readonly UseCaseCapacity[],
  bursts: readonly BurstCapacity[], totals: Totals,
): { highlights: Finding[]; keyFindings: Finding[] } {
  const highlights: Finding[] = [];
  const key: Finding[] = [];
  const peak = maxBy(grid, (c) => c.throughput);
  if (peak && peak.throughput !== null) {
    const at = plural(peak.concurrency, 'concurrent request');
    const label = `Tok/s Peak Throughput @ ${plural(peak.concurrency, 'Concurrent Request')}`;
    highlights.push({ label, value: peak.throughput.toFixed(1) });
    key.push({
      label: 'Peak System Throughput',
      value: `${fmtTokS(peak.throughput)} @ ${at}, ${fmtTokens(peak.contextTokens)} context ` +
        `(${fmtMillions(peak.tokensPerHour)} tokens per hour)`,
    });
  }
  if (totals.requests > 0) {
    highlights.push({ label: 'Success Rate Across All Scenarios', value: fmtPct(totals.successRate) });
  }
  const chat = useCases.find((u) => u.useCase.id === 'general_chatbot' && u.result.kind !== 'untested')
    ?? useCases.find((u) => u.result.kind !== 'untested');
  const chatLabel = chat &&
    `Concurrent Users @ ${fmtTokens(chat.useCase.contextTokens)} Context (${chat.useCase.title})`;
  if (chat && chatLabel) highlights.push({ label: chatLabel, value: ladderDisplayShort(chat.result) });
  const singles = grid.filter((c) => c.concurrency === 1);
  const lo = minBy(singles, (c) => c.contextTokens);
  const hi = maxBy(singles, (c) => c.contextTokens);
  if (lo && hi && lo.metrics.ttft && hi.metrics.ttft)
    key.push({ label: 'TTFT Single Request', value: acrossContexts(lo, hi, (c) => fmtMs(c.metrics.ttft!.mean)) });
  if (lo && hi && lo.metrics.decodeSpeed && hi.metrics.decodeSpeed) {
    const value = acrossContexts(lo, hi, (c) => fmtTokS(c.metrics.decodeSpeed!.mean));
    key.push({ label: 'Generation Speed Single Request', value });
  }
  if (chat) key.push({ label: `${chat.useCase.title} Capacity`, value: capacityFinding(chat) });
  const scaling = lo ? scalingFinding(grid, lo) : null;
  if (scaling) key.push(scaling);
  const bestBurst = maxBy(bursts.filter((b) => b.result.kind !== 'untested'), (b) => b.result.estimate ?? 0);
  if (bestBurst) {
    const value = `${ladderDisplay(bestBurst.result)} requests (${bestBurst.title}, ${bestBurst.limit.label})`;
    key.push({ label: 'Max Safe Queue Depth', value });
  }
  const powered = cells.filter((c) => c.power !== null);
  const peakPower = maxBy(powered, (c) => c.power?.peakWatts ?? null);
  if (peakPower?.power) {
    const where = `${fmtTokens(peakPower.contextTokens)} context, ` +
      plural(peakPower.concurrency, 'concurrent request');
    key.push({ label: 'Peak Power Draw', value: `${Math.round(peakPower.power.peakWatts)}W (${where})` });
  }
  if (totals.requests > 0) {
    const failures = Object.entries(totals.errorsByKind).filter(([, n]) => n > 0).map(([k, n]) => `${n} ${k}`);
    const errors = failures.length > 0 ? ` (errors: ${failures.join(', ')})` : '';
    const across = `across ${fmtCount(totals.requests)} requests${errors}`;
    key.push({ label: 'Success Rate', value: `${fmtPct(totals.successRate)} ${across}` });
  }
  return { highlights, keyFindings: key };
}
