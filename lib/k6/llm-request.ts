// One streaming request through the project's k6/x/llm: Go reads, stamps and interprets the stream and pushes the llm_* samples. Runs in k6 (bundled).

import llm from 'k6/x/llm';
import type { HttpRequestSpec } from '../request';
import type { RequestRecord } from '../record';

export interface RequestLimits {
  readonly requestTimeoutSeconds: number;
  readonly connectTimeoutSeconds: number;
  readonly firstByteTimeoutSeconds: number;
  readonly idleTimeoutSeconds: number;
}

export interface RequestLengths {
  readonly requestedInputTokens: number;
  readonly requestedOutputTokens: number;
}

export interface SentRequest {
  readonly record: RequestRecord;
  /** Pushes the llm_* samples with these tags added, when the request was sent with deferred metrics; else does nothing. */
  pushMetrics(tags: Record<string, string>): void;
}

/**
 * Sends one request; never throws for a failing server. With `deferMetrics` the llm_* samples wait
 * for pushMetrics (the bench says a driven request's phase only after it ended); otherwise they are
 * pushed when the request ends, with `tags`.
 */
export async function sendRequest(spec: HttpRequestSpec, lengths: RequestLengths, limits: RequestLimits, tags: Record<string, string>, deferMetrics: boolean): Promise<SentRequest> {
  // Only a misuse throws (docs/k6-x-llm.md): a bug in the calling script, left to end the iteration loudly.
  const result = await llm.stream({
    url: spec.url,
    method: 'POST',
    headers: spec.headers,
    body: spec.body,
    timeout: limits.requestTimeoutSeconds,
    connectTimeout: limits.connectTimeoutSeconds,
    headerTimeout: limits.firstByteTimeoutSeconds,
    idleTimeout: limits.idleTimeoutSeconds,
    requestedInputTokens: lengths.requestedInputTokens,
    requestedOutputTokens: lengths.requestedOutputTokens,
    tags,
    deferMetrics,
  });
  const push = result.pushMetrics;
  return { record: result.record, pushMetrics: (t) => push?.(t) };
}
