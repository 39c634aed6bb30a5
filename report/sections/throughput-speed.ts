// What the system and each user get: throughput and per-user speed over the grid, and the mix profiles. Runs in Node.

import type { CellStats } from '../../analysis/cells';
import { DocBuilder, type Block } from '../document';
import { fmtInt, fmtMillions, fmtMsFine, fmtPct, fmtTokS, fmtTokens, plural } from '../format';
import { decodeSpeedGuideRows, slowestSpeedVerdict } from '../judgement';
import type { MixProfileSummary, Report } from '../report-types';
import { maxBy, minBy } from '../../analysis/stats';
import { clientBoundNote, meanOf, sentences, serverSpeedSentence, where } from '../phrases';

/** Output tokens per second of the whole system at its peak and at the highest concurrency of each context. */
export function systemThroughputSection(grid: readonly CellStats[], charts: ReadonlySet<string>): Block[] {
  const doc = new DocBuilder();
  doc.h(3, 'System Throughput');
  doc.p(sentences(
    'Aggregate token generation across all concurrent requests: ' +
      'output tokens of a cell divided by its wall time (first request start to last request end).',
    'Prompt tokens processed during prefill are excluded.',
  ));
  doc.chart('throughput', charts);
  const peak = maxBy(grid, (cell) => cell.throughput);
  const maxConcurrency = Math.max(...grid.map((cell) => cell.concurrency));
  doc.table(['CONDITION', 'THROUGHPUT', 'TOKENS/HOUR'], throughputRows(grid, peak, maxConcurrency));
  if (peak?.tokensPerHour) {
    doc.p(sentences(
      'At peak throughput, this configuration produces approximately ' +
        `**${fmtMillions(peak.tokensPerHour)}** tokens per hour ` +
        `(${fmtTokS(peak.throughput)} at ${where(peak)}).`,
      'This is relevant for batch workloads like document processing, synthetic data generation, or offline analysis.',
      peak.concurrency === maxConcurrency
        ? 'The peak is at the highest tested concurrency, so higher concurrency may increase it further.'
        : null,
    ));
  }
  doc.note(clientBoundNote(grid) ?? '');
  return doc.blocks;
}

/** The peak first, then each context length at the highest concurrency (unless that cell is the peak). */
function throughputRows(grid: readonly CellStats[], peak: CellStats | null, maxConcurrency: number): string[][] {
  const contexts = [...new Set(grid.map((cell) => cell.contextTokens))].sort((a, b) => a - b);
  const row = (condition: string, cell: CellStats): string[] => [
    condition,
    fmtTokS(cell.throughput),
    fmtMillions(cell.tokensPerHour),
  ];
  const rows: string[][] = [];
  if (peak) {
    rows.push(row(`Peak (${fmtTokens(peak.contextTokens)} context, ${plural(peak.concurrency, 'request')})`, peak));
  }
  for (const context of contexts) {
    const cell = grid.find(
      (candidate) => candidate.contextTokens === context && candidate.concurrency === maxConcurrency,
    );
    const condition = `${fmtTokens(context)} context, ${plural(maxConcurrency, 'request')}`;
    if (cell && cell !== peak) rows.push(row(condition, cell));
  }
  return rows;
}

/** Decode speed per user against reading speed: the guide table and the slowest cell's verdict read the same bands. */
export function perUserSpeedSection(grid: readonly CellStats[], charts: ReadonlySet<string>): Block[] {
  const doc = new DocBuilder();
  doc.h(3, 'Per-User Generation Speed');
  doc.p(sentences(
    'Token generation rate experienced by each individual user: (output tokens - 1) / (e2e - TTFT), ' +
      'the speed at which text streams into their response ("decode speed").',
    'As concurrency increases, per-user speed decreases since GPU resources are shared across requests.',
  ));
  doc.chart('decode_speed', charts);
  doc.table(['SPEED', 'USER EXPERIENCE'], decodeSpeedGuideRows(), 'How Fast is This?');
  const slowest = minBy(grid, meanOf('decodeSpeed'));
  const lowestConcurrency = Math.min(...grid.map((cell) => cell.concurrency));
  const fastest = maxBy(grid.filter((cell) => cell.concurrency === lowestConcurrency), meanOf('decodeSpeed'));
  if (!slowest?.metrics.decodeSpeed || !fastest?.metrics.decodeSpeed) return doc.blocks;
  const slowestSpeed = slowest.metrics.decodeSpeed.mean;
  const users = fastest.concurrency === 1 ? 'Single-user' : `${fastest.concurrency}-user`;
  doc.p(sentences(
    `At **${fmtTokS(slowestSpeed)}** (the lowest measured point: ${where(slowest)}), ` +
      `this configuration ${slowestSpeedVerdict(slowestSpeed)}.`,
    `${users} performance at ${fmtTokens(fastest.contextTokens)} context ` +
      `reaches **${fmtTokS(fastest.metrics.decodeSpeed.mean)}**.`,
  ));
  const serverTimed = serverSpeedSentence(grid, 'decode');
  if (serverTimed) doc.p(serverTimed);
  return doc.blocks;
}

type TitleOf = (cell: CellStats) => string;

/** The mix part: each profile's fixed input and output lengths at N simultaneous requests. */
export function fastestSection(report: Report, charts: ReadonlySet<string>): Block[] {
  if (report.mixProfiles.length === 0) return [];
  const doc = new DocBuilder();
  doc.h(2, 'When Am I the Fastest?');
  doc.p(
    'Each scenario runs exactly N requests at the same time with fixed input and output lengths, ' +
      "isolating the hardware's capability at each concurrency level.",
  );
  const tested = (profile: MixProfileSummary): string =>
    report.cells
      .filter((cell) => profile.cellIds.includes(cell.id) && cell.requests > 0)
      .map((cell) => cell.concurrency)
      .join(', ');
  const rows = report.mixProfiles.map((profile) => [
    profile.title,
    `${fmtInt(profile.contextTokens)} in / ${fmtInt(profile.outputTokens)} out`,
    tested(profile),
  ]);
  doc.table(['SCENARIO', 'INPUT / OUTPUT', 'CONCURRENCY TESTED'], rows);
  const cells = report.cells.filter((cell) => cell.script === 'mix' && cell.requests > 0);
  const titleOf: TitleOf = (cell) =>
    report.mixProfiles.find((profile) => profile.cellIds.includes(cell.id))?.title ?? cell.id;
  return [
    ...doc.blocks,
    ...mixSpeedAndLatency(cells, titleOf, charts),
    ...mixThroughputAndScaling(cells, titleOf, charts),
  ];
}

function mixSpeedAndLatency(cells: readonly CellStats[], titleOf: TitleOf, charts: ReadonlySet<string>): Block[] {
  const doc = new DocBuilder();
  doc.chart('mix_decode', charts);
  const fast = maxBy(cells, meanOf('decodeSpeed'));
  const slow = minBy(cells, meanOf('decodeSpeed'));
  if (fast && slow) {
    doc.p(
      `Per-user decode speed ranges from ${fmtTokS(fast.metrics.decodeSpeed?.mean)} ` +
        `(${titleOf(fast)}, ${plural(fast.concurrency, 'user')}) ` +
        `down to ${fmtTokS(slow.metrics.decodeSpeed?.mean)} (${titleOf(slow)}, ${slow.concurrency} concurrent).`,
    );
  }
  doc.chart('mix_itl', charts);
  const low = minBy(cells, meanOf('itl'));
  const high = maxBy(cells, meanOf('itl'));
  if (low && high) {
    doc.p(
      `Best inter-token latency is ${fmtMsFine(low.metrics.itl?.mean)} ` +
        `(${titleOf(low)}, ${plural(low.concurrency, 'user')}), ` +
        `rising to ${fmtMsFine(high.metrics.itl?.mean)} (${titleOf(high)}, ${high.concurrency} concurrent).`,
    );
  }
  doc.chart('mix_ttft', charts);
  return doc.blocks;
}

function mixThroughputAndScaling(cells: readonly CellStats[], titleOf: TitleOf, charts: ReadonlySet<string>): Block[] {
  const doc = new DocBuilder();
  doc.chart('mix_throughput', charts);
  const peak = maxBy(cells, (cell) => cell.throughput);
  if (peak) {
    const at = `${titleOf(peak)}, ${peak.concurrency} concurrent`;
    const tokensPerHour = `about ${fmtMillions(peak.tokensPerHour)} tokens per hour`;
    doc.p(`Peak system throughput is ${fmtTokS(peak.throughput)} (${at}), ${tokensPerHour}.`);
  }
  doc.chart('mix_efficiency', charts);
  const topConcurrency = Math.max(...cells.map((cell) => cell.concurrency));
  const atTop = cells.filter((cell) => cell.concurrency === topConcurrency && cell.scalingEfficiency !== null);
  const highest = maxBy(atTop, (cell) => cell.scalingEfficiency);
  const lowest = minBy(atTop, (cell) => cell.scalingEfficiency);
  doc.note(clientBoundNote(cells) ?? '');
  if (highest && lowest && topConcurrency > 1) {
    const efficiency = (cell: CellStats): string => `${fmtPct(cell.scalingEfficiency, 0)} (${titleOf(cell)})`;
    const range = `from ${efficiency(highest)} to ${efficiency(lowest)}`;
    doc.p(`At ${topConcurrency} concurrent, scaling efficiency ranges ${range}.`);
  }
  return doc.blocks;
}
