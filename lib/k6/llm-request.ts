// One streaming request of the suite's scripts, through the measuring agent (lib/k6/llm.ts). Runs in k6 (bundled).
// The agent reads, stamps and interprets the stream; lib/k6/llm.ts pushes the llm_* samples.

import { stream, type AgentHealth, type StreamEvent } from './llm';
import type { HttpRequestSpec } from '../request';
import type { RequestRecord } from '../record';
import type { UseCaseLimit } from '../../thresholds/use-cases';

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
  /** The measuring agent's own figures with the request (read lag, CPU, tokens read together). */
  readonly health: AgentHealth;
  /** The generated content, when sent with keepText (a conversation's turn); else null. */
  readonly text: string | null;
  /**
   * Pushes the llm_* samples with these tags added, when the request was sent with deferred metrics; else does nothing.
   */
  pushMetrics(tags: Record<string, string>): void;
}

/**
 * What a script that asks for every event does with them, after the stream: decodes each chunk and reads its text.
 * Only the engine benchmark turns this on (EVENT_CALLBACK=1), to price the events path against the default.
 */
function readEveryEvent(events: readonly StreamEvent[]): number {
  let chars = 0;
  for (let i = 0; i < events.length; i++) {
    const data = events[i]!.data;
    if (data === '' || data === '[DONE]') continue;
    const chunk = JSON.parse(data) as { choices?: { delta?: { content?: string } }[] } | null;
    chars += chunk?.choices?.[0]?.delta?.content?.length ?? 0;
  }
  return chars;
}

/**
 * Sends one request; never throws for a failing server. With `deferMetrics` the llm_* samples wait
 * for pushMetrics (the bench says a driven request's phase only after it ended); otherwise they are
 * pushed when the request ends, with `tags`. `slo`, a use case's limits, has the agent judge the request's
 * goodput on its own figures (record.goodput, one llm_goodput sample); null judges nothing.
 */
export async function sendRequest(
  spec: HttpRequestSpec, lengths: RequestLengths, limits: RequestLimits, tags: Record<string, string>,
  deferMetrics: boolean, slo: readonly UseCaseLimit[] | null, eventCallback = false, keepText = false,
): Promise<SentRequest> {
  // Only a misuse throws (docs/reference/agent-api.md): a bug in the calling script, left to end the iteration loudly.
  const result = await stream({
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
    events: eventCallback,
    keepText,
    ...(slo ? { slo: slo.map((l) => ({ metric: l.metric, operator: l.operator, value: l.value })) } : {}),
  });
  if (eventCallback && result.events) readEveryEvent(result.events);
  const push = result.pushMetrics;
  return { record: result.record, health: result.health, text: result.text ?? null, pushMetrics: (t) => push?.(t) };
}
