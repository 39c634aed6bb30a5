// The cut-offs that judge a measured figure in the report, one table for its guide tables and its sentences alike. Runs in Node.
//
// A sentence and a table that judge the same figure read the same band here, so they cannot
// disagree; to move a cut-off, change it here only.

/** One band of a graded figure: values at or above the previous band's `below` and under its own (null: no upper end). */
export interface Band {
  readonly below: number | null;
}

/** Per-user generation speed (tok/s) against reading speed. */
export interface SpeedBand extends Band {
  /** The guide table's "user experience" column. */
  readonly experience: string;
  /** Completes "this configuration …" for the slowest measured cell. */
  readonly atSlowest: string;
}

/** Time to first token (ms): how long the wait feels. */
export interface TtftBand extends Band {
  /** The guide table's "user experience" column. */
  readonly experience: string;
}

/** Inter-token latency (ms): whether streaming looks smooth. */
export interface ItlBand extends Band {
  /** Follows the highest measured ITL in its sentence. */
  readonly atHighest: string;
}

export interface Judgement {
  readonly decodeSpeedTokS: readonly SpeedBand[];
  readonly ttftMs: readonly TtftBand[];
  readonly itlMs: readonly ItlBand[];
  /** Mean server queue wait (ms) above which requests wait for the GPU rather than being served at once. */
  readonly queueSaturatedAboveMs: number;
  /** Scaling efficiency (0..1) below which adding requests brings diminishing returns. */
  readonly severeContentionBelow: number;
  /** Prefix-cache hit rate (0..1) from which a cell counts as hitting: the smallest rate the one-decimal column shows as 0.1%, not 0.0%. */
  readonly prefixCacheHitFrom: number;
}

export const JUDGEMENT: Judgement = {
  decodeSpeedTokS: [
    { below: 15, experience: 'Slow; may be slower than reading speed', atSlowest: 'slows below reading speed in the most demanding scenarios' },
    { below: 25, experience: 'Acceptable; keeps pace with reading', atSlowest: 'keeps pace with reading even in the most demanding scenario' },
    { below: 50, experience: 'Fast; exceeds reading speed', atSlowest: 'remains fast across all tested scenarios' },
    { below: null, experience: 'Very fast; text appears nearly instantly', atSlowest: 'is very fast, even under maximum load' },
  ],
  ttftMs: [
    { below: 500, experience: 'Feels instant' },
    { below: 2000, experience: 'Feels responsive' },
    { below: 5000, experience: 'Noticeable but still acceptable' },
    { below: 10000, experience: 'Feels slow; generally acceptable at higher context lengths' },
    { below: null, experience: 'Can be frustrating; users may retry or abandon' },
  ],
  itlMs: [
    { below: 20, atHighest: 'still imperceptible to users' },
    { below: 70, atHighest: 'noticeable but acceptable' },
    { below: null, atHighest: 'where individual tokens become visible as they stream' },
  ],
  queueSaturatedAboveMs: 1000,
  severeContentionBelow: 0.5,
  prefixCacheHitFrom: 0.0005,
};

/** The band a value falls in; past the last bound (or NaN), the open top band. */
export function bandOf<B extends Band>(bands: readonly B[], v: number): B {
  return bands.find((b) => b.below !== null && v < b.below) ?? bands[bands.length - 1]!;
}

export function queueSaturated(queueWaitMs: number): boolean {
  return queueWaitMs > JUDGEMENT.queueSaturatedAboveMs;
}

export function severeContention(scalingEfficiency: number): boolean {
  return scalingEfficiency < JUDGEMENT.severeContentionBelow;
}

export function prefixCacheHit(hitRate: number): boolean {
  return hitRate >= JUDGEMENT.prefixCacheHitFrom;
}
