// Measures a real target's single-request prefill and decode speed before a run, so cell time slots fit that target. Runs in Node.

import { buildStreamingRequest } from '../lib/request';
import { StreamObserver } from '../lib/stream';
import type { TargetConfig } from '../lib/plan';
import type { PromptSet } from '../lib/prompt-set';
import { requestPrefix } from '../lib/prompt-text';
import type { RequestRecord } from '../lib/record';
import { SseParser } from '../runner/sse-parser';

export interface ProbedSpeeds {
  /** Single-request prefill speed at `prefillContextTokens`, tokens/s (input tokens / TTFT). */
  readonly prefillTokensPerSecond: number;
  readonly prefillContextTokens: number;
  /** Single-request decode speed, tokens/s. */
  readonly decodeTokensPerSecond: number;
}

/** Feeds an SSE body to a StreamObserver through the runner's parser, so events arrive as k6/x/sse delivers them. */
async function observe(body: ReadableStream<Uint8Array>, observer: StreamObserver, now: () => number): Promise<void> {
  const parser = new SseParser({
    event: (ev) => observer.onEvent(ev.data, now()),
    error: (message) => observer.onTransportError(message),
  });
  for await (const chunk of body) parser.push(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
}

/** One streaming request, measured with the suite's own stream observer. */
async function probeRequest(target: TargetConfig, prompt: string, requestedInputTokens: number, maxTokens: number, apiKey: string | null): Promise<RequestRecord> {
  const spec = buildStreamingRequest(target, { prompt, maxTokens }, apiKey);
  const startMs = performance.now();
  const observer = new StreamObserver({ startMs, requestedInputTokens, requestedOutputTokens: maxTokens });
  let status = 0;
  let transportError = '';
  try {
    const res = await fetch(spec.url, { method: 'POST', headers: spec.headers, body: spec.body, signal: AbortSignal.timeout(target.requestTimeoutSeconds * 1000) });
    status = res.status;
    if (res.body) await observe(res.body, observer, () => performance.now());
  } catch (e) {
    transportError = (e as Error).message;
  }
  return observer.finish({ status, transportError, endMs: performance.now() });
}

/**
 * Sends two requests one after the other: the shortest prepared prompt with 64 output tokens (decode
 * speed) and the longest prepared prompt up to 32K tokens with 2 output tokens (prefill speed: at
 * longer contexts attention makes prefill slower still, which the slot safety factor absorbs).
 * Throws with the server's error when a probe fails, since the run itself would fail the same way.
 */
export async function probeSpeeds(target: TargetConfig, prompts: PromptSet, apiKey: string | null): Promise<ProbedSpeeds> {
  const sorted = [...prompts.prompts].sort((a, b) => a.contextTokens - b.contextTokens);
  const shortest = sorted[0]!;
  const forPrefill = [...sorted].reverse().find((p) => p.contextTokens <= 32_768) ?? shortest;
  const prefix = (i: number) => requestPrefix('unique', Math.floor(Math.random() * 1_000_000), 0, i);
  const decode = await probeRequest(target, prefix(1) + shortest.body, shortest.contextTokens, 64, apiKey);
  if (decode.outcome !== 'completed' || decode.decodeTokensPerSecond === null) {
    throw new Error(`probe request to ${target.baseUrl} failed: ${decode.outcome === 'errored' ? `${decode.errorKind}: ${decode.errorMessage}` : 'no decode speed'}`);
  }
  const prefill = await probeRequest(target, prefix(2) + forPrefill.body, forPrefill.contextTokens, 2, apiKey);
  if (prefill.outcome !== 'completed' || prefill.prefillTokensPerSecond === null) {
    throw new Error(`probe request to ${target.baseUrl} failed: ${prefill.outcome === 'errored' ? `${prefill.errorKind}: ${prefill.errorMessage}` : 'no prefill speed'}`);
  }
  return { prefillTokensPerSecond: prefill.prefillTokensPerSecond, prefillContextTokens: forPrefill.contextTokens, decodeTokensPerSecond: decode.decodeTokensPerSecond };
}
