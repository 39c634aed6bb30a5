// The throughput-per-GPU against interactivity chart of each measured grid (sweep, mix): one line per context length
// or mix profile through its cells in order of concurrency, the Pareto frontier over all of them drawn behind the
// lines, and the use cases' minimum per-user speeds as vertical dashed lines. Runs in Node.
//
// lineChart shares one x category list between its series; here every point has its own x (its median per-user
// speed), and a line must join a context's cells in order of concurrency, not of x, so the option is built here with
// lineChart's look (palette, title, legend, limit lines).

import { LIMIT_COLOR, PALETTE, type ChartSpec } from './charts';
import { fmtTokens, plural } from './format';
import {
  frontierGrids, gridFrontier, speedFloors, type FrontierGrid, type FrontierPoint, type SpeedFloor,
} from '../analysis/frontier';
import type { Report } from './report-types';

// Amber, wide and pale behind the lines: it marks the cells on the frontier without hiding the line they lie on.
const FRONTIER_COLOR = '#f59e0b';

/** A line of the chart: one context length (sweep) or one mix profile, its points in order of concurrency. */
interface FrontierSeries {
  readonly name: string;
  readonly points: readonly FrontierPoint[];
}

/** The chart's id per grid; the sections name it the same way. */
export function frontierChartId(grid: FrontierGrid): string {
  return `frontier_${grid}`;
}

/** One chart per measured grid with points; none without a sweep or mix part. */
export function frontierCharts(report: Report): ChartSpec[] {
  const floors = speedFloors(report.useCases.map((u) => u.useCase));
  return frontierGrids(report.cells).flatMap(({ grid, cells }) => {
    const { points, frontier } = gridFrontier(cells, report.options);
    if (points.length === 0) return [];
    const series = seriesOf(grid, points, report);
    return [frontierChart(grid, series, frontier, floors, report.options.gpuCount)];
  });
}

/** Sweep: one line per context length; mix: one per profile, named as the mix charts name it. */
function seriesOf(grid: FrontierGrid, points: readonly FrontierPoint[], report: Report): FrontierSeries[] {
  const keyOf = (point: FrontierPoint): string =>
    grid === 'sweep' ? String(point.contextTokens) : (point.profile ?? point.cellId);
  const keys = [...new Set(points.map(keyOf))];
  if (grid === 'sweep') keys.sort((a, b) => Number(a) - Number(b));
  const nameOf = (key: string): string => {
    if (grid === 'sweep') return `${fmtTokens(Number(key))} context`;
    const profile = report.mixProfiles.find((m) => m.profile === key);
    return profile ? `${profile.title} (${fmtTokens(profile.contextTokens)}/${fmtTokens(profile.outputTokens)})` : key;
  };
  return keys.map((key) => ({
    name: nameOf(key),
    points: points.filter((point) => keyOf(point) === key).sort((a, b) => a.concurrency - b.concurrency),
  }));
}

const round2 = (v: number): number => Math.round(v * 100) / 100;

// A template, not a function: the HTML embeds the options as JSON. {c} is the point's [x, y].
const POINT_TOOLTIP = { formatter: '{a}<br/>{b} concurrent<br/>per user, per GPU: {c} tok/s' };

/** A point as echarts takes it: its name (the concurrency) labels it on the chart and in the tooltip. */
const datum = (point: FrontierPoint): { name: string; value: [number, number] } => ({
  name: String(point.concurrency),
  value: [round2(point.perUserTokensPerSecond), round2(point.tokensPerSecondPerGpu)],
});

function frontierChart(
  grid: FrontierGrid, series: readonly FrontierSeries[], frontier: readonly FrontierPoint[],
  floors: readonly SpeedFloor[], gpuCount: number,
): ChartSpec {
  const title = `Throughput per GPU vs Interactivity${grid === 'sweep' ? '' : ' per Scenario'}`;
  const lines = series.map((s) => ({
    name: s.name, type: 'line', symbolSize: 7, data: s.points.map(datum), tooltip: POINT_TOOLTIP,
    label: { show: true, formatter: '{b}', position: 'top', fontSize: 10, color: '#4b5563' },
  }));
  const option = {
    color: PALETTE,
    animation: false,
    backgroundColor: '#ffffff',
    title: { text: title, left: 'center', textStyle: { fontSize: 15, fontWeight: 'bold' } },
    tooltip: { trigger: 'item' },
    // Plain, so a static SVG shows every entry (a scrolling legend hides the frontier's on its second page).
    legend: { bottom: 0, itemGap: 12 },
    grid: { left: 70, right: 30, top: 60, bottom: 90 },
    xAxis: {
      type: 'value', name: 'Per-user speed (median tok/s)', nameLocation: 'middle', nameGap: 28, min: 0,
      max: axisMax(series, floors), splitLine: { show: false },
    },
    yAxis: { type: 'value', name: gpuCount === 1 ? 'tok/s per GPU' : `tok/s per GPU (of ${gpuCount})` },
    series: [...lines, frontierSeries(frontier, floors)],
  };
  const per = grid === 'sweep' ? 'context length' : 'mix scenario';
  const caption =
    `System throughput per GPU (output tok/s over ${plural(gpuCount, 'GPU')}) against each cell's median per-user ` +
    `decode speed; one line per ${per}, its points in order of concurrency (labels: concurrent requests). The ` +
    'wide amber line is the Pareto frontier: no measured point is both faster per user and more productive per GPU. ' +
    'Dashed red lines are the use cases\' minimum per-user speeds.';
  return { id: frontierChartId(grid), title, caption, option };
}

/** Behind the lines it joins (z 1); the speed floors ride on it as vertical mark lines. */
function frontierSeries(frontier: readonly FrontierPoint[], floors: readonly SpeedFloor[]): Record<string, unknown> {
  return {
    name: 'Pareto frontier', type: 'line', z: 1, symbol: 'emptyCircle', symbolSize: 15,
    color: FRONTIER_COLOR, lineStyle: { width: 10, opacity: 0.4, color: FRONTIER_COLOR },
    itemStyle: { borderWidth: 3, color: FRONTIER_COLOR },
    data: frontier.map(datum), tooltip: POINT_TOOLTIP,
    markLine: floors.length === 0 ? undefined : {
      silent: false, symbol: 'none',
      lineStyle: { type: 'dashed', color: LIMIT_COLOR, width: 2 },
      label: { formatter: '{b}', position: 'insideEndTop', color: LIMIT_COLOR, fontSize: 9 },
      data: floors.map((floor) => ({ name: floorLabel(floor), xAxis: round2(floor.tokensPerSecond) })),
    },
  };
}

/** "Chat: speed > 15 tok/s", "Interactive: TPOT p99 < 40 ms (25 tok/s)". */
export function floorLabel(floor: SpeedFloor): string {
  const speed = floor.fromTpot ? ` (${+floor.tokensPerSecond.toFixed(1)} tok/s)` : '';
  return `${floor.useCases.join(', ')}: ${floor.limit}${speed}`;
}

/**
 * echarts fits the x axis to the points alone and leaves out a mark line beyond it; a floor faster than every point
 * (no cell meets it) must still show, so the axis then reaches past the fastest floor.
 */
function axisMax(series: readonly FrontierSeries[], floors: readonly SpeedFloor[]): number | undefined {
  const fastestPoint = Math.max(...series.flatMap((s) => s.points.map((p) => p.perUserTokensPerSecond)));
  const fastestFloor = Math.max(0, ...floors.map((floor) => floor.tokensPerSecond));
  return fastestFloor > fastestPoint ? Math.ceil(fastestFloor * 1.1) : undefined;
}
