// What one streamed response says, per API: the simulator writes every API's stream through this one interface
// (sim/stream-writers.ts makes one per stream). Runs in Node, types only.

import type { Usage } from './sse';

/** A generated token is reasoning (thinking before the answer) or content (the answer). */
export type TokenKind = 'reasoning' | 'content';

export interface StreamEnd {
  /** The chat vocabulary: 'length' or 'stop'. */
  readonly finish: string;
  /** The finish already went out on the last token's chunk (vLLM's chat and completions do that). */
  readonly finishSent: boolean;
  /** Null: the usage is left out (no stream_options.include_usage, or the no-usage fault). */
  readonly usage: Usage | null;
  /** False: the stream ends without its closing event ([DONE], response.completed, message_stop). */
  readonly closed: boolean;
}

export interface StreamWriter {
  /** What opens the stream, written with the first token or the end (chat's role chunk; '' where none). */
  open(usage: Usage): string;
  /** One chunk of `text` (one or more tokens of one kind); `finish`: the last token's chunk carries it (vLLM). */
  delta(text: string, kind: TokenKind, finish: string | null): string;
  /** What ends a stream whose tokens all went out. */
  close(end: StreamEnd): string;
  /** An error inside a 200 stream, the stream's last words. */
  error(message: string): string;
  /** The answer of a request that did not ask to stream: its reasoning and content text as one JSON body. */
  body(text: { readonly reasoning: string; readonly content: string }, finish: string, usage: Usage): string;
  /** Whether the last token's chunk carries the finish (so close() writes no separate finish). */
  readonly finishOnLastToken: boolean;
}
