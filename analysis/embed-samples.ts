// An embed cell's samples as the report reads them from k6's CSV (lib/k6/embed.ts pushes them). Runs in Node.

import { FloatList } from './stats';

/** An embed cell's samples: each successful request's latency, their span, and the inputs and tokens they carried. */
export interface EmbedSamples {
  readonly latencyMs: FloatList;
  /** First request start (sample time minus its latency) and last end, epoch ms. */
  startMs: number;
  endMs: number;
  items: number;
  inputTokens: number;
  /** llm_embed_input_tokens samples per token_source ("usage" | "requested"). */
  readonly tokenSources: Record<string, number>;
}

export function newEmbedSamples(): EmbedSamples {
  const latencyMs = new FloatList(64);
  return { latencyMs, startMs: Infinity, endMs: -Infinity, items: 0, inputTokens: 0, tokenSources: {} };
}

/**
 * One sample of llm_embed_latency (which also widens the span the cell's requests ran over), llm_embed_items or
 * llm_embed_input_tokens (`tokenSource`: its token_source tag).
 */
export function addEmbedSample(
  embed: EmbedSamples, key: 'embedLatency' | 'embedItems' | 'embedInputTokens', tokenSource: string | undefined,
  timestampMs: number, value: number,
): void {
  if (key === 'embedLatency') {
    embed.latencyMs.push(value);
    embed.startMs = Math.min(embed.startMs, timestampMs - value);
    embed.endMs = Math.max(embed.endMs, timestampMs);
  } else if (key === 'embedItems') embed.items += value;
  else {
    embed.inputTokens += value;
    const source = tokenSource ?? 'unknown';
    embed.tokenSources[source] = (embed.tokenSources[source] ?? 0) + 1;
  }
}
