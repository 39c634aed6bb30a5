// Ground truth of the simulator: per request, when each token was written to the socket (epoch ms as float).
// Runs in Node.

import type { Endpoint } from './sse';

/** Epoch ms as a float: performance.timeOrigin + performance.now() (the contract's clock). */
export function epochMs(): number {
  return performance.timeOrigin + performance.now();
}

/** How much of the prompt's first line a record keeps. */
export const PROMPT_HEAD_CHARS = 64;

/** The first line of a prompt's last user text (or of the completions prompt), at most PROMPT_HEAD_CHARS. */
export function promptHead(
  messages: readonly { readonly role: string; readonly content: string }[] | null, prompt: string | null,
): string {
  const user = messages === null ? undefined : [...messages].reverse().find((m) => m.role === 'user');
  const text = user?.content ?? prompt ?? '';
  const end = text.indexOf('\n');
  return (end < 0 ? text : text.slice(0, end)).slice(0, PROMPT_HEAD_CHARS);
}

export interface GroundTruthRecord {
  /** The response header x-request-id. */
  readonly requestId: string;
  readonly endpoint: Endpoint;
  readonly stream: boolean;
  readonly promptTokens: number;
  /**
   * The prompt's first line (the last user message's, or a completions prompt's), at most PROMPT_HEAD_CHARS: a client
   * that sends no x-request-id can still be matched by a line unique to each request (the suite's prompts start with
   * one, lib/prompt-text.ts requestPrefix).
   */
  readonly promptHead: string;
  /** Content tokens the server planned to send (= usage.completion_tokens). */
  readonly completionTokens: number;
  /** When the request's headers were read, epoch ms. */
  readonly arrivalEpochMs: number;
  /** When each content token was written, epoch ms; a multi-token chunk gives its tokens the same time. */
  readonly tokenEpochMs: number[];
  /** When the response ended (or was cut), epoch ms; null while in flight. */
  endEpochMs: number | null;
  finishReason: 'length' | 'stop' | null;
  /** completed; aborted (client went away); faulted (an injected fault ended or broke the stream). */
  outcome: 'in-flight' | 'completed' | 'aborted' | 'faulted';
  /** Injected faults, by kind. */
  readonly faults: string[];
  /** Prompt tokens the prefix cache served, as usage states them: set when the prompt is first scheduled (0 before). */
  cachedTokens: number;
  /**
   * The tool calls and tool results the request's conversation carried, whichever API's shape they came in (chat
   * tool_calls and tool messages, Responses function_call items, Messages tool_use and tool_result blocks).
   */
  readonly toolCalls: number;
  readonly toolResults: number;
}

/** An embeddings or rerank answer as the simulator served it: one JSON body, no tokens to time. */
export interface EmbedTruthRecord {
  /** The response header x-request-id (the client's own when it sent one). */
  readonly requestId: string;
  readonly route: 'embeddings' | 'rerank';
  /** Inputs (rerank: documents) and the tokens the batcher read for them (usage.prompt_tokens). */
  readonly items: number;
  readonly promptTokens: number;
  /** When the request's headers were read, and when its answer was written, epoch ms. */
  readonly arrivalEpochMs: number;
  readonly endEpochMs: number;
}

export class GroundTruthStore {
  private records: GroundTruthRecord[] = [];
  private embedRecords: EmbedTruthRecord[] = [];

  add(r: GroundTruthRecord): void {
    this.records.push(r);
  }

  addEmbed(r: EmbedTruthRecord): void {
    this.embedRecords.push(r);
  }

  /** A snapshot (copies) of every record so far. */
  all(): GroundTruthRecord[] {
    return this.records.map((r) => ({ ...r, tokenEpochMs: [...r.tokenEpochMs], faults: [...r.faults] }));
  }

  /** Every embeddings and rerank answer so far. */
  embeds(): EmbedTruthRecord[] {
    return [...this.embedRecords];
  }

  clear(): void {
    this.records = [];
    this.embedRecords = [];
  }
}
