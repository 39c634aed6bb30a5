// The series the dashboard reads that are not in lib/metrics.ts: k6's built-in metrics and Prometheus' `up`. Runs in Node.

/** k6 built-ins, already in their remote-write form. */
export const K6_BUILTIN_SERIES = {
  /** Gauge: VUs running, per runner. */
  vus: 'k6_vus',
  /** Counter: one per HTTP request or stream, pushed when it ends (k6/x/llm pushes it at stream end). */
  httpReqs: 'k6_http_reqs_total',
  /** Counter: iterations an arrival-rate executor could not start. */
  droppedIterations: 'k6_dropped_iterations_total',
} as const;

/** Prometheus' own per-target series, used to list scrape jobs. */
export const PROMETHEUS_UP = 'up';
