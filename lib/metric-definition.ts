// What the metric table (lib/metrics.ts) says of each k6 metric: its name, kind, unit and formula. Runs in k6 and
// Node.

export type MetricKind = 'trend' | 'counter' | 'rate' | 'gauge';
export type MetricUnit =
  'ms' | 'tokens/s' | 'tokens' | 'requests' | 'requests/s' | 'ratio' | 'count' | 'watts' | 'seconds' | 'bytes';

export interface MetricDefinition {
  /** The k6 metric name (matches ^[a-zA-Z_][a-zA-Z0-9_]{1,128}$). */
  readonly name: string;
  readonly kind: MetricKind;
  /**
   * True for time Trends: created with isTime so k6 formats them and Prometheus remote write converts them to seconds.
   */
  readonly isTime: boolean;
  readonly unit: MetricUnit;
  /** What one sample is and how it is computed. */
  readonly description: string;
}
