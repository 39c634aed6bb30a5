// The stream writer of each API (sim/stream-writer.ts): chat and completions as vLLM or SGLang stream them, OpenAI's
// Responses and Anthropic's Messages. Runs in Node, pure (a writer keeps only which parts of its stream it opened).

import type { Flavour } from './profiles';
import {
  completionBody, contentChunk, DONE_EVENT, finishChunk, roleChunk, streamErrorEvent, usageChunk, type StreamIdentity,
  type Usage,
} from './sse';
import { messagesWriter } from './sse-messages';
import { responsesWriter } from './sse-responses';
import type { StreamWriter } from './stream-writer';

/** The writer of one stream of `identity`'s API. */
export function streamWriter(identity: StreamIdentity): StreamWriter {
  if (identity.endpoint === 'responses') return responsesWriter(identity);
  if (identity.endpoint === 'messages') return messagesWriter(identity);
  return openAiWriter(identity);
}

/** /chat/completions and /completions, as vLLM or SGLang stream them. */
function openAiWriter(s: StreamIdentity): StreamWriter {
  // Completions have no field for thinking: a server streams it as text and its usage does not split it out.
  const shown = (usage: Usage): Usage => {
    if (s.endpoint !== 'completion' || !usage.completion_tokens_details) return usage;
    const { completion_tokens_details: _reasoning, ...rest } = usage;
    return rest;
  };
  return {
    finishOnLastToken: finishesOnLastToken(s.flavour),
    open: () => (s.endpoint === 'chat' ? roleChunk(s) : ''),
    delta: (text, kind, finish) => contentChunk(s, text, finish, kind),
    close(end) {
      let out = end.finishSent ? '' : finishChunk(s, end.finish);
      if (end.usage) out += usageChunk(s, shown(end.usage));
      return end.closed ? out + DONE_EVENT : out;
    },
    error: (message) => streamErrorEvent(message) + DONE_EVENT,
    body: (text, finish, usage) => completionBody(s, text, finish, shown(usage)),
  };
}

function finishesOnLastToken(flavour: Flavour): boolean {
  return flavour === 'vllm';
}
