// The k6 metric object of a metric table entry (lib/metrics.ts). Runs in k6 (bundled);
// call it in the init context only.

import { Counter, Gauge, Rate, Trend } from 'k6/metrics';
import type { MetricDefinition } from '../metric-definition';

export type K6Metric = Trend | Counter | Rate | Gauge;

/** A k6 metric of the entry's name and kind; time Trends with isTime, so k6 and remote write treat them as times. */
export function createMetric(def: MetricDefinition): K6Metric {
  switch (def.kind) {
    case 'trend':
      return new Trend(def.name, def.isTime);
    case 'counter':
      return new Counter(def.name);
    case 'rate':
      return new Rate(def.name);
    case 'gauge':
      return new Gauge(def.name);
  }
}
