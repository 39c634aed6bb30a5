// The embed script's request: one non-streaming embeddings or rerank call with k6's own http.asyncRequest, and its
// samples. Runs in k6 (bundled).
//
// These answers are one JSON body, not a stream, so the measuring agent (made for streams) has nothing to time: k6's
// HTTP client sends them, and the latency is the VU's own clock around the call.

import http from 'k6/http';
import { EMBED_METRICS, REQUEST_METRICS, SAMPLE_METADATA, SAMPLE_TAGS, type EmbedMetricKey } from '../metrics';
import { EMBED_PATHS, embedRequestBody, readEmbedResponse, type EmbedKind } from '../embed-request';
import type { TargetConfig } from '../plan';
import { buildHeaders } from '../request';
import { createMetric, type K6Metric } from './metric-object';
import { nowMs } from './clock';
import { withSampleMetadata } from './sample-metadata';

// Created in the init context, as k6 requires. llm_request_ok and llm_errors are the stream requests' own metrics:
// k6 hands back the registered metric for a name it already has of the same kind.
const embedMetrics = {} as Record<EmbedMetricKey, K6Metric>;
for (const key of Object.keys(EMBED_METRICS) as EmbedMetricKey[]) embedMetrics[key] = createMetric(EMBED_METRICS[key]);
const requestOk = createMetric(REQUEST_METRICS.requestOk);
const errors = createMetric(REQUEST_METRICS.errors);

/** k6's error code for a request that ran into its timeout (k6 docs, "Error codes"). */
const K6_REQUEST_TIMEOUT = 1050;

export interface EmbedCall {
  readonly kind: EmbedKind;
  readonly target: TargetConfig;
  readonly apiKey: string | null;
  /** The batch: its inputs (rerank: documents). */
  readonly inputs: readonly string[];
  /** Tokens the batch was prepared to hold (input tokens x batch): what llm_embed_input_tokens says without usage. */
  readonly requestedTokens: number;
}

/** What the call gave, for the script's warning on a cell's first failure. */
export type EmbedResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly errorKind: string; readonly message: string };

/** Sends one request and pushes its samples, tagged `batch` on top of the VU's cell tags. */
export async function sendEmbed(call: EmbedCall): Promise<EmbedResult> {
  const { kind, target, inputs } = call;
  // The stream requests' headers (the key only there), asking for the JSON body these answer with.
  const headers = { ...buildHeaders(call.apiKey), Accept: 'application/json' };
  const body = embedRequestBody(kind, target.model, inputs);
  const started = nowMs();
  const res = await http.asyncRequest('POST', target.baseUrl + EMBED_PATHS[kind], body, {
    headers, timeout: `${target.requestTimeoutSeconds}s`, responseType: 'text', tags: { name: `embed-${kind}` },
  });
  const latencyMs = nowMs() - started;
  const text = typeof res.body === 'string' ? res.body : null;
  const outcome = readEmbedResponse(kind, res.status, text, inputs.length, res.error_code === K6_REQUEST_TIMEOUT);
  const tags = { [SAMPLE_TAGS.batch]: String(inputs.length) };
  if (!outcome.ok) {
    requestOk.add(0, tags);
    // As the stream requests' failures: the message as metadata, never a tag (so never a Prometheus label).
    withSampleMetadata(SAMPLE_METADATA.errorMessage, outcome.message, () => {
      errors.add(1, { ...tags, [SAMPLE_TAGS.errorKind]: outcome.errorKind });
    });
    return outcome;
  }
  requestOk.add(1, tags);
  withSampleMetadata(SAMPLE_METADATA.requestId, res.headers['X-Request-Id'], () => {
    embedMetrics.embedLatency.add(latencyMs, tags);
  });
  const counted = outcome.usageTokens !== null;
  embedMetrics.embedInputTokens.add(counted ? outcome.usageTokens! : call.requestedTokens, {
    ...tags, [SAMPLE_TAGS.tokenSource]: counted ? 'usage' : 'requested',
  });
  embedMetrics.embedItems.add(outcome.items, tags);
  return { ok: true };
}
