// Panel and row specs (the dashboard as plain data), grid widths and shared description text; runs in Node.
// render.ts turns the specs into Grafana JSON.

import type * as sdk from '@grafana/grafana-foundation-sdk/dashboard';
import type { MetricDefinition } from '../../lib/metric-definition';

export type ThresholdStep = sdk.Threshold;

// A panel spec has no id and no position: render.ts numbers the panels and the SDK lays them out.

export interface QuerySpec {
  expr: string;
  legend: string;
  /** Instant table query (tables, bar gauges) rather than a range query. */
  table?: boolean;
  instant?: boolean;
}

export interface PanelSpec {
  type: 'timeseries' | 'stat' | 'table' | 'bargauge';
  title: string;
  description: string;
  queries: QuerySpec[];
  unit: string;
  w: number;
  h: number;
  min?: number;
  max?: number;
  thresholds?: { steps: ThresholdStep[]; dashed: boolean };
  stack?: boolean;
  /** Tables: value column names, in query order, and their units. */
  columns?: { name: string; unit: string }[];
  decimals?: number;
}

export interface RowSpec {
  title: string;
  collapsed: boolean;
  panels: PanelSpec[];
}

/** Panel widths on Grafana's 24-column grid. */
export const HALF = 12;
export const THIRD = 8;
export const QUARTER = 6;
export const FULL = 24;

/** Labels a per-cell time series keeps, and the label columns of the cells table (in display order). */
export const BY_CELL = ['cell'];
export const TABLE_LABELS = ['cell', 'context', 'concurrency', 'use_case'];

/** A panel description: the metric's name and meaning from lib/metrics.ts, its unit note, then `extra`. */
export function describe(def: MetricDefinition, extra = ''): string {
  const unitNote = def.isTime ? ' Sent by k6 in ms, stored by remote write in seconds.' : '';
  return `${def.name}: ${def.description}${unitNote}${extra}`;
}

/** Appended to descriptions of per-runner Trend stats: how several runners' series are combined. */
export const MULTI_RUNNER_NOTE =
  " Several runners (k6-operator) send one series each: percentiles shown are the worst runner's (a bound on the " +
  "merged one); means are weighted by sample count (exact).";
