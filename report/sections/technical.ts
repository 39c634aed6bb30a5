// The technical analysis: prefill speed, ITL, scaling efficiency and power across the sweep grid. Runs in Node.

import type { CellStats } from '../../analysis/cells';
import { DocBuilder, type Block } from '../document';
import { fmtInt, fmtJoules, fmtMs, fmtMsFine, fmtPct, fmtTokens, fmtUsd, fmtWatts, plural } from '../format';
import { contentionSentence, highestItlVerdict } from '../judgement';
import type { Report } from '../report-types';
import { maxBy, minBy } from '../../analysis/stats';
import { meanOf, sentences, serverSpeedSentence, where } from '../phrases';

/** Input tokens per second of TTFT, with the context length at which each concurrency peaks. */
export function prefillSpeedSection(grid: readonly CellStats[], charts: ReadonlySet<string>): Block[] {
  const doc = new DocBuilder();
  doc.h(3, 'Per-User Prefill Speed');
  doc.p(
    'Rate at which the model processes input context before generating output, per request: ' +
      'input tokens / TTFT (so it includes queue wait, as the user sees it).',
  );
  doc.chart('prefill_speed', charts);
  const concurrencies = [...new Set(grid.map((cell) => cell.concurrency))].sort((a, b) => a - b);
  const peakRows = concurrencies.flatMap((concurrency) => {
    const best = maxBy(grid.filter((cell) => cell.concurrency === concurrency), meanOf('prefillSpeed'));
    if (!best) return [];
    const speed = `${fmtInt(best.metrics.prefillSpeed?.mean)} tok/s`;
    return [[String(concurrency), `${fmtTokens(best.contextTokens)} context`, speed]];
  });
  doc.table(['CONCURRENT REQUESTS', 'PEAKS AT', 'PEAK SPEED'], peakRows);
  const worst = maxBy(grid.filter((cell) => cell.server?.prefillTimeMs != null), (cell) => cell.server!.prefillTimeMs);
  if (worst) {
    const peak = `${fmtMs(worst.server!.prefillTimeMs)} per request (${where(worst)})`;
    doc.p(`The server's own prefill-time histogram peaks at ${peak}.`);
  }
  const serverTimed = serverSpeedSentence(grid, 'prefill');
  if (serverTimed) doc.p(serverTimed);
  return doc.blocks;
}

/** ITL across the grid; the highest is judged by the ITL bands. */
export function itlSection(grid: readonly CellStats[], charts: ReadonlySet<string>): Block[] {
  const doc = new DocBuilder();
  doc.h(3, 'Inter-Token Latency');
  doc.p(sentences(
    'Time between consecutive tokens during generation; a chunk that carries several tokens spreads its gap over them.',
    'Determines the smoothness of responses.',
  ));
  doc.chart('itl', charts);
  const low = minBy(grid, meanOf('itl'));
  const high = maxBy(grid, meanOf('itl'));
  if (!low?.metrics.itl || !high?.metrics.itl) return doc.blocks;
  const highestItl = high.metrics.itl.mean;
  doc.p(sentences(
    `The lowest inter-token latency is **${fmtMsFine(low.metrics.itl.mean)}** (${where(low)}).`,
    `The highest observed was **${fmtMsFine(highestItl)}** at **${fmtTokens(high.contextTokens)}** context ` +
      `with **${plural(high.concurrency, 'concurrent request')}**, ${highestItlVerdict(highestItl)}.`,
  ));
  return doc.blocks;
}

/** Scaling efficiency's spread at the highest concurrency; a low end under the contention cut-off is called out. */
export function scalingEfficiencySection(grid: readonly CellStats[], charts: ReadonlySet<string>): Block[] {
  const doc = new DocBuilder();
  doc.h(3, 'Scaling Efficiency');
  doc.p(sentences(
    'Percentage of ideal linear scaling: throughput(N) / (N x throughput(1)) at the same context and output length.',
    '100% means doubling concurrent requests doubles total throughput.',
  ));
  doc.chart('efficiency', charts);
  const topConcurrency = Math.max(...grid.map((cell) => cell.concurrency));
  const atTop = grid.filter((cell) => cell.concurrency === topConcurrency && cell.scalingEfficiency !== null);
  const highest = maxBy(atTop, (cell) => cell.scalingEfficiency);
  const lowest = minBy(atTop, (cell) => cell.scalingEfficiency);
  if (!highest || !lowest || topConcurrency <= 1) {
    doc.p('Scaling efficiency needs a concurrency-1 cell at the same context length; this run has none.');
    return doc.blocks;
  }
  const efficiency = (cell: CellStats): string =>
    `${fmtPct(cell.scalingEfficiency, 0)} (${fmtTokens(cell.contextTokens)} context)`;
  doc.p(sentences(
    `At ${topConcurrency} concurrent requests, ` +
      `scaling efficiency ranges from ${efficiency(highest)} to ${efficiency(lowest)}.`,
    contentionSentence(lowest.scalingEfficiency ?? 1),
  ));
  return doc.blocks;
}

/** GPU power and its cost, when the monitor sampled a power gauge. */
export function powerSection(report: Report, grid: readonly CellStats[], charts: ReadonlySet<string>): Block[] {
  const doc = new DocBuilder();
  doc.h(3, 'Power & Efficiency');
  const powered = report.cells.filter((cell) => cell.power !== null && cell.requests > 0);
  if (powered.length === 0) {
    doc.p(
      'GPU power was not measured in this run (no power samples from the monitor): ' +
        'energy per token and electricity cost are not reported.',
    );
    return doc.blocks;
  }
  const costs = report.options;
  doc.p(sentences(
    "GPU power draw under varying load, from the monitor's power gauge (summed over GPUs).",
    `Cost figures use **${fmtUsd(costs.usdPerKwh)}/kWh** electricity and **${fmtUsd(costs.usdPerGpuHour)}/GPU-hour** ` +
      `for ${plural(costs.gpuCount, 'GPU')} (flags --usd-per-kwh, --usd-per-gpu-hour, --gpus).`,
  ));
  doc.chart('power', charts);
  doc.chart('power_vs_concurrency', charts);
  doc.blocks.push(...peakAndMostEfficient(powered, costs.usdPerKwh));
  const gridPowered = grid.filter((cell) => cell.power !== null);
  const row = (cell: CellStats): string[] => {
    const power = cell.power!;
    return [
      cell.id,
      fmtWatts(power.meanWatts),
      fmtWatts(power.peakWatts),
      fmtJoules(power.joulesPerOutputToken),
      fmtUsd(power.totalUsdPerHour),
      fmtUsd(power.usdPerMillionTokens),
    ];
  };
  const head = ['CELL', 'MEAN POWER', 'PEAK POWER', 'ENERGY / TOKEN', 'COST / HOUR', 'COST / 1M TOKENS'];
  doc.table(head, (gridPowered.length > 0 ? gridPowered : powered).map(row));
  return doc.blocks;
}

/** The peak draw priced as electricity (provision for the peak, not the mean), and the least energy per token. */
function peakAndMostEfficient(powered: readonly CellStats[], usdPerKwh: number): Block[] {
  const doc = new DocBuilder();
  const peak = maxBy(powered, (cell) => cell.power!.peakWatts);
  if (peak) {
    const watts = peak.power!.peakWatts;
    doc.p(sentences(
      `The highest power draw observed was **${fmtWatts(watts)}** at **${fmtTokens(peak.contextTokens)}** context ` +
        `with **${plural(peak.concurrency, 'concurrent request')}**, ` +
        `costing approximately **${fmtUsd((watts / 1000) * usdPerKwh)}/hour** ` +
        `in electricity at ${fmtUsd(usdPerKwh)}/kWh.`,
      'For infrastructure planning, budget for peak power draw.',
    ));
  }
  const best = minBy(powered, (cell) => cell.power!.joulesPerOutputToken);
  if (best?.power?.joulesPerOutputToken != null) {
    doc.p(
      `The most energy-efficient cell is ${best.id} (${where(best)}) ` +
        `at ${fmtJoules(best.power.joulesPerOutputToken)} per output token, ` +
        `or ${fmtUsd(best.power.usdPerMillionTokens)} per million output tokens including GPU time.`,
    );
  }
  return doc.blocks;
}
