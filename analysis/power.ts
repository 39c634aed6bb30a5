// Power, energy per output token and cost of a cell from the monitor's GPU power gauge. Runs in Node.

import type { Series } from './server-metrics';
import { samplesNear, type Window } from './server-metrics';

/** Prices used for cost figures (CLI flags --usd-per-kwh, --usd-per-gpu-hour, --gpus). */
export interface CostOptions {
  /** Electricity price, USD per kWh. */
  readonly usdPerKwh: number;
  /** Rental or amortised price of one GPU, USD per hour. */
  readonly usdPerGpuHour: number;
  /** GPUs serving the model (multiplies the GPU-hour price; power is already summed over GPUs). */
  readonly gpuCount: number;
}

export const DEFAULT_COST: CostOptions = { usdPerKwh: 0.1, usdPerGpuHour: 2.5, gpuCount: 1 };

export interface PowerFigures {
  /** Mean GPU power over the window's samples, W (summed over GPUs). */
  readonly meanWatts: number;
  readonly peakWatts: number;
  readonly samples: number;
  /** Energy per output token, joules: mean W x window s / output tokens. Null with no output tokens. */
  readonly joulesPerOutputToken: number | null;
  /** Electricity cost per hour at the mean draw: mean kW x USD/kWh. */
  readonly electricityUsdPerHour: number;
  /** Electricity plus GPU rental per hour: electricity + gpus x USD/GPU-hour. */
  readonly totalUsdPerHour: number;
  /** Total cost per million output tokens at this cell's throughput: totalUsdPerHour / (tokens per hour / 1e6). */
  readonly usdPerMillionTokens: number | null;
}

/**
 * Power figures of a window. Energy uses the mean of the samples times the window length
 * (samples are evenly spaced by the monitor interval, so this equals the trapezoid integral
 * up to the edges). A window shorter than the monitor interval uses the nearest sample within
 * toleranceMs. Null when no power sample is that close.
 */
export function powerFigures(
  power: Series | undefined, w: Window, outputTokens: number, throughputTokensPerSecond: number, cost: CostOptions,
  toleranceMs = 0,
): PowerFigures | null {
  const xs = samplesNear(power, w, toleranceMs);
  if (xs.length === 0) return null;
  let sum = 0;
  let peak = -Infinity;
  for (const x of xs) {
    sum += x;
    if (x > peak) peak = x;
  }
  const meanWatts = sum / xs.length;
  const seconds = Math.max(0, (w.endMs - w.startMs) / 1000);
  const electricityUsdPerHour = (meanWatts / 1000) * cost.usdPerKwh;
  const totalUsdPerHour = electricityUsdPerHour + cost.gpuCount * cost.usdPerGpuHour;
  const tokensPerHour = throughputTokensPerSecond * 3600;
  return {
    meanWatts,
    peakWatts: peak,
    samples: xs.length,
    joulesPerOutputToken: outputTokens > 0 ? (meanWatts * seconds) / outputTokens : null,
    electricityUsdPerHour,
    totalUsdPerHour,
    usdPerMillionTokens: tokensPerHour > 0 ? totalUsdPerHour / (tokensPerHour / 1e6) : null,
  };
}
