// k6 metric objects created from the metric table, and the one function that turns a RequestRecord into samples. Runs in k6 (bundled).

import exec from 'k6/execution';
import { Counter, Gauge, Rate, Trend } from 'k6/metrics';
import { ERROR_MESSAGE_MAX, METRICS, SAMPLE_METADATA, SAMPLE_TAGS, SERVER_METRICS, type MetricDefinition, type MetricKey, type ServerMetricKey } from '../metrics';
import type { RequestRecord } from '../record';
import { errorMessageForResults } from '../request';
import type { ServerSnapshot } from '../prometheus';

type K6Metric = Trend | Counter | Rate | Gauge;

function create(def: MetricDefinition): K6Metric {
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

/** Created in the init context (k6 allows it nowhere else), one object per table entry. */
const objects = {} as Record<MetricKey, K6Metric>;
for (const key of Object.keys(METRICS) as MetricKey[]) objects[key] = create(METRICS[key]);

/**
 * Emits the samples of one request. Errored requests go to llm_errors and llm_request_ok only, never
 * into latency Trends. `secret` (the API key) is redacted from the error message.
 */
export function recordRequest(record: RequestRecord, secret: string | null = null): void {
  if (record.outcome === 'errored') {
    // error_kind goes on llm_errors only: on the Rate it would split each cell's success ratio into
    // one always-zero series per kind once remote write turns tags into labels.
    objects.requestOk.add(0);
    // The message rides as metadata (CSV `metadata` column), not as a tag: unbounded text must never
    // become a Prometheus label. Set for this one sample only.
    const message = errorMessageForResults(record.errorMessage, secret, ERROR_MESSAGE_MAX);
    const metadata = exec.vu.metrics.metadata;
    if (message !== '') metadata[SAMPLE_METADATA.errorMessage] = message;
    try {
      objects.errors.add(1, { [SAMPLE_TAGS.errorKind]: record.errorKind });
    } finally {
      delete metadata[SAMPLE_METADATA.errorMessage];
    }
    return;
  }
  objects.requestOk.add(1);
  objects.ttft.add(record.ttftMs);
  if (record.ttfcMs !== null) objects.ttfc.add(record.ttfcMs);
  objects.e2e.add(record.e2eMs);
  for (const itl of record.itlMs) objects.itl.add(itl);
  if (record.tpotMs !== null) objects.tpot.add(record.tpotMs);
  if (record.decodeTokensPerSecond !== null) objects.decodeSpeed.add(record.decodeTokensPerSecond);
  if (record.prefillTokensPerSecond !== null) objects.prefillSpeed.add(record.prefillTokensPerSecond);
  objects.inputTokens.add(record.inputTokens, { [SAMPLE_TAGS.tokenSource]: record.inputTokenSource });
  objects.outputTokens.add(record.outputTokens, { [SAMPLE_TAGS.tokenSource]: record.outputTokenSource });
}

/** Emits one scrape of the server's metrics: each figure the server exposes, as a cumulative Gauge value. */
export function recordServerSnapshot(snapshot: ServerSnapshot | null): void {
  objects.scrapeOk.add(snapshot ? 1 : 0);
  if (!snapshot) return;
  for (const key of Object.keys(snapshot) as (keyof ServerSnapshot)[]) {
    const value = snapshot[key];
    if (value !== null && key in SERVER_METRICS) objects[key as ServerMetricKey].add(value);
  }
}
