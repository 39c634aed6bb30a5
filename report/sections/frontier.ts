// Throughput per GPU against interactivity: the frontier chart of a measured grid and the table of its frontier
// points, with energy and cost per output token. Runs in Node.

import { frontierChartId } from '../charts-frontier';
import { DocBuilder, type Block } from '../document';
import { fmtInt, fmtJoules, fmtTokS, fmtTokens, fmtUsd, plural } from '../format';
import { speedFloors, type FrontierGrid, type FrontierPoint, type ThroughputFrontier } from '../../analysis/frontier';
import type { Report } from '../report-types';
import { sentences } from '../phrases';

/** The section of one grid (sweep or mix); none when the grid has no frontier. */
export function frontierSection(report: Report, grid: FrontierGrid, charts: ReadonlySet<string>): Block[] {
  const frontier = report.frontiers.find((candidate) => candidate.grid === grid);
  if (!frontier) return [];
  const doc = new DocBuilder();
  const heading = 'Throughput per GPU vs Interactivity';
  doc.h(3, grid === 'sweep' ? heading : `${heading} per Scenario`);
  doc.p(sentences(
    'Each measured cell is a point: its system throughput per GPU ' +
      `(output tok/s over ${plural(frontier.gpuCount, 'GPU')}) ` +
      'against its median per-user decode speed (the tok/s each user sees).',
    'A point is on the Pareto frontier when no other cell is both faster per user and more productive per GPU: ' +
      'along it, speed for each user is bought with throughput per GPU, and a cell off it is beaten on both.',
    speedFloors(report.useCases.map((u) => u.useCase)).length === 0 ? null
      : 'A use case\'s minimum speed is a vertical line; it speaks to the cells at that use case\'s context and ' +
        'output length, and is checked on its own statistic rather than the median.',
  ));
  doc.chart(frontierChartId(grid), charts);
  const labelOf = pointLabel(report, grid);
  const head = [grid === 'sweep' ? 'CONTEXT' : 'SCENARIO', 'CONCURRENT', 'TOK/S PER GPU', 'PER-USER TOK/S',
    'ENERGY / TOKEN', 'COST / 1M TOKENS'];
  const rows = frontier.points.map((point) => [
    labelOf(point),
    fmtInt(point.concurrency),
    fmtTokS(point.tokensPerSecondPerGpu),
    fmtTokS(point.perUserTokensPerSecond),
    fmtJoules(point.joulesPerOutputToken),
    costCell(point),
  ]);
  doc.table(head, rows, 'Frontier points, most throughput per GPU first');
  doc.p(costSentence(report, frontier));
  return doc.blocks;
}

/** The cost of a point, saying so where it lacks the electricity. */
function costCell(point: FrontierPoint): string {
  const usd = fmtUsd(point.usdPerMillionTokens);
  return point.costBasis === 'gpu-hours' ? `${usd} (GPU-hours only)` : usd;
}

/** How a row names its cell: the context length of a sweep cell, the scenario of a mix cell. */
function pointLabel(report: Report, grid: FrontierGrid): (point: FrontierPoint) => string {
  if (grid === 'sweep') return (point) => fmtTokens(point.contextTokens);
  return (point) => report.mixProfiles.find((profile) => profile.profile === point.profile)?.title ?? point.cellId;
}

/** What the cost and energy columns are made of, and which rows lack the electricity. */
function costSentence(report: Report, frontier: ThroughputFrontier): string {
  const { usdPerGpuHour, usdPerKwh, gpuCount } = report.options;
  const gpus = `${plural(gpuCount, 'GPU')} x ${fmtUsd(usdPerGpuHour)}/GPU-hour`;
  const unpowered = frontier.points.filter((point) => point.costBasis === 'gpu-hours').length;
  const formula = 'Energy per output token = mean GPU power x the cell\'s wall time / its output tokens. ' +
    `Cost per million output tokens = (${gpus} + mean kW x ${fmtUsd(usdPerKwh)}/kWh) / ` +
    'output tokens per hour in millions (flags --usd-per-gpu-hour, --gpus, --usd-per-kwh).';
  if (unpowered === 0) return formula;
  const which = unpowered === frontier.points.length ? 'these cells' : `${unpowered} of these cells`;
  return sentences(
    formula,
    `GPU power was not measured for ${which}: their energy is n/a and their cost counts the GPU-hours alone, ` +
      'without the electricity they drew.',
  );
}
