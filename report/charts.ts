// ECharts options for every chart of the report, built once from the report object. Runs in Node.
// The same options serve the SVG files and the interactive HTML.
//
// Options are plain JSON (no functions), so the HTML page can embed them as they are. Threshold
// lines are dashed markLines. SVG is rendered server-side with echarts' SSR renderer.

import { createRequire } from 'node:module';
import type * as Echarts from 'echarts';
import type { CellStats } from '../analysis/cells';
import { gridCells } from './build-findings';
import type { Report } from './report-types';
import type { TrendKey } from '../analysis/cell-accumulator';
import { statistic } from '../analysis/stats';
import { fmtTokens } from './format';
import { ladderDisplay } from './capacity-words';

let loadedEcharts: typeof Echarts | undefined;

/** echarts, loaded when the first chart is drawn: its 3.7 MB take about 0.6 s of CPU, which a process that draws no
 * chart (the bench's --help, a test that builds a report without its SVGs) need not spend. */
function echarts(): typeof Echarts {
  return (loadedEcharts ??= createRequire(import.meta.url)('echarts') as typeof Echarts);
}

export interface ChartSpec {
  readonly id: string;
  readonly title: string;
  readonly caption: string;
  readonly option: Record<string, unknown>;
}

export const PALETTE = [
  '#2563eb', '#16a34a', '#ea580c', '#9333ea', '#0891b2', '#dc2626', '#ca8a04', '#4b5563', '#db2777', '#65a30d',
];
export const LIMIT_COLOR = '#dc2626';
export const CHART_WIDTH = 820;
export const CHART_HEIGHT = 420;

type Num = number | null;

function round(v: Num, digits = 2): Num {
  if (v === null || !isFinite(v)) return null;
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}

export interface SeriesIn {
  readonly name: string;
  readonly data: readonly Num[];
  readonly yAxisIndex?: number;
  readonly thresholds?: readonly { readonly value: number; readonly label: string }[];
  /** Vertical dashed markers at x values (e.g. the capacity estimate). */
  readonly xMarks?: readonly { readonly value: number; readonly label: string }[];
  readonly dashed?: boolean;
}

export interface LineChartIn {
  readonly id: string;
  readonly title: string;
  readonly caption: string;
  readonly xName: string;
  readonly categories: readonly string[];
  /**
   * category: evenly spaced labels (context lengths); value / log: numeric x (concurrency, queue depth), categories
   * parsed as numbers.
   */
  readonly xType?: 'category' | 'value' | 'log';
  readonly yNames: readonly string[];
  readonly series: readonly SeriesIn[];
}

export function lineChart(c: LineChartIn): ChartSpec {
  const option = {
    color: PALETTE,
    animation: false,
    backgroundColor: '#ffffff',
    title: { text: c.title, left: 'center', textStyle: { fontSize: 15, fontWeight: 'bold' } },
    tooltip: { trigger: 'axis' },
    legend: { type: 'scroll', bottom: 0 },
    grid: { left: 70, right: c.yNames.length > 1 ? 70 : 30, top: 60, bottom: 70 },
    xAxis:
      (c.xType ?? 'category') === 'category'
        ? {
            type: 'category', name: c.xName, nameLocation: 'middle', nameGap: 28, data: [...c.categories],
            boundaryGap: false,
          }
        : {
            type: c.xType, name: c.xName, nameLocation: 'middle', nameGap: 28, min: c.xType === 'log' ? 1 : 0,
            ...(c.xType === 'log' ? { logBase: 2 } : {}), max: Math.max(...c.categories.map(Number)),
            splitLine: { show: false },
          },
    yAxis: c.yNames.map((name, i) => ({
      type: 'value', name, position: i === 0 ? 'left' : 'right', splitLine: { show: i === 0 }, scale: false,
    })),
    series: c.series.map((s) => ({
      name: s.name,
      type: 'line',
      yAxisIndex: s.yAxisIndex ?? 0,
      connectNulls: true,
      symbolSize: 7,
      data:
        (c.xType ?? 'category') === 'category'
          ? s.data.map((v) => round(v))
          : s.data.map((v, i) => [Number(c.categories[i]), round(v)]).filter((p) => p[1] !== null),
      lineStyle: s.dashed ? { type: 'dotted' } : undefined,
      markLine:
        (s.thresholds?.length ?? 0) + (s.xMarks?.length ?? 0) > 0
          ? {
              silent: false,
              symbol: 'none',
              lineStyle: { type: 'dashed', color: LIMIT_COLOR, width: 2 },
              label: { formatter: '{b}', position: 'insideEndTop', color: LIMIT_COLOR },
              data: [
                ...(s.thresholds ?? []).map((t) => ({ name: t.label, yAxis: t.value })),
                ...(s.xMarks ?? []).map((t) => ({
                  name: t.label, xAxis: t.value, lineStyle: { type: 'dashed', color: '#6b7280', width: 1.5 },
                  label: { formatter: '{b}', position: 'end', color: '#374151' },
                })),
              ],
            }
          : undefined,
    })),
  };
  return { id: c.id, title: c.title, caption: c.caption, option };
}

/** Grid helpers: x = context length, one line per concurrency. */
function byContext(
  cells: readonly CellStats[], id: string, title: string, caption: string, yName: string, get: (c: CellStats) => Num,
): ChartSpec | null {
  const contexts = [...new Set(cells.map((c) => c.contextTokens))].sort((a, b) => a - b);
  const concs = [...new Set(cells.map((c) => c.concurrency))].sort((a, b) => a - b);
  const series = concs.map((n) => ({
    name: `${n} concurrent`,
    data: contexts.map((ctx) => {
      const cell = cells.find((c) => c.contextTokens === ctx && c.concurrency === n);
      return cell ? get(cell) : null;
    }),
  }));
  if (series.every((s) => s.data.every((v) => v === null))) return null;
  return lineChart({
    id, title, caption, xName: 'Context length (tokens)', categories: contexts.map(fmtTokens), yNames: [yName], series,
  });
}

/** x = concurrency, one line per group (context, profile, ...). */
function byConcurrency(
  groups: readonly { name: string; cells: readonly CellStats[] }[], id: string, title: string, caption: string,
  xName: string, yName: string, get: (c: CellStats) => Num, thresholds?: readonly { value: number; label: string }[],
  xType: 'value' | 'log' = 'value',
): ChartSpec | null {
  const concs = [...new Set(groups.flatMap((g) => g.cells.map((c) => c.concurrency)))].sort((a, b) => a - b);
  const series = groups.map((g, i) => ({
    name: g.name,
    data: concs.map((n) => {
      const cell = g.cells.find((c) => c.concurrency === n);
      return cell ? get(cell) : null;
    }),
    ...(i === 0 && thresholds ? { thresholds } : {}),
  }));
  if (series.every((s) => s.data.every((v) => v === null))) return null;
  return lineChart({ id, title, caption, xName, categories: concs.map(String), xType, yNames: [yName], series });
}

const mean = (k: TrendKey) => (c: CellStats): Num => c.metrics[k]?.mean ?? null;
const meanSeconds = (k: TrendKey) => (c: CellStats): Num => {
  const v = c.metrics[k]?.mean;
  return v === undefined ? null : v / 1000;
};

function stat(c: CellStats, k: TrendKey, limitStat: string): Num {
  return statistic(c.metrics[k], limitStat);
}

/** Builds every chart the report's data supports; charts without data are left out. */
export function buildCharts(report: Report): ChartSpec[] {
  const out: (ChartSpec | null)[] = [...gridCharts(report)];
  for (const u of report.useCases) out.push(useCaseChart(report, u));
  if (report.bursts.length > 0) out.push(...burstCharts(report));
  if (report.mixProfiles.length > 0) out.push(...mixCharts(report));
  return out.filter((c): c is ChartSpec => c !== null);
}

/** The grid part's charts: one line per concurrency over the context lengths, and power against concurrency. */
function gridCharts(report: Report): (ChartSpec | null)[] {
  const out: (ChartSpec | null)[] = [];
  const grid = gridCells(report);
  const range =
    grid.length > 0
      ? `${fmtTokens(Math.min(...grid.map((c) => c.contextTokens)))} - ` +
        `${fmtTokens(Math.max(...grid.map((c) => c.contextTokens)))} tokens context at ` +
        `${Math.min(...grid.map((c) => c.concurrency))} - ${Math.max(...grid.map((c) => c.concurrency))} ` +
        'concurrent requests'
      : '';
  out.push(byContext(
    grid, 'throughput', 'System Throughput', `Average system throughput (output tok/s) across ${range}.`, 'tok/s',
    (c) => c.throughput,
  ));
  out.push(byContext(
    grid, 'decode_speed', 'Per-User Generation Speed', `Average per-user generation speed across ${range}.`, 'tok/s',
    mean('decodeSpeed'),
  ));
  out.push(byContext(
    grid, 'ttft', 'Time to First Token', `Average time to first token across ${range}.`, 'seconds',
    meanSeconds('ttft'),
  ));
  out.push(byContext(
    grid, 'queue_wait', 'Queue Wait Time', `Average server-side queue wait time across ${range}.`, 'seconds',
    (c) => ((c.server?.queueWaitMs ?? null) === null ? null : c.server!.queueWaitMs! / 1000),
  ));
  out.push(byContext(
    grid, 'prefill_speed', 'Per-User Prefill Speed', `Average per-user prefill speed across ${range}.`, 'tok/s',
    mean('prefillSpeed'),
  ));
  out.push(byContext(
    grid, 'itl', 'Inter-Token Latency', `Average inter-token latency across ${range}.`, 'ms', mean('itl'),
  ));
  out.push(byContext(
    grid, 'efficiency', 'Scaling Efficiency',
    `Scaling efficiency (throughput(N) / (N x throughput(1))) across ${range}.`, '%',
    (c) => (c.scalingEfficiency === null ? null : c.scalingEfficiency * 100),
  ));
  out.push(byContext(
    grid, 'power', 'Power Consumption', `Average GPU power draw across ${range}.`, 'W',
    (c) => c.power?.meanWatts ?? null,
  ));
  const contexts = [...new Set(grid.map((c) => c.contextTokens))].sort((a, b) => a - b);
  out.push(byConcurrency(
    contexts.map((ctx) => ({
      name: `${fmtTokens(ctx)} context`, cells: grid.filter((c) => c.contextTokens === ctx),
    })),
    'power_vs_concurrency', 'Power vs Concurrency',
    'Average GPU power draw at each concurrency, one line per context length.', 'Concurrent requests', 'W',
    (c) => c.power?.meanWatts ?? null,
  ));
  return out;
}

/** One use case's ladder: its time limit and generation speed (or throughput) against concurrency. */
function useCaseChart(report: Report, u: Report['useCases'][number]): ChartSpec | null {
  const st = report.limitStat;
  const ladder = report.cells.filter((c) => u.cellIds.includes(c.id) && c.requests > 0)
    .sort((a, b) => a.concurrency - b.concurrency);
  if (ladder.length === 0) return null;
  const categories = ladder.map((c) => String(c.concurrency));
  const series: SeriesIn[] = [];
  const names: string[] = [];
  const timeLimit = u.useCase.limits.find((l) => ['ttft', 'e2e', 'itl', 'tpot'].includes(l.metric));
  const speedLimit = u.useCase.limits.find((l) => l.metric === 'decodeSpeed');
  if (timeLimit) {
    const k = timeLimit.metric as TrendKey;
    const seconds = k === 'ttft' || k === 'e2e';
    names.push(seconds ? 'seconds' : 'ms');
    const label = k === 'e2e' ? 'End-to-end latency' : k === 'ttft' ? 'TTFT' : k.toUpperCase();
    series.push({
      name: `${label} (${st})`, yAxisIndex: 0,
      data: ladder.map((c) => {
        const v = stat(c, k, st);
        return v === null ? null : seconds ? v / 1000 : v;
      }),
      thresholds: [{ value: seconds ? timeLimit.value / 1000 : timeLimit.value, label: timeLimit.label }],
    });
  }
  if (speedLimit) {
    names.push('tok/s');
    series.push({
      name: `Generation speed (${st})`, yAxisIndex: names.length - 1,
      data: ladder.map((c) => stat(c, 'decodeSpeed', st)),
      thresholds: [{ value: speedLimit.value, label: speedLimit.label }],
    });
  } else {
    names.push('tok/s');
    series.push({ name: 'System throughput', yAxisIndex: names.length - 1, data: ladder.map((c) => c.throughput) });
  }
  const est = u.result.estimate;
  if (est !== null && series[0] && u.result.kind === 'within')
    series[0] = { ...series[0], xMarks: [{ value: est, label: `capacity ${ladderDisplay(u.result)}` }] };
  return lineChart({
    xType: 'value', id: `usecase_${u.useCase.id}`,
    title: `${u.useCase.title} (${fmtTokens(u.useCase.contextTokens)} Context)`,
    caption: `${st === 'avg' ? 'Average' : st} ${series
      .map((s) => {
        const n = s.name.replace(/ \(.*\)$/, '');
        return /^[A-Z]{2,}/.test(n) ? n : n.toLowerCase();
      })
      .join(' and ')} at ${fmtTokens(u.useCase.contextTokens)} context. Dashed lines indicate quality thresholds.`,
    xName: 'Concurrent requests', categories, yNames: names, series,
  });
}

/** The burst part's charts, against queue depth on a log axis. */
function burstCharts(report: Report): (ChartSpec | null)[] {
  const out: (ChartSpec | null)[] = [];
  const st = report.limitStat;
  const groups = report.bursts.map((b) => ({
    name: b.title, cells: report.cells.filter((c) => b.cellIds.includes(c.id) && c.requests > 0),
  }));
  const limit = [{ value: report.burstTtftLimitMs / 1000, label: `TTFT ${report.burstTtftLimitMs / 1000}s` }];
  out.push(byConcurrency(
    groups, 'burst_ttft', 'TTFT vs Queue Depth',
    `TTFT (seconds, ${st}) at each queue depth under simultaneous burst load. The dashed line marks the ` +
    `${report.burstTtftLimitMs / 1000}s threshold.`,
    'Queue depth (simultaneous requests)', 'seconds',
    (c) => {
      const v = stat(c, 'ttft', st);
      return v === null ? null : v / 1000;
    },
    limit, 'log',
  ));
  out.push(byConcurrency(
    groups, 'burst_itl', 'Inter-Token Latency vs Queue Depth',
    'Average inter-token latency (ms) at each queue depth.', 'Queue depth (simultaneous requests)', 'ms',
    mean('itl'), undefined, 'log',
  ));
  out.push(byConcurrency(
    groups, 'burst_decode', 'Per-User Decode Speed vs Queue Depth',
    'Per-user decode speed (tok/s) at each queue depth.', 'Queue depth (simultaneous requests)', 'tok/s',
    mean('decodeSpeed'), undefined, 'log',
  ));
  return out;
}

/** The mix part's charts, one line per scenario. */
function mixCharts(report: Report): (ChartSpec | null)[] {
  const out: (ChartSpec | null)[] = [];
  const groups = report.mixProfiles.map((m) => ({
    name: `${m.title} (${fmtTokens(m.contextTokens)}/${fmtTokens(m.outputTokens)})`,
    cells: report.cells.filter((c) => m.cellIds.includes(c.id) && c.requests > 0),
  }));
  out.push(byConcurrency(
    groups, 'mix_decode', 'Decode Speed per Scenario',
    'Per-user decode speed (tok/s) at each concurrent-user level. One line per scenario.', 'Concurrent users',
    'tok/s', mean('decodeSpeed'),
  ));
  out.push(byConcurrency(
    groups, 'mix_itl', 'Inter-Token Latency per Scenario',
    'Average inter-token latency (ms) at each concurrent-user level.', 'Concurrent users', 'ms', mean('itl'),
  ));
  out.push(byConcurrency(
    groups, 'mix_ttft', 'TTFT per Scenario', 'Average TTFT (seconds) at each concurrent-user level.',
    'Concurrent users', 'seconds', meanSeconds('ttft'),
  ));
  out.push(byConcurrency(
    groups, 'mix_throughput', 'System Throughput per Scenario',
    'System throughput (tok/s) at each concurrent-user level.', 'Concurrent users', 'tok/s', (c) => c.throughput,
  ));
  out.push(byConcurrency(
    groups, 'mix_efficiency', 'Scaling Efficiency per Scenario',
    'Scaling efficiency (%) at each concurrent-user level relative to ideal linear scaling.', 'Concurrent users',
    '%', (c) => (c.scalingEfficiency === null ? null : c.scalingEfficiency * 100),
  ));
  return out;
}

/** Renders one chart to an SVG string with echarts' server-side renderer. */
export function renderChartSvg(spec: ChartSpec, width = CHART_WIDTH, height = CHART_HEIGHT): string {
  const chart = echarts().init(null, null, { renderer: 'svg', ssr: true, width, height });
  try {
    chart.setOption(spec.option as Echarts.EChartsCoreOption);
    return processIndependentIds(chart.renderToSVGString());
  } finally {
    chart.dispose();
  }
}

/**
 * An SVG's ids as if it were the process's first chart. zrender numbers its painters and CSS classes with counters
 * global to the process, so the same chart drawn after others (another example, a concurrent report) would carry
 * other ids and other bytes; each SVG file stands alone, so renumbering within it keeps every id distinct.
 */
function processIndependentIds(svg: string): string {
  const classes = new Map<string, number>();
  return svg
    .replace(/\bzr\d+-cls-(\d+)\b/g, (_match, n: string) => {
      if (!classes.has(n)) classes.set(n, classes.size);
      return `zr0-cls-${classes.get(n)}`;
    })
    .replace(/\bzr\d+-/g, 'zr0-');
}
