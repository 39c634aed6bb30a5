// A generation request once the simulator admits it: the max_tokens it runs with (or the error that refuses it), its
// response's identity and its ground-truth record. Runs in Node.

import { randomBytes } from 'node:crypto';
import type { Fault } from './faults';
import { promptHead, type GroundTruthRecord } from './ground-truth';
import { ApiError } from './api-error';
import { contextLengthError, type GenerationRequest } from './http';
import type { Flavour, Profile } from './profiles';
import type { Endpoint, StreamIdentity } from './sse';
import type { OutputPlan } from './text';
import type { PromptTokens } from './tokenize-pool';

/** A generation request past admission, as its response and the scheduler need it. */
export interface Admitted {
  readonly g: GenerationRequest;
  readonly faults: readonly Fault[];
  readonly prompt: PromptTokens;
  readonly seed: number;
  readonly plan: OutputPlan;
  /** performance.now() at arrival. */
  readonly arrivalMs: number;
  /** The client's x-request-id, or a new UUID. */
  readonly requestId: string;
  /** The scheduler's id, unique in this server. */
  readonly id: string;
}

/**
 * The max_tokens a request runs with: its own, else what the context window leaves. Throws the server's 400 when
 * prompt and output overflow the window, or the KV cache (batcher; null in fixed timing, which has none).
 */
export function admittedMaxTokens(
  profile: Profile, batcher: { fitsCapacity(tokens: number): boolean } | null, requested: number | null,
  promptTokens: number,
): number {
  const maxTokens = requested ?? profile.maxModelLen - promptTokens;
  if (maxTokens < 1 || promptTokens + maxTokens > profile.maxModelLen)
    throw contextLengthError(profile.maxModelLen, promptTokens, Math.max(maxTokens, 1));
  if (batcher && !batcher.fitsCapacity(promptTokens + maxTokens)) {
    const holds = profile.scheduler.kvCapacityTokens;
    const needs = promptTokens + maxTokens;
    const message = `The request needs ${needs} tokens of KV cache but the cache holds ${holds}.`;
    throw new ApiError(400, message, 'max_tokens');
  }
  return maxTokens;
}

/** The ground-truth record of a request at its arrival; RequestOutput fills in its tokens and end. */
export function arrivalRecord(a: Admitted): GroundTruthRecord {
  return {
    requestId: a.requestId, endpoint: a.g.endpoint, stream: a.g.stream, promptTokens: a.prompt.count,
    promptHead: promptHead(a.g.messages, a.g.prompt),
    completionTokens: a.plan.contentTokens, arrivalEpochMs: performance.timeOrigin + a.arrivalMs, tokenEpochMs: [],
    endEpochMs: null, finishReason: null, cachedTokens: 0, outcome: 'in-flight', faults: a.faults.map((f) => f.kind),
    toolCalls: a.g.toolCalls, toolResults: a.g.toolResults,
  };
}

/** Each API's prefix of a response id, as the real servers write them. */
const ID_PREFIX: Record<Endpoint, string> = {
  chat: 'chatcmpl-', completion: 'cmpl-', responses: 'resp_', messages: 'msg_',
};

/** The response's id (its API's prefix), creation second and model, as the chunks carry them. */
export function streamIdentity(g: GenerationRequest, flavour: Flavour): StreamIdentity {
  return {
    id: ID_PREFIX[g.endpoint] + randomBytes(16).toString('hex'),
    created: Math.floor(Date.now() / 1000),
    model: g.model,
    endpoint: g.endpoint,
    flavour,
  };
}
