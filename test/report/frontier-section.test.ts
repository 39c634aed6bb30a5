// Tests report/sections/frontier.ts and report/charts-frontier.ts on a hand-made grid: the frontier's table, its
// energy and cost columns with and without power, and the chart's lines, frontier and speed floors.
// Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import type { CellStats } from '../../analysis/cells';
import { renderChartSvg } from '../../report/charts';
import { frontierCharts } from '../../report/charts-frontier';
import { throughputFrontiers } from '../../analysis/frontier';
import type { PowerFigures } from '../../analysis/power';
import type { Report } from '../../report/report-types';
import { frontierSection } from '../../report/sections/frontier';
import { USE_CASES } from '../../thresholds/use-cases';
import { cell, flat } from './helpers';

const OPTIONS = { usdPerKwh: 0.1, usdPerGpuHour: 2.5, gpuCount: 2, minSuccessRate: 0.99 };

const sweep = (contextTokens: number, concurrency: number, speed: number, throughput: number): CellStats => cell({
  id: `sweep_c${contextTokens}_n${concurrency}`, script: 'sweep', contextTokens, concurrency, throughput,
  metrics: { decodeSpeed: flat(speed) },
});

// Per GPU (2 GPUs): 1K (100, 50) (90, 90) (60, 160); 8K (80, 40) and (70, 70), both beaten by 1K at 2, and (40, 200).
const GRID = [
  sweep(1024, 1, 100, 100), sweep(1024, 2, 90, 180), sweep(1024, 4, 60, 320),
  sweep(8192, 1, 80, 80), sweep(8192, 2, 70, 140), sweep(8192, 4, 40, 400),
];

/** General Chatbot (speed > 15) and Automated Coding Assistant (speed > 20): two floors. */
function reportOf(cells: readonly CellStats[], extra: Partial<Report> = {}): Report {
  const useCases = [USE_CASES[2]!, USE_CASES[4]!].map((useCase) => ({ useCase }));
  const frontiers = throughputFrontiers(cells, OPTIONS);
  return { cells, useCases, options: OPTIONS, mixProfiles: [], frontiers, ...extra } as unknown as Report;
}

const tableOf = (report: Report, grid: 'sweep' | 'mix') => {
  const table = frontierSection(report, grid, new Set()).find((b) => b.kind === 'table');
  return table?.kind === 'table' ? table : null;
};
const textOf = (report: Report, grid: 'sweep' | 'mix'): string =>
  frontierSection(report, grid, new Set()).map((b) => ('text' in b ? b.text : '')).join('\n');

describe('the frontier section', () => {
  it('lists the frontier, most per GPU first; without power, energy is n/a and the cost the GPU-hours only', () => {
    const report = reportOf(GRID);
    // $2.50 x 2 GPUs = $5/h: 400 tok/s is 1.44 million tokens/h, $3.47 per million;
    // 320 tok/s: $4.34; 180: $7.72; 100: $13.89.
    expect(tableOf(report, 'sweep')!.rows).toEqual([
      ['8K', '4', '200.0 tok/s', '40.0 tok/s', 'n/a', '$3.47 (GPU-hours only)'],
      ['1K', '4', '160.0 tok/s', '60.0 tok/s', 'n/a', '$4.34 (GPU-hours only)'],
      ['1K', '2', '90.0 tok/s', '90.0 tok/s', 'n/a', '$7.72 (GPU-hours only)'],
      ['1K', '1', '50.0 tok/s', '100.0 tok/s', 'n/a', '$13.89 (GPU-hours only)'],
    ]);
    expect(textOf(report, 'sweep')).toContain('GPU power was not measured for these cells');
    expect(textOf(report, 'sweep')).toContain('(2 GPUs x $2.50/GPU-hour + mean kW x $0.10/kWh)');
  });

  it('with power on one frontier cell: its energy, electricity in its cost, and the others named as lacking it', () => {
    // 1,152 W at 320 tok/s = 3.6 J per token; $5/h + 1.152 kW x $0.10 = $5.1152/h over 1.152 million tokens/h.
    const power: PowerFigures = {
      meanWatts: 1152, peakWatts: 1200, samples: 5, joulesPerOutputToken: 3.6, electricityUsdPerHour: 0.1152,
      totalUsdPerHour: 5.1152, usdPerMillionTokens: 5.1152 / 1.152,
    };
    const cells = GRID.map((c) => (c.id === 'sweep_c1024_n4' ? { ...c, power } : c));
    const report = reportOf(cells);
    expect(tableOf(report, 'sweep')!.rows[1]).toEqual(['1K', '4', '160.0 tok/s', '60.0 tok/s', '3.60 J', '$4.44']);
    expect(textOf(report, 'sweep')).toContain('GPU power was not measured for 3 of these cells');
  });

  it('speaks of the use cases\' vertical lines only where some use case has a speed floor', () => {
    expect(textOf(reportOf(GRID), 'sweep')).toContain('A use case\'s minimum speed is a vertical line');
    const noFloors = { ...reportOf(GRID), useCases: [{ useCase: USE_CASES[0]! }] } as unknown as Report; // e2e only
    expect(textOf(noFloors, 'sweep')).not.toContain('vertical line');
  });

  it('names a mix row by its scenario, and is absent for a grid the run lacks', () => {
    const mix = cell({
      id: 'mix_rag_n4', script: 'mix', profile: 'rag', concurrency: 4, throughput: 300,
      metrics: { decodeSpeed: flat(30) },
    });
    const mixProfiles = [{ profile: 'rag', title: 'RAG', contextTokens: 16384, outputTokens: 512, cellIds: [mix.id] }];
    const report = reportOf([mix], { mixProfiles });
    expect(tableOf(report, 'mix')!.rows.map((row) => row[0])).toEqual(['RAG']);
    expect(frontierCharts(report).map((spec) => [spec.id, spec.title]))
      .toEqual([['frontier_mix', 'Throughput per GPU vs Interactivity per Scenario']]);
    const heading = 'Throughput per GPU vs Interactivity per Scenario';
    expect(frontierSection(report, 'mix', new Set())[0]).toMatchObject({ text: heading });
    expect(frontierSection(report, 'sweep', new Set())).toEqual([]);
  });
});

describe('the frontier chart', () => {
  it('draws a line per context in order of concurrency, the frontier over all, and one dashed line per floor', () => {
    const [spec, ...others] = frontierCharts(reportOf(GRID));
    expect(others).toEqual([]);
    expect(spec!.id).toBe('frontier_sweep');
    type Series = { name: string; data: { name: string; value: number[] }[]; markLine?: unknown };
    const series = spec!.option.series as Series[];
    expect(series.map((s) => s.name)).toEqual(['1K context', '8K context', 'Pareto frontier']);
    expect(series[1]!.data).toEqual([
      { name: '1', value: [80, 40] }, { name: '2', value: [70, 70] }, { name: '4', value: [40, 200] },
    ]);
    expect(series[2]!.data.map((d) => d.value)).toEqual([[40, 200], [60, 160], [90, 90], [100, 50]]);
    expect(series[2]!.markLine).toMatchObject({
      data: [
        { name: 'General Chatbot: speed > 15 tok/s', xAxis: 15 },
        { name: 'Automated Coding Assistant: speed > 20 tok/s', xAxis: 20 },
      ],
    });
    expect((spec!.option.xAxis as { max?: number }).max).toBeUndefined();
    const svg = renderChartSvg(spec!);
    expect(svg).toMatch(/^<svg/);
    expect(svg).toContain('Pareto frontier');
    // The same chart drawn after another is the same bytes: zrender's ids count across the process.
    renderChartSvg(spec!);
    expect(renderChartSvg(spec!)).toBe(svg);
    expect(svg).toContain('zr0-cls-0');
  });

  it('stretches the x axis to a floor no cell reaches, so its line still shows', () => {
    const slow = [sweep(1024, 1, 12, 100), sweep(1024, 2, 10, 180)];
    const [spec] = frontierCharts(reportOf(slow));
    // The fastest floor is 20 tok/s, past the fastest point (12): 20 x 1.1 = 22.
    expect((spec!.option.xAxis as { max?: number }).max).toBe(22);
  });

  it('draws nothing for a run without sweep or mix cells', () => {
    expect(frontierCharts(reportOf([cell({ script: 'capacity', metrics: { decodeSpeed: flat(30) } })]))).toEqual([]);
  });
});
