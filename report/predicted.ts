// A predicted run (npm run bench -- --predict, whatif/predict-run.ts): what run.json's `predicted` record holds, and
// how the report marks every figure of one as predicted, never measured. Runs in Node.

import * as v from 'valibot';
import type { Block } from './document';
import { lit } from './document';

/**
 * A predicted part's samples, in its folder beside plan.json where a measured part has k6's samples.csv: the
 * prediction's own records (report/predicted-samples.ts), never k6's format.
 */
export const PREDICTED_SAMPLES_FILE = 'predicted-samples.jsonl';

/** run.json's `predicted` record, copied to report.json's top level. docs/guides/what-if.md. */
export interface PredictedInfo {
  /** The simulator profile that made the prediction. */
  readonly profile: string;
  /** A built-in profile, a plain profile file, or a profile fitted to a measured run. */
  readonly source: 'built-in' | 'file' | 'fitted';
  /** The measured run a fitted profile was fitted to; null for the others. */
  readonly fittedFrom: string | null;
  /** How each capacity's prediction interval was made (fit-resamples-p5-p95); null without one. */
  readonly intervalMethod: string | null;
  /** Per use case, the 5th-95th percentile of the capacities the fit's resampled profiles predict; null without one. */
  readonly intervals: readonly {
    readonly useCase: string; readonly low: number; readonly high: number; readonly resamples: number;
  }[] | null;
  /** How the interval was made, or why there is none. */
  readonly intervalNote: string;
  /** The what-if variant this run predicts ("prompt=2x"); null for the base prediction. */
  readonly variant: string | null;
  /** The base prediction's run id a variant compares with; null for the base. */
  readonly baseRun: string | null;
  /** Virtual time the parts took, seconds. */
  readonly virtualSeconds: number;
  /**
   * Per predicted use case, whether it lies inside what the fit run measured (prompt length, users, answer length)
   * or is extrapolated, and the fit's own miss where its limit lives (whatif/prediction-reach.ts); null: no capacity.
   */
  readonly reach: readonly {
    readonly useCase: string; readonly range: 'inside' | 'extrapolated' | 'unknown';
    readonly beyond: readonly string[]; readonly fitCheck: string | null;
  }[] | null;
}

const nullableString = v.fallback(v.nullable(v.string()), null);

/** run.json's `predicted`: absent (a measured run) reads as null; a record without its profile is no prediction. */
export const PredictedSchema = v.fallback(
  v.nullable(v.object({
    profile: v.string(),
    source: v.fallback(v.picklist(['built-in', 'file', 'fitted']), 'file'),
    fittedFrom: nullableString,
    intervalMethod: nullableString,
    intervals: v.fallback(v.nullable(v.array(v.object({
      useCase: v.string(), low: v.number(), high: v.number(), resamples: v.number(),
    }))), null),
    intervalNote: v.fallback(v.string(), ''),
    variant: nullableString,
    baseRun: nullableString,
    virtualSeconds: v.fallback(v.number(), 0),
    reach: v.fallback(v.nullable(v.array(v.object({
      useCase: v.string(), range: v.picklist(['inside', 'extrapolated', 'unknown']),
      beyond: v.array(v.string()), fitCheck: v.nullable(v.string()),
    }))), null),
  })),
  null,
);

/** The report's title: a predicted run's says so first. */
export function reportTitle(model: string, predicted: PredictedInfo | null): string {
  if (!predicted) return `Benchmark Report: ${model}`;
  const variant = predicted.variant ? `, what if ${predicted.variant}` : '';
  return `PREDICTED Capacity Report: ${model} (simulator profile ${predicted.profile}${variant})`;
}

/** The words every table of a predicted report carries, so no table can be read, copied or cropped as measured. */
export function predictedCaption(predicted: PredictedInfo): string {
  const fitted = predicted.fittedFrom ? `, fitted to run ${lit(predicted.fittedFrom)}` : '';
  const out = extrapolatedUseCases(predicted);
  const beyond = out.length > 0 ? `; extrapolated beyond the fit run: ${out.map(lit).join(', ')}` : '';
  return `PREDICTED, not measured: simulator profile ${lit(predicted.profile)}${fitted}, virtual time${beyond}`;
}

/** The use cases whose prediction lies beyond what the fit run measured. */
export function extrapolatedUseCases(predicted: PredictedInfo): string[] {
  return (predicted.reach ?? []).filter((r) => r.range === 'extrapolated').map((r) => r.useCase);
}

/**
 * Every table of the document captioned as predicted (its own caption kept after), and every headline figure labelled
 * so; unchanged for a measured run.
 */
export function markPredictedTables(blocks: readonly Block[], predicted: PredictedInfo | null): Block[] {
  if (!predicted) return [...blocks];
  const mark = predictedCaption(predicted);
  return blocks.map((b): Block => {
    if (b.kind === 'table') return { ...b, caption: b.caption ? `${mark}. ${b.caption}` : mark };
    if (b.kind === 'kpis') return { ...b, items: b.items.map((k) => ({ ...k, label: `${k.label} (predicted)` })) };
    return b;
  });
}

/** One phrase for a use case's reach: what the Prediction table and capacity.csv's prediction_note say. */
export function reachPhrase(r: NonNullable<PredictedInfo['reach']>[number]): string {
  const range = r.range === 'inside' ? 'inside the fit run'
    : r.range === 'unknown' ? 'range unknown (no fit record)' : `extrapolated: ${r.beyond.join('; ')}`;
  return r.fitCheck ? `${range}; ${r.fitCheck}` : range;
}
