// The frontier of system throughput per GPU against per-user speed over a measured grid ("throughput per GPU vs
// interactivity", as InferenceX plots it), with each point's energy and cost per output token. Runs in Node.
//
// A cell is a point (x = its median per-user decode speed, y = its output tokens/s over the GPU count). A point is on
// the frontier when no other point is at least as fast per user and at least as productive per GPU, and better in one
// of the two: past the frontier an operator can only trade one for the other.

import type { CellStats } from './cells';
import type { CostOptions } from './power';
import type { UseCase } from '../thresholds/use-cases';

/** What a point's cost per million output tokens covers. */
export type CostBasis = 'gpu-hours+electricity' | 'gpu-hours';

export interface FrontierPoint {
  readonly cellId: string;
  readonly contextTokens: number;
  readonly outputTokens: number;
  readonly concurrency: number;
  /** The mix profile of a mix cell; null for a sweep cell. */
  readonly profile: string | null;
  /** The cell's median per-user decode speed, tok/s (x). */
  readonly perUserTokensPerSecond: number;
  /** The cell's system throughput (output tokens / wall time) over the GPU count, tok/s per GPU (y). */
  readonly tokensPerSecondPerGpu: number;
  /** Mean GPU power x wall time / output tokens, J; null where the run measured no power for the cell. */
  readonly joulesPerOutputToken: number | null;
  /** USD per million output tokens at the cell's throughput; null without output. */
  readonly usdPerMillionTokens: number | null;
  /** Where power is unknown the cost is the GPU-hours alone, an underestimate by the electricity. */
  readonly costBasis: CostBasis;
}

/** The two figures the frontier weighs. */
export interface FrontierXY {
  readonly perUserTokensPerSecond: number;
  readonly tokensPerSecondPerGpu: number;
}

/**
 * A cell as a point; null when it lacks either coordinate (no requests, no decode-speed samples). The cost is the
 * hourly price (power.ts's total where power was measured, else GPU count x GPU-hour price) over the cell's output
 * tokens per hour: the same formula as the cell's own cost figure.
 */
export function frontierPoint(cell: CellStats, cost: CostOptions): FrontierPoint | null {
  const speed = cell.metrics.decodeSpeed?.p50 ?? null;
  const throughput = cell.throughput;
  if (cell.requests === 0 || speed === null || throughput === null) return null;
  if (!isFinite(speed) || !isFinite(throughput)) return null;
  const usdPerHour = cell.power ? cell.power.totalUsdPerHour : cost.gpuCount * cost.usdPerGpuHour;
  const millionsPerHour = (throughput * 3600) / 1e6;
  return {
    cellId: cell.id,
    contextTokens: cell.contextTokens,
    outputTokens: cell.outputTokens,
    concurrency: cell.concurrency,
    profile: cell.profile ?? null,
    perUserTokensPerSecond: speed,
    tokensPerSecondPerGpu: throughput / cost.gpuCount,
    joulesPerOutputToken: cell.power?.joulesPerOutputToken ?? null,
    usdPerMillionTokens: millionsPerHour > 0 ? usdPerHour / millionsPerHour : null,
    costBasis: cell.power ? 'gpu-hours+electricity' : 'gpu-hours',
  };
}

/** b is at least as good as a on both axes and better on one. */
function dominates(b: FrontierXY, a: FrontierXY): boolean {
  const dx = b.perUserTokensPerSecond - a.perUserTokensPerSecond;
  const dy = b.tokensPerSecondPerGpu - a.tokensPerSecondPerGpu;
  return dx >= 0 && dy >= 0 && (dx > 0 || dy > 0);
}

/**
 * The points no other point dominates, slowest per user first (so the most throughput first), in input order where
 * two coincide: equal points dominate neither, so both stay, and the table shows both cells. A grid of tens of cells
 * makes the all-pairs check cheap and plain.
 */
export function paretoFrontier<T extends FrontierXY>(points: readonly T[]): T[] {
  const front = points.filter((a) => !points.some((b) => dominates(b, a)));
  return front
    .map((point, index) => ({ point, index }))
    .sort((a, b) =>
      a.point.perUserTokensPerSecond - b.point.perUserTokensPerSecond ||
      b.point.tokensPerSecondPerGpu - a.point.tokensPerSecondPerGpu ||
      a.index - b.index)
    .map(({ point }) => point);
}

/** Every measured cell of a grid as a point, and its frontier. */
export function gridFrontier(
  cells: readonly CellStats[], cost: CostOptions,
): { readonly points: FrontierPoint[]; readonly frontier: FrontierPoint[] } {
  const points = cells.map((cell) => frontierPoint(cell, cost)).filter((p): p is FrontierPoint => p !== null);
  return { points, frontier: paretoFrontier(points) };
}

/** Which measured grid a frontier is over: the sweep part's context x concurrency, or the mix part's profiles. */
export type FrontierGrid = 'sweep' | 'mix';

/** A grid's frontier as report.json holds it. */
export interface ThroughputFrontier {
  readonly grid: FrontierGrid;
  /** The GPU count the throughput was divided by (--gpus). */
  readonly gpuCount: number;
  /** The frontier's points, slowest per user (most per GPU) first. */
  readonly points: readonly FrontierPoint[];
}

/** The measured cells of the sweep and the mix grid, each where the run has one. */
export function frontierGrids(cells: readonly CellStats[]): { grid: FrontierGrid; cells: CellStats[] }[] {
  const grids: FrontierGrid[] = ['sweep', 'mix'];
  return grids
    .map((grid) => ({ grid, cells: cells.filter((cell) => cell.script === grid && cell.requests > 0) }))
    .filter((entry) => entry.cells.length > 0);
}

/** The frontier of every grid that has points. */
export function throughputFrontiers(cells: readonly CellStats[], cost: CostOptions): ThroughputFrontier[] {
  return frontierGrids(cells)
    .map(({ grid, cells: mine }) => ({ grid, gpuCount: cost.gpuCount, points: gridFrontier(mine, cost).frontier }))
    .filter((frontier) => frontier.points.length > 0);
}

/** A per-user speed below which a use case's limit breaks: a vertical line on the frontier chart. */
export interface SpeedFloor {
  readonly tokensPerSecond: number;
  /** The use cases with this floor, in their order. */
  readonly useCases: readonly string[];
  /** The limit's label as the use case states it ("speed > 15 tok/s", "TPOT p99 < 40 ms"). */
  readonly limit: string;
  /** Whether the floor is a maximum TPOT's (tokensPerSecond = 1000 / TPOT), not a minimum decode speed. */
  readonly fromTpot: boolean;
}

/**
 * The use cases' limits that have a place on a per-user-speed axis: a minimum decode speed, and a maximum TPOT, which
 * is the same limit per request (decode speed = 1000 / TPOT in ms). TTFT and e2e limits have none. Use cases with the
 * same floor share one line. The floors are the limits' values, while the points are medians: a limit checked on the
 * mean or p99 can break at a point the line shows as clear.
 */
export function speedFloors(useCases: readonly Pick<UseCase, 'title' | 'limits'>[]): SpeedFloor[] {
  const floors = new Map<string, Omit<SpeedFloor, 'useCases'> & { useCases: string[] }>();
  for (const useCase of useCases) {
    for (const limit of useCase.limits) {
      const floor = floorOf(limit);
      if (floor === null) continue;
      const key = `${floor.tokensPerSecond}|${floor.limit}`;
      const entry = floors.get(key) ?? { ...floor, useCases: [] };
      if (!entry.useCases.includes(useCase.title)) entry.useCases.push(useCase.title);
      floors.set(key, entry);
    }
  }
  return [...floors.values()].sort((a, b) => a.tokensPerSecond - b.tokensPerSecond);
}

function floorOf(limit: UseCase['limits'][number]): Omit<SpeedFloor, 'useCases'> | null {
  const below = limit.operator === '<' || limit.operator === '<=';
  if (limit.metric === 'decodeSpeed' && !below) {
    return { tokensPerSecond: limit.value, limit: limit.label, fromTpot: false };
  }
  if (limit.metric === 'tpot' && below && limit.value > 0) {
    return { tokensPerSecond: 1000 / limit.value, limit: limit.label, fromTpot: true };
  }
  return null;
}
