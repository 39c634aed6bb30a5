// How long users wait: TTFT over the grid, prompt caching, bursts of queued requests, the server's queue. Runs in Node.

import type { BurstCapacity } from '../../analysis/burst-capacity';
import type { CellStats } from '../../analysis/cells';
import { DocBuilder, type Block } from '../document';
import { fmtMs, fmtMsFine, fmtPct, fmtSec, fmtTokens, plural } from '../format';
import { prefixCacheHit } from '../../analysis/figure-grades';
import { queueSaturationSentence, ttftGuideRows } from '../judgement';
import type { Report } from '../report-types';
import { maxBy, minBy } from '../../analysis/stats';
import { clientBoundNote, meanOf, promptKind, sentences, statName, where, type MaybeNumber } from '../phrases';
import { ladderDisplayShort } from '../capacity-words';

/** TTFT over the grid: what it is made of, how it feels, its best and worst cell, and whether it saw a warm cache. */
export function ttftSection(report: Report, grid: readonly CellStats[], charts: ReadonlySet<string>): Block[] {
  const doc = new DocBuilder();
  doc.h(3, 'Time to First Token');
  doc.p(sentences(
    'Time from request submission to the first generated token of any kind (content, reasoning or tool call).',
    'The primary metric for perceived responsiveness.',
    'TTFT has two components: **queue wait** (time waiting for GPU availability, increases with concurrency) ' +
      'and **prefill** (time to process input context, increases with context length).',
  ));
  doc.chart('ttft', charts);
  doc.table(['TTFT', 'USER EXPERIENCE'], ttftGuideRows(), 'How Responsive is This?');
  const best = minBy(grid, meanOf('ttft'));
  const worst = maxBy(grid, meanOf('ttft'));
  if (best?.metrics.ttft && worst?.metrics.ttft) {
    const bestTtft = `${fmtMs(best.metrics.ttft.mean)} (${where(best)})`;
    doc.p(`Best TTFT is ${bestTtft}; worst is ${fmtMs(worst.metrics.ttft.mean)} (${where(worst)}).`);
  }
  return [...doc.blocks, ...cachingNote(report)];
}

/** Whether TTFT measured fresh or cached prefill, from how the parts' prompts began. */
function cachingNote(report: Report): Block[] {
  const doc = new DocBuilder();
  const modes = new Set(report.parts.map(promptKind));
  if (modes.has('unique')) {
    doc.p(sentences(
      '**Important note about caching.**',
      'Every request carried a unique prompt prefix, so prefix caching could not shorten prefill: ' +
        'these results represent worst-case TTFT.',
      'In production with caching enabled, only new tokens require processing: ' +
        'a 64K conversation where you add 1K of new context would have a TTFT similar to the 1K results, ' +
        'not the 64K results.',
    ));
  }
  if (modes.has('shared-prefix')) {
    doc.p(
      '**Note about caching.** Prompts shared a prefix, so the server could reuse its prefix cache: ' +
        'TTFT here reflects cached prefill, not fresh context.',
    );
  }
  if (modes.has('groups')) {
    doc.p(
      '**Note about caching.** Prompts came in groups sharing a prefix (plan prompts.prefixGroups): after the first ' +
        "request of a group, the server could serve the group's prefix from its cache, so TTFT mixes cached and " +
        'fresh prefill; "Prefix-Cache Hits and TTFT" below states the two apart.',
    );
  }
  return doc.blocks;
}

/** The burst part: what N requests at once do to TTFT and ITL, and the deepest queue within the burst TTFT limit. */
export function scaleUpSection(report: Report, charts: ReadonlySet<string>): Block[] {
  if (report.bursts.length === 0) return [];
  const doc = new DocBuilder();
  doc.h(2, 'When to Scale Up');
  doc.p(sentences(
    'What do users experience when requests pile up?',
    'Each burst sends N requests at once, so new requests queue behind in-progress work.',
    'Use these numbers for SLA planning and capacity decisions.',
  ));
  doc.chart('burst_ttft', charts);
  const safeDepth = (burst: BurstCapacity): string =>
    burst.result.kind === 'below' ? `below ${burst.result.firstFail}` : `${ladderDisplayShort(burst.result)} reqs`;
  const rows = report.bursts.map((burst) => [
    burst.title,
    `${fmtTokens(burst.contextTokens)} / ${fmtTokens(burst.outputTokens)}`,
    safeDepth(burst),
    burst.result.steps.map((step) => String(step.concurrency)).join(', '),
  ]);
  const caption =
    `Max safe queue depth: the deepest burst whose ${statName(report.limitStat)} TTFT ` +
    `stays at or under ${fmtSec(report.burstTtftLimitMs)}.`;
  doc.table(['SCENARIO', 'INPUT / OUTPUT', 'MAX SAFE QUEUE DEPTH', 'TESTED DEPTHS'], rows, caption);
  return [...doc.blocks, ...burstLatencies(report, charts)];
}

/** TTFT and ITL under the bursts: the best and worst queue, and the highest inter-token latency. */
function burstLatencies(report: Report, charts: ReadonlySet<string>): Block[] {
  const doc = new DocBuilder();
  const cells = report.cells.filter((cell) => cell.script === 'burst' && cell.requests > 0);
  const at = (cell: CellStats): string => {
    const title = report.bursts.find((burst) => burst.cellIds.includes(cell.id))?.title ?? cell.id;
    return `${title}, queue depth ${cell.concurrency}`;
  };
  const best = minBy(cells, meanOf('ttft'));
  const worst = maxBy(cells, meanOf('ttft'));
  if (best && worst) {
    const ttft = (cell: CellStats): string => `${fmtSec(cell.metrics.ttft?.mean)} (${at(cell)})`;
    doc.p(`TTFT under queue saturation: best case ${ttft(best)}, worst case ${ttft(worst)}.`);
  }
  doc.chart('burst_itl', charts);
  const worstItl = maxBy(cells, meanOf('itl'));
  if (worstItl?.metrics.itl) {
    const itl = `${fmtMsFine(worstItl.metrics.itl.mean)} (${at(worstItl)})`;
    doc.p(`The highest inter-token latency under burst load was ${itl}.`);
  }
  doc.chart('burst_decode', charts);
  doc.note(clientBoundNote(cells) ?? '');
  return doc.blocks;
}

/** The server's own queue wait per cell, from its queue-time histogram, when the monitor sampled it. */
export function queueWaitSection(grid: readonly CellStats[], charts: ReadonlySet<string>): Block[] {
  const doc = new DocBuilder();
  doc.h(3, 'Queue Wait Times');
  const withQueue = grid.filter((cell) => cell.server?.queueWaitMs !== null && cell.server?.queueWaitMs !== undefined);
  if (withQueue.length === 0) {
    const queued = maxBy(grid.filter((cell) => cell.server?.maxWaiting != null), (cell) => cell.server!.maxWaiting);
    if (!queued) {
      doc.p(
        'Server-side queue wait was not measured in this run ' +
          "(no monitor samples of the engine's queue-time histogram).",
      );
      return doc.blocks;
    }
    const most = queued.server!.maxWaiting!;
    doc.p(sentences(
      'The server exposes no per-request queue time (llama.cpp, for one, publishes only how many requests wait), ' +
        'so queue wait was not measured; the wait is part of TTFT.',
      most > 0
        ? `At most **${plural(most, 'request')}** waited at once (${where(queued)}).`
        : 'No request waited in these cells.',
    ));
    return doc.blocks;
  }
  doc.p(sentences(
    "Time a request waits in the engine's queue before processing begins, from the server's queue-time histogram: " +
      "the increase of its sum divided by the increase of its count over each cell's time window.",
    'Queue wait is included in TTFT.',
  ));
  doc.chart('queue_wait', charts);
  const wait = (cell: CellStats): MaybeNumber => cell.server!.queueWaitMs;
  const longest = maxBy(withQueue, wait);
  const longestAlone = maxBy(withQueue.filter((cell) => cell.concurrency === 1), wait);
  if (longestAlone) {
    doc.p(`At single concurrency, queue wait is at most ${fmtMs(wait(longestAlone))} across context lengths.`);
  }
  if (longest) {
    doc.p(sentences(
      `At **${plural(longest.concurrency, 'concurrent request')}** ` +
        `with **${fmtTokens(longest.contextTokens)} context**, ` +
        `queue wait reaches **${fmtMs(wait(longest))}**.`,
      queueSaturationSentence(wait(longest) ?? 0),
    ));
  }
  doc.p(sentences(
    'Interpretation: queue wait and prefill time are measured independently by the server ' +
      'and may not sum exactly to TTFT.',
    "Use queue wait for capacity planning and TTFT for the user's actual wait.",
  ));
  return doc.blocks;
}

const HIT_RATE = "The server's prefix-cache hit rate (cached / queried prompt tokens over each cell's window)";

/**
 * The server's prefix-cache hit rate per cell, when it exposes one: a hit skips prefill, so TTFT is
 * only comparable at equal hit rates.
 */
export function prefixCacheSection(report: Report): Block[] {
  const known = report.cells.filter((cell) => cell.requests > 0 && cell.server?.prefixCacheHitRate != null);
  if (known.length === 0) return [];
  const doc = new DocBuilder();
  doc.h(3, 'Prefix Cache');
  const hitRate = (cell: CellStats): number => cell.server!.prefixCacheHitRate!;
  const hits = known.filter((cell) => prefixCacheHit(hitRate(cell)));
  if (hits.length === 0) {
    doc.p(
      `${HIT_RATE} was 0% in all ${plural(known.length, 'cell')} with server metrics: ` +
        'no prefill was skipped, so TTFT and prefill speed measure fresh context.',
    );
    return doc.blocks;
  }
  doc.p(
    `${HIT_RATE} was above 0% in ${plural(hits.length, 'cell')} of ${known.length}: ` +
      "prefill of the cached part was skipped there, so those cells' TTFT is lower than fresh context would give.",
  );
  const row = (cell: CellStats): string[] => [
    cell.id,
    fmtTokens(cell.contextTokens),
    String(cell.concurrency),
    fmtPct(hitRate(cell), 1),
    fmtMs(cell.metrics.ttft?.mean),
  ];
  doc.table(['CELL', 'CONTEXT', 'CONCURRENCY', 'HIT RATE', 'TTFT MEAN'], hits.slice(0, 24).map(row));
  return doc.blocks;
}
