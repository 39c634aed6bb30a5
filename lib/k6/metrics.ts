// The monitor's k6 metric objects, created from the metric table, and the function that records one scrape.
// Runs in k6 (bundled).

import { createMetric, type K6Metric } from './metric-object';
import { CAPACITY_TAGS, SEARCH_METRICS, type ServerMetricKey } from '../metrics';
import { SERVER_METRICS } from '../server-metrics';
import type { CapacityAnnouncement } from '../drive';
import type { ServerSnapshot } from '../prometheus';

/**
 * Created in the init context (k6 allows it nowhere else), one object per server metric. The request
 * metrics (llm_ttft ...) are created and pushed by lib/k6/llm.ts from the same table.
 */
const objects = {} as Record<ServerMetricKey, K6Metric>;
for (const key of Object.keys(SERVER_METRICS) as ServerMetricKey[]) objects[key] = createMetric(SERVER_METRICS[key]);

/** Emits one scrape of the server's metrics: each figure the server exposes, as a cumulative Gauge value. */
export function recordServerSnapshot(snapshot: ServerSnapshot | null): void {
  objects.scrapeOk.add(snapshot ? 1 : 0);
  if (!snapshot) return;
  for (const key of Object.keys(snapshot) as (keyof ServerSnapshot)[]) {
    const value = snapshot[key];
    if (value !== null && key in SERVER_METRICS) objects[key as ServerMetricKey].add(value);
  }
}

const capacityUsers = createMetric(SEARCH_METRICS.capacityUsers);

/** Emits each decided capacity and the ends of its interval (an open end is left out) as llm_capacity_users. */
export function recordCapacities(capacities: readonly CapacityAnnouncement[]): void {
  for (const c of capacities) {
    const tags = { [CAPACITY_TAGS.useCase]: c.useCase, [CAPACITY_TAGS.limit]: c.limit ?? 'none' };
    capacityUsers.add(c.capacity, { ...tags, [CAPACITY_TAGS.bound]: 'capacity' });
    if (c.low !== null) capacityUsers.add(c.low, { ...tags, [CAPACITY_TAGS.bound]: 'interval_low' });
    if (c.high !== null) capacityUsers.add(c.high, { ...tags, [CAPACITY_TAGS.bound]: 'interval_high' });
  }
}
