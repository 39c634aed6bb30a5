// How the report words its verdicts: the experience of each band of a graded figure and every sentence or mark that
// gives a verdict. Runs in Node.
//
// The cut-offs themselves are judgement (analysis/figure-grades.ts): a sentence and a table that judge the same
// figure read the same band, so they cannot disagree; to move a cut-off, change it there; to reword a verdict
// ("within", "breaks", "slow"), here only. The report sections (report/sections/) describe; they take their verdicts
// from this module.

import type { LadderResult, LadderStep, UseCaseCapacity } from '../analysis/capacity';
import { fmtLimitValue, fmtPct, fmtTokens, plural } from './format';
import type { Comparison, MetricDelta } from './report-types';
import { fmtMetric, labelInSentence, metricLabel, sentences, type MaybeNumber } from './phrases';
import type { UseCase } from '../thresholds/use-cases';
import {
  DECODE_SPEED_BOUNDS_TOKS, ITL_BOUNDS_MS, lowGoodput, PREFIX_CACHE_HIT_FROM, QUEUE_SATURATED_ABOVE_MS,
  bandOf, queueSaturated, SEVERE_CONTENTION_BELOW, severeContention, TTFT_BOUNDS_MS, withBounds, type Band,
} from '../analysis/figure-grades';
import { clientBoundWords, ladderDisplay, ladderDisplayShort } from './capacity-words';

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
  /**
   * Prefix-cache hit rate (0..1) from which a cell counts as hitting: the smallest rate the one-decimal column shows
   * as 0.1%, not 0.0%.
   */
  readonly prefixCacheHitFrom: number;
}

export const JUDGEMENT: Judgement = {
  decodeSpeedTokS: withBounds(DECODE_SPEED_BOUNDS_TOKS, [
    {
      experience: 'Slow; may be slower than reading speed',
      atSlowest: 'slows below reading speed in the most demanding scenarios',
    },
    {
      experience: 'Acceptable; keeps pace with reading',
      atSlowest: 'keeps pace with reading even in the most demanding scenario',
    },
    { experience: 'Fast; exceeds reading speed', atSlowest: 'remains fast across all tested scenarios' },
    { experience: 'Very fast; text appears nearly instantly', atSlowest: 'is very fast, even under maximum load' },
  ]),
  ttftMs: withBounds(TTFT_BOUNDS_MS, [
    { experience: 'Feels instant' },
    { experience: 'Feels responsive' },
    { experience: 'Noticeable but still acceptable' },
    { experience: 'Feels slow; generally acceptable at higher context lengths' },
    { experience: 'Can be frustrating; users may retry or abandon' },
  ]),
  itlMs: withBounds(ITL_BOUNDS_MS, [
    { atHighest: 'still imperceptible to users' },
    { atHighest: 'noticeable but acceptable' },
    { atHighest: 'where individual tokens become visible as they stream' },
  ]),
  queueSaturatedAboveMs: QUEUE_SATURATED_ABOVE_MS,
  severeContentionBelow: SEVERE_CONTENTION_BELOW,
  prefixCacheHitFrom: PREFIX_CACHE_HIT_FROM,
};

// ---------------------------------------------------------------------------------------------
// Guide tables and band verdicts.

/** A guide table's rows: each band's range ("< 15 tok/s", "15–25 tok/s", "> 50 tok/s") and its text. */
function bandRows<B extends Band>(
  bands: readonly B[],
  split: (value: number) => [string, string],
  text: (band: B) => string,
): string[][] {
  return bands.map((band, i) => {
    const previousBelow = i > 0 ? bands[i - 1]!.below : null;
    const high = band.below === null ? null : split(band.below);
    const low = previousBelow === null ? null : split(previousBelow);
    return [bandRange(low, high), text(band)];
  });
}

/** "< 15 tok/s", "> 50 tok/s", "15–25 tok/s"; one unit when both ends share it ("2–5s", but "500ms–2s"). */
function bandRange(low: [string, string] | null, high: [string, string] | null): string {
  if (!low) return `< ${high![0]}${high![1]}`;
  if (!high) return `> ${low[0]}${low[1]}`;
  return `${low[0]}${low[1] === high[1] ? '' : low[1]}–${high[0]}${high[1]}`;
}

const tokSUnit = (value: number): [string, string] => [String(value), ' tok/s'];

const msUnit = (value: number): [string, string] => 
  value < 1000 ? [String(value), 'ms'] : [String(value / 1000), 's'];

/** The "How Fast is This?" table: per-user speed bands and how each feels. */
export function decodeSpeedGuideRows(): string[][] {
  return bandRows(JUDGEMENT.decodeSpeedTokS, tokSUnit, (band) => band.experience);
}

/** The "How Responsive is This?" table: TTFT bands and how each feels. */
export function ttftGuideRows(): string[][] {
  return bandRows(JUDGEMENT.ttftMs, msUnit, (band) => band.experience);
}

/** Completes "this configuration …" for the slowest measured per-user speed. */
export function slowestSpeedVerdict(decodeSpeedTokS: number): string {
  return bandOf(JUDGEMENT.decodeSpeedTokS, decodeSpeedTokS).atSlowest;
}

/** Follows the highest measured inter-token latency in its sentence. */
export function highestItlVerdict(itlMs: number): string {
  return bandOf(JUDGEMENT.itlMs, itlMs).atHighest;
}

/** The saturation sentence for the longest queue wait, or null when the queue stayed short. */
export function queueSaturationSentence(queueWaitMs: number): string | null {
  if (!queueSaturated(queueWaitMs)) return null;
  return (
    'Rising queue times signal GPU saturation: ' +
    'requests wait for resources rather than being processed immediately.'
  );
}

/** The contention sentence for the lowest scaling efficiency, or null when it is above the cut-off. */
export function contentionSentence(scalingEfficiency: number): string | null {
  if (!severeContention(scalingEfficiency)) return null;
  const cutOff = fmtPct(JUDGEMENT.severeContentionBelow, 0);
  return `Below ${cutOff} signals severe contention for shared resources: adding requests brings diminishing returns.`;
}

// ---------------------------------------------------------------------------------------------
// Capacity verdicts: where a use case's limits hold and where they break.

/** The use-case guidance table's analysis column. */
export function capacityGuidance(capacity: UseCaseCapacity): string {
  const result = capacity.result;
  if (lowGoodput(capacity))
    return (
      `Within the thresholds on the step's statistic at ${ladderDisplayShort(result)} concurrent requests, but only ` +
      `${fmtPct(capacity.goodputAtCapacity)} of its requests met every limit on their own figures: not supported ` +
      'for most users (plan minGoodput makes the capacity require a share).'
    );
  switch (result.kind) {
    case 'within':
      return (
        `Supports ${ladderDisplay(result)} concurrent requests within accepted thresholds; ` +
        `${result.brokenBy?.label ?? 'a limit'} is the first limit to break (at ${result.firstFail} requests).`
      );
    case 'beyond':
      return (
        `Supports ${ladderDisplayShort(result)} concurrent requests: ` +
        `no tested step (up to ${result.estimate}) broke a limit. ` +
        'Additional capacity likely available.'
      );
    case 'below':
      return (
        `Does not meet the thresholds even at ${plural(result.firstFail ?? 1, 'concurrent request')}: ` +
        `${result.brokenBy?.label ?? 'a limit'} is already broken.`
      );
    case 'untested':
      return 'Not measured in this run.';
    case 'undetermined':
      return undeterminedSentence(result);
  }
}

/**
 * Why a capacity is undetermined: the step that would decide it was client-bound, so it measured the client; a run
 * with the client on a core of its own (or a lighter load on it) would measure it.
 */
export function undeterminedSentence(result: LadderResult): string {
  const steps = (result.clientBound ?? [])
    .map((b) => `${plural(b.users, 'user')} (${clientBoundWords(b.cause)})`).join('; ');
  const known = result.lastPass === null ? '' : ` All the clean steps say is more than ${result.lastPass}.`;
  return `Undetermined: the step that would decide it was client-bound at ${steps}, so it measured the client, ` +
    `not the server.${known}`;
}

/** The key finding of a use case's capacity, with its context length. */
export function capacityFinding(capacity: UseCaseCapacity): string {
  const result = capacity.result;
  const context = `@ ${fmtTokens(capacity.useCase.contextTokens)} context`;
  switch (result.kind) {
    case 'within':
    case 'beyond': {
      const found = result.kind === 'within'
        ? `${ladderDisplay(result)} concurrent requests ${context}`
        : `more than ${result.estimate} concurrent requests ${context} (none of the tested steps broke a limit)`;
      return lowGoodput(capacity)
        ? `${found}, on the step's statistic only: ${fmtPct(capacity.goodputAtCapacity)} of its requests met every ` +
          'limit on their own figures'
        : found;
    }
    case 'below': {
      const requests = result.firstFail === 1 ? 'request' : 'requests';
      const broken = result.brokenBy?.label ?? 'a limit';
      return `below ${result.firstFail} concurrent ${requests} ${context} (the first step already breaks ${broken})`;
    }
    case 'untested':
      return 'not measured';
    case 'undetermined':
      return `undetermined ${context} (a client-bound step would decide it)`;
  }
}

/** "Capacity limit: …" of a use case's subsection. */
export function capacityLimitPhrase(result: LadderResult): string {
  if (result.kind === 'beyond') return `${ladderDisplayShort(result)} concurrent requests`;
  if (result.kind === 'below') return `below ${plural(result.firstFail ?? 1, 'concurrent request')}`;
  if (result.kind === 'undetermined') return ladderDisplay(result);
  return `${ladderDisplay(result)} concurrent requests`;
}

/** One tested step's verdict: "pass", or "fail" with the limits it broke. */
export function stepVerdict(step: LadderStep): string {
  if (step.ok) return 'pass';
  return `fail (${step.checks.filter((check) => !check.ok).map((check) => check.label).join(', ')})`;
}

/** The mark after a capacity-table value whose limit is broken. */
export const THRESHOLD_EXCEEDED = ' (threshold exceeded)';

/**
 * What the capacity means in the use case's own metrics; `valueAt` gives a metric's value at the
 * capacity estimate (interpolated between steps when the estimate is).
 */
export function capacityVerdict(
  useCase: UseCase,
  result: LadderResult,
  valueAt: (metric: string) => MaybeNumber,
): string {
  switch (result.kind) {
    case 'beyond':
      return beyondVerdict(useCase, result, valueAt);
    case 'below':
      return belowVerdict(result);
    case 'untested':
      return 'Not measured in this run.';
    case 'within':
      return withinVerdict(useCase, result, valueAt);
    case 'undetermined':
      return undeterminedSentence(result);
  }
}

function beyondVerdict(useCase: UseCase, result: LadderResult, valueAt: (metric: string) => MaybeNumber): string {
  const values = useCase.limits.map(
    (limit) => `${labelInSentence(limit.metric)} is ${fmtMetric(limit.metric, valueAt(limit.metric))}`,
  );
  return sentences(
    `At ${plural(result.estimate ?? 0, 'concurrent request')} (the largest tested), ` +
      `${values.join(' and ')}, all within the thresholds.`,
    'Capacity likely extends higher.',
  );
}

function belowVerdict(result: LadderResult): string {
  const brokenBy = result.brokenBy;
  const check = result.steps[0]?.checks.find((c) => c.metric === brokenBy?.metric);
  const metric = brokenBy?.metric ?? '';
  const value = fmtMetric(metric, check?.actual ?? null);
  const requests = plural(result.firstFail ?? 1, 'concurrent request');
  return `Even at ${requests}, ${labelInSentence(metric)} is ${value}, breaking ${brokenBy?.label ?? 'the limit'}.`;
}

/** The limit that broke, at the capacity and at the first failing step, then where every other limit stands. */
function withinVerdict(useCase: UseCase, result: LadderResult, valueAt: (metric: string) => MaybeNumber): string {
  const brokenBy = result.brokenBy!;
  const tilde = result.interpolated ? '~' : '';
  const crossing = result.interpolated
    ? ` (the crossing is interpolated between the tested ${result.lastPass} and ${result.firstFail} requests)`
    : '';
  const reached = `${tilde}${fmtMetric(brokenBy.metric, valueAt(brokenBy.metric))}`;
  const broken =
    `At ${tilde}${plural(result.estimate!, 'concurrent request')}, ` +
    `${labelInSentence(brokenBy.metric)} reaches ${reached}, ` +
    `within the ${fmtLimitValue(brokenBy.metric, brokenBy.value)} threshold; ` +
    `at ${plural(result.firstFail ?? 0, 'request')} it breaks ${brokenBy.label}${crossing}.`;
  const others = useCase.limits
    .filter((limit) => limit.metric !== brokenBy.metric)
    .map((limit) => {
      const [side, boundName] = limit.operator.startsWith('>') ? ['above', 'minimum'] : ['below', 'maximum'];
      const value = `${tilde}${fmtMetric(limit.metric, valueAt(limit.metric))}`;
      const bound = `${fmtLimitValue(limit.metric, limit.value)} ${boundName}`;
      return `${metricLabel(limit.metric)} at this concurrency is ${value}, ${side} the ${bound}.`;
    });
  return sentences(broken, ...others);
}

// ---------------------------------------------------------------------------------------------
// Gate and baseline verdicts.

/** The headline of a measured gate. */
export function gateVerdict(ok: boolean): string {
  return ok ? '✓ Passed' : '✗ Failed';
}

/** One limit of a gate. */
export function checkVerdict(ok: boolean): string {
  return ok ? '✓ pass' : '✗ fail';
}

/** The comparison's headline: how many gated regressions, and the exit code they cause. */
export function comparisonVerdict(comparison: Comparison): string {
  if (!comparison.gatedRegression) return '**No gated regression** beyond the tolerance.';
  return `**${plural(comparison.regressions.length, 'gated regression')} found** (exit code 99):`;
}

/** A capacity or burst depth against the baseline. */
export function capacityChangeVerdict(regression: boolean, withinNoise = false): string {
  if (withinNoise) return '✓ within the noise (intervals overlap)';
  return regression ? '✗ regression' : '✓';
}

/** A cell metric that moved beyond the tolerance. */
export function deltaVerdict(delta: MetricDelta): string {
  const worse = delta.change !== null && (delta.better === 'higher' ? delta.change < 0 : delta.change > 0);
  if (!delta.regression && worse) return '✓ within the noise';
  if (!delta.regression) return '✓ improvement';
  return delta.gated ? '✗ gated regression' : '✗ regression';
}
