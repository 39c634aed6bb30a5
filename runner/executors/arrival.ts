// Start offsets of arrival-rate iterations: constant spacing, or the integral of a piecewise-linear rate. Runs in Node.
import type { ScenarioConfig } from '../options';

type ArrivalConfig = Extract<ScenarioConfig, { executor: 'constant-arrival-rate' | 'ramping-arrival-rate' }>;

/**
 * Yields iteration start offsets in ms from the scenario start. Constant rate: k * timeUnit / rate,
 * from 0 up to and including the duration (a real k6 started 7 iterations for rate 2/s over 3 s).
 * Ramping: the k-th start is where the cumulative count of the linearly interpolated rate reaches k.
 */
export function* arrivalOffsetsMs(cfg: ArrivalConfig): Generator<number> {
  if (cfg.executor === 'constant-arrival-rate') {
    const step = cfg.timeUnitMs / cfg.rate;
    for (let k = 0; ; k++) yield k * step;
  }
  let base = 0;
  let count = 0;
  let from = cfg.startRate;
  let k = from > 0 ? 0 : 1;
  for (const stage of cfg.stages) {
    const T = stage.durationMs;
    const a = from / cfg.timeUnitMs;
    const b = stage.target / cfg.timeUnitMs;
    // Iterations started within the stage by time t: a*t + (b-a)*t^2/(2T).
    const inStage = ((a + b) / 2) * T;
    while (k <= count + inStage + 1e-9) {
      const need = k - count;
      let t: number;
      const c2 = (b - a) / (2 * T);
      if (Math.abs(c2) < 1e-15) t = a > 0 ? need / a : T;
      else t = (-a + Math.sqrt(Math.max(0, a * a + 4 * c2 * need))) / (2 * c2);
      yield base + Math.min(T, Math.max(0, t));
      k++;
    }
    count += inStage;
    base += T;
    from = stage.target;
  }
}
