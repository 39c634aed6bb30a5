// The metric table as JSON for the Go extension (xk6-llm/metric-table.json), so Go and TypeScript cannot drift.
// Runs in Node, pure.
//
// Go embeds the file and registers exactly these names, types and units; `npm run dashboard` writes
// it with the other files generated from the table, and its --check mode fails when it is stale.

import { CLIENT_METRICS, ERROR_MESSAGE_MAX, REQUEST_METRICS, SAMPLE_METADATA, SAMPLE_TAGS, type MetricDefinition } from './metrics';
import { ERROR_KINDS } from './record';

export const METRIC_TABLE_JSON_PATH = 'xk6-llm/metric-table.json';

export function renderMetricTableJson(): string {
  const entries = (table: Record<string, MetricDefinition>) =>
    Object.fromEntries(Object.entries(table).map(([key, d]) => [key, { name: d.name, kind: d.kind, isTime: d.isTime, unit: d.unit }]));
  const doc = {
    generatedFrom: 'lib/metrics.ts and lib/record.ts by npm run dashboard; do not edit',
    requestMetrics: entries(REQUEST_METRICS),
    clientMetrics: entries(CLIENT_METRICS),
    sampleTags: SAMPLE_TAGS,
    sampleMetadata: SAMPLE_METADATA,
    errorMessageMax: ERROR_MESSAGE_MAX,
    errorKinds: ERROR_KINDS,
  };
  return JSON.stringify(doc, null, 2) + '\n';
}
