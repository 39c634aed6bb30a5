// The open-loop benchmark's pure figures (bench/open-loop.ts): issue 32's targets, the arrival statistics, the
// summary reader, the rows and their tables. No I/O and no timing here, so test/bench/open-loop.test.ts checks them
// against hand-worked numbers. Runs in Node.

import { k6Percentile } from '../lib/percentile';

/** The coordinated-omission run's rate, requests/s. */
export const STALL_RATE = 10;

/** Issue 32's targets. */
export const TARGETS = {
  /** Mean arrival rate within this share of the offered rate. */
  rateShare: 0.01,
  /** Coefficient of variation of the gaps within this of 1.0 (Poisson). */
  cvFromOne: 0.05,
  /** Schedule lag p99, ms. */
  lagP99Ms: 5,
} as const;

// ---------------------------------------------------------------------------------------------
// Measurement maths (pure)

/** Gaps between successive arrivals, ms (sorted first: the server stamps arrivals in the order it reads them). */
export function interArrivalGapsMs(timesMs: readonly number[]): number[] {
  const s = [...timesMs].sort((a, b) => a - b);
  return s.slice(1).map((t, i) => t - s[i]!);
}

/**
 * Mean arrival rate, requests/s: 1 / mean gap = (n - 1) / (last - first) x 1000; NaN under two arrivals. Over a
 * schedule rescaled to fill its cell with n + 1 gaps (lib/arrivals.ts) it reads about 1 / (rate x duration) high:
 * the two edge gaps are outside the span.
 */
export function meanRatePerSecond(timesMs: readonly number[]): number {
  if (timesMs.length < 2) return NaN;
  const span = Math.max(...timesMs) - Math.min(...timesMs);
  return span > 0 ? ((timesMs.length - 1) * 1000) / span : NaN;
}

/** Sample standard deviation (n - 1) over the mean: 1 for a Poisson process's gaps; NaN under two values. */
export function coefficientOfVariation(values: readonly number[]): number {
  if (values.length < 2) return NaN;
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const ss = values.reduce((a, v) => a + (v - mean) ** 2, 0);
  return Math.sqrt(ss / (values.length - 1)) / mean;
}

/** k6's percentile (lib/percentile.ts, as the summary's p(99)) of an unsorted list, p in 0..1; NaN for none. */
export function percentileOf(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = Float64Array.from(values).sort();
  return k6Percentile(sorted, sorted.length, p);
}

/** How many times fall in [fromMs, toMs). */
export function countWithin(timesMs: readonly number[], fromMs: number, toMs: number): number {
  return timesMs.filter((t) => t >= fromMs && t < toMs).length;
}

export interface RateFigures {
  readonly targetRate: number;
  readonly meanRate: number;
  readonly cv: number;
  readonly lagP99Ms: number;
  readonly sent: number;
  readonly scheduled: number;
}

/** Which of issue 32's targets a rate run met; a figure that is missing (NaN) meets none. */
export function rateTargetsMet(f: RateFigures): { rate: boolean; cv: boolean; lag: boolean; allSent: boolean } {
  return {
    rate: Math.abs(f.meanRate / f.targetRate - 1) <= TARGETS.rateShare,
    cv: Math.abs(f.cv - 1) <= TARGETS.cvFromOne,
    lag: f.lagP99Ms <= TARGETS.lagP99Ms,
    allSent: f.sent === f.scheduled,
  };
}

/** Whether a stall of stallMs shows in the p99 of TTFT from the actual and the intended send (half of it or more). */
export function stallShown(p99Ms: number, stallMs: number): boolean {
  return p99Ms >= stallMs / 2;
}

// ---------------------------------------------------------------------------------------------
// k6's summary and the rows

export interface Summary {
  readonly metrics: Readonly<Record<string, { readonly values: Readonly<Record<string, number>> } | undefined>>;
}

/** A statistic of k6's summary: the cell's sub-metric when the plan made one, else the metric (one cell per run). */
export function summaryValue(summary: Summary | null, metric: string, cellId: string, stat: string): number {
  const m = summary?.metrics[`${metric}{cell:${cellId}}`] ?? summary?.metrics[metric];
  return m?.values[stat] ?? NaN;
}

export interface RateRow extends RateFigures {
  readonly seconds: number;
  readonly arrived: number;
  readonly intendedMeanRate: number;
  readonly intendedCv: number;
  readonly lagP50Ms: number;
  readonly lagMaxMs: number;
  readonly achievedRate: number;
  readonly failed: number;
  readonly problem: string;
}

export interface Spread {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

export interface StallRow {
  readonly seconds: number;
  readonly stallMs: number;
  /** When the stall began, s after the cell's start. */
  readonly stallAtSeconds: number;
  readonly scheduled: number;
  readonly sent: number;
  readonly arrived: number;
  readonly arrivedInStall: number;
  readonly ttft: Spread;
  readonly ttftIntended: Spread;
  /** The server's own TTFT, first token written minus arrival (ground truth). */
  readonly serverTtft: Spread;
  readonly problem: string;
}

// ---------------------------------------------------------------------------------------------
// Tables

const f = (v: number, d = 1): string => (Number.isFinite(v) ? v.toFixed(d) : 'n/a');
const met = (ok: boolean): string => (ok ? 'met' : '**missed**');
const cellText = (s: string): string => s.replace(/\|/g, '\\|');

export function renderRateTable(rows: readonly RateRow[]): string {
  const lines = [
    '| offered (req/s) | s | mean rate, server (intended) | within 1% | CV of gaps, server (intended) | ' +
    'within 5% of 1 | schedule lag p50 / p99 / max (ms) | p99 <= 5 ms | achieved rate (req/s) | ' +
    'sent / scheduled (arrived) | ' +
    'none dropped | note |',
    '|---:|---:|---:|:---:|---:|:---:|---:|:---:|---:|---:|:---:|---|',
  ];
  for (const r of rows) {
    const ok = rateTargetsMet(r);
    lines.push(
      `| ${r.targetRate} | ${r.seconds} | ${f(r.meanRate, 3)} (${f(r.intendedMeanRate, 3)}) | ${met(ok.rate)} | ` +
      `${f(r.cv, 3)} (${f(r.intendedCv, 3)}) | ${met(ok.cv)} | ${f(r.lagP50Ms, 2)} / ${f(r.lagP99Ms, 2)} / ` +
      `${f(r.lagMaxMs, 2)} | ${met(ok.lag)} | ${f(r.achievedRate, 3)} | ` +
      `${f(r.sent, 0)} / ${r.scheduled} (${r.arrived}) | ` +
      `${met(ok.allSent)} | ${cellText(r.problem)} |`,
    );
  }
  lines.push(
    '',
    'intended: the same statistic over the seeded schedule itself (lib/arrivals.ts), what a perfect sender gives; a ' +
    'miss in both columns is the draw\'s (over n arrivals the CV varies by about 1/sqrt(n), and the mean rate reads ' +
    'about 1/n high: the two edge gaps lie outside the span), a difference between them is the sender\'s.',
  );
  return lines.join('\n');
}

export function renderStallTable(r: StallRow): string {
  const row = (label: string, s: Spread, shown: string): string =>
    `| ${label} | ${f(s.p50)} | ${f(s.p99)} | ${f(s.max)} | ${shown} |`;
  const summary =
    `${STALL_RATE} requests/s for ${r.seconds} s, a ${f(r.stallMs, 0)} ms server-wide stall from ` +
    `${f(r.stallAtSeconds, 2)} s after the cell's start; ` +
    `${r.arrivedInStall} requests arrived during it (ground truth); sent ${f(r.sent, 0)} / scheduled ${r.scheduled} ` +
    `(${r.arrived} arrived): ${met(r.sent === r.scheduled)}.${r.problem ? ` Note: ${r.problem}.` : ''}`;
  return [
    '| TTFT (ms) | p50 | p99 | max | stall shown in p99 |',
    '|---|---:|---:|---:|:---:|',
    row('from the actual send (llm_ttft)', r.ttft, met(stallShown(r.ttft.p99, r.stallMs))),
    row('from the intended send (llm_ttft_intended)', r.ttftIntended, met(stallShown(r.ttftIntended.p99, r.stallMs))),
    row("the server's own, arrival to first token (ground truth)", r.serverTtft, ''),
    '',
    summary,
  ].join('\n');
}
