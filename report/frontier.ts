// The frontier of system throughput per GPU against per-user speed over a measured grid ("throughput per GPU vs
// interactivity", as InferenceX plots it), with each point's energy and cost per output token. Runs in Node.
//
// A cell is a point (x = its median per-user decode speed, y = its output tokens/s over the GPU count). A point is on
// the frontier when no other point is at least as fast per user and at least as productive per GPU, and better in one
// of the two: past the frontier an operator can only trade one for the other.

import type { CellStats } from './cells';
import type { CostOptions } from './power';

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
