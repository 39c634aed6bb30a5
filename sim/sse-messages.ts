// Anthropic's Messages API stream (POST /v1/messages, stream: true), as the simulator writes it: message_start,
// content blocks (thinking, then text) of content_block_delta events, message_delta with the stop reason and
// usage, message_stop. Runs in Node, pure.

import type { StreamIdentity, Usage } from './sse';
import { typedEvent } from './sse-responses';
import type { StreamEnd, StreamWriter, TokenKind } from './stream-writer';

/** Anthropic's stop reasons for the chat vocabulary's finish reasons. */
export function stopReason(finish: string): string {
  return finish === 'length' ? 'max_tokens' : 'end_turn';
}

/** Anthropic counts input_tokens apart from the prompt tokens its cache served (cache_read_input_tokens). */
export function messagesInputUsage(u: Usage): Record<string, number> {
  const cached = u.prompt_tokens_details.cached_tokens;
  return { input_tokens: u.prompt_tokens - cached, cache_creation_input_tokens: 0, cache_read_input_tokens: cached };
}

/** The message object of message_start and of a non-streamed answer. */
export function messageObject(
  s: StreamIdentity, usage: Usage, content: unknown[], finish: string | null,
): Record<string, unknown> {
  return {
    id: s.id, type: 'message', role: 'assistant', model: s.model, content,
    stop_reason: finish === null ? null : stopReason(finish), stop_sequence: null,
    usage: { ...messagesInputUsage(usage), output_tokens: finish === null ? 0 : usage.completion_tokens },
  };
}

export function messagesWriter(s: StreamIdentity): StreamWriter {
  let block: { kind: TokenKind; index: number } | null = null;
  let blocks = 0;
  const closeBlock = (): string => {
    if (block === null) return '';
    // A thinking block ends with its signature, which is no token.
    const out = block.kind === 'reasoning'
      ? typedEvent('content_block_delta', {
          index: block.index, delta: { type: 'signature_delta', signature: `sim-${s.id}-${block.index}` },
        })
      : '';
    const stop = typedEvent('content_block_stop', { index: block.index });
    block = null;
    return out + stop;
  };
  return {
    finishOnLastToken: false,
    open: (usage) =>
      typedEvent('message_start', { message: messageObject(s, usage, [], null) }) + typedEvent('ping', {}),
    delta(text, kind) {
      let out = '';
      if (block?.kind !== kind) {
        out = closeBlock();
        block = { kind, index: blocks++ };
        const contentBlock = kind === 'reasoning' ? { type: 'thinking', thinking: '' } : { type: 'text', text: '' };
        out += typedEvent('content_block_start', { index: block.index, content_block: contentBlock });
      }
      const delta = kind === 'reasoning' ? { type: 'thinking_delta', thinking: text } : { type: 'text_delta', text };
      return out + typedEvent('content_block_delta', { index: block!.index, delta });
    },
    close(end: StreamEnd) {
      let out = closeBlock();
      if (!end.closed) return out;
      out += typedEvent('message_delta', {
        delta: { stop_reason: stopReason(end.finish), stop_sequence: null },
        ...(end.usage ? { usage: { output_tokens: end.usage.completion_tokens } } : {}),
      });
      return out + typedEvent('message_stop', {});
    },
    error: (message) => typedEvent('error', { error: { type: 'api_error', message } }),
    body(text, finish, usage) {
      const content: unknown[] = [];
      if (text.reasoning !== '') content.push({ type: 'thinking', thinking: text.reasoning, signature: `sim-${s.id}` });
      content.push({ type: 'text', text: text.content });
      return JSON.stringify(messageObject(s, usage, content, finish));
    },
  };
}
