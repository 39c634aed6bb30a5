// What one streamed response says, per API: the simulator writes every API's stream through this one interface.
// Runs in Node, pure (a writer keeps only which parts of its stream it has opened).

import type { Flavour } from './profiles';
import {
  completionBody, contentChunk, DONE_EVENT, finishChunk, roleChunk, streamErrorEvent, usageChunk, type StreamIdentity, type Usage,
} from './sse';
import { messagesWriter } from './sse-messages';
import { responsesWriter } from './sse-responses';

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

/** The writer of one stream of `identity`'s API. */
export function streamWriter(identity: StreamIdentity): StreamWriter {
  if (identity.endpoint === 'responses') return responsesWriter(identity);
  if (identity.endpoint === 'messages') return messagesWriter(identity);
  return openAiWriter(identity);
}

/** /chat/completions and /completions, as vLLM or SGLang stream them. */
function openAiWriter(s: StreamIdentity): StreamWriter {
  return {
    finishOnLastToken: finishesOnLastToken(s.flavour),
    open: () => (s.endpoint === 'chat' ? roleChunk(s) : ''),
    delta: (text, kind, finish) => contentChunk(s, text, finish, kind),
    close(end) {
      let out = end.finishSent ? '' : finishChunk(s, end.finish);
      if (end.usage) out += usageChunk(s, end.usage);
      return end.closed ? out + DONE_EVENT : out;
    },
    error: (message) => streamErrorEvent(message) + DONE_EVENT,
    body: (text, finish, usage) => completionBody(s, text, finish, usage),
  };
}

function finishesOnLastToken(flavour: Flavour): boolean {
  return flavour === 'vllm';
}
