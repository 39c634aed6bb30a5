// The shape of k6's handleSummary data, typed once for everything that reads it. Runs in k6 and Node.
// An example is test/fixtures/k6-golden/handle-summary-data.json.

import * as v from 'valibot';
import type { MetricKind } from './metric-definition';
import { parseOrThrow, plainObject } from './schema';

export interface SummaryMetric {
  readonly type: MetricKind;
  readonly contains: 'default' | 'time' | 'data';
  /**
   * counter: count, rate; gauge: value, min, max; rate: rate, passes, fails; trend: one key per summaryTrendStats
   * entry.
   */
  readonly values: Readonly<Record<string, number>>;
  /** Expression -> {ok}. */
  readonly thresholds?: Readonly<Record<string, { readonly ok: boolean }>>;
}

export interface SummaryCheck {
  readonly name: string;
  readonly path: string;
  readonly id: string;
  readonly passes: number;
  readonly fails: number;
}

export interface SummaryGroup {
  readonly name: string;
  readonly path: string;
  readonly id: string;
  readonly groups: readonly SummaryGroup[];
  readonly checks: readonly SummaryCheck[];
}

export interface SummaryData {
  readonly metrics: Readonly<Record<string, SummaryMetric>>;
  readonly root_group: SummaryGroup;
  readonly options: {
    readonly summaryTrendStats: readonly string[]; readonly summaryTimeUnit: string; readonly noColor: boolean;
  };
  readonly state: { readonly isStdOutTTY: boolean; readonly isStdErrTTY: boolean; readonly testRunDurationMs: number };
  readonly setup_data?: unknown;
}

/** The top level only: what follows is k6's own output, read field by field where it is used. */
const SummaryDataShape = v.pipe(
  plainObject,
  v.looseObject({ metrics: plainObject, root_group: plainObject, state: plainObject }),
);

/** Checks the top-level shape of handleSummary data; throws naming what is missing. */
export function readSummaryData(raw: unknown, source: string): SummaryData {
  return parseOrThrow(
    SummaryDataShape, raw,
    (field) =>
      new Error(
        field === ''
          ? `${source}: not a JSON object`
          : `${source}: missing "${field}" (is this k6 handleSummary data, not --summary-export?)`,
      ),
  ) as unknown as SummaryData;
}

/** The sub-metric key k6 uses for a metric filtered by cell. */
export function cellMetricKey(
  metricName: string,
  cell: string | {
    readonly id: string; readonly warmupRounds: number; readonly script?: string;
    readonly arrivals?: { readonly warmupSeconds?: number } | null;
  },
): string {
  // A steady-state cell's statistics leave its warm-up requests out (tag phase, lib/drive.ts), a rate cell's its first
  // seconds' (lib/k6/open-loop.ts), and a sessions step's or agentic step's its calls outside the measuring window
  // (lib/sessions.ts turnPhase).
  const windowed = typeof cell !== 'string' && (cell.script === 'sessions' || cell.script === 'agentic');
  const rateWarmup = typeof cell !== 'string' && (cell.arrivals?.warmupSeconds ?? 0) > 0;
  if (typeof cell !== 'string' && (cell.warmupRounds > 0 || windowed || rateWarmup)) {
    return `${metricName}{cell:${cell.id},phase:measured}`;
  }
  return `${metricName}{cell:${typeof cell === 'string' ? cell : cell.id}}`;
}
