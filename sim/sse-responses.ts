// OpenAI's Responses API stream (POST /v1/responses, stream: true), as the simulator writes it: typed events, each
// `event: TYPE` with a JSON object of the same `type`. Runs in Node, pure.

import type { StreamIdentity, Usage } from './sse';
import type { StreamEnd, StreamWriter, TokenKind } from './stream-writer';

/** One typed SSE event. */
export function typedEvent(type: string, payload: Record<string, unknown>): string {
  return `event: ${type}\ndata: ${JSON.stringify({ type, ...payload })}\n\n`;
}

/** The Responses API's usage object, from the chat-shaped one the simulator keeps. */
export function responsesUsage(u: Usage): Record<string, unknown> {
  return {
    input_tokens: u.prompt_tokens, input_tokens_details: { cached_tokens: u.prompt_tokens_details.cached_tokens },
    output_tokens: u.completion_tokens,
    output_tokens_details: { reasoning_tokens: u.completion_tokens_details?.reasoning_tokens ?? 0 },
    total_tokens: u.total_tokens,
  };
}

/** The response object of the opening and closing events. */
export function responseObject(
  s: StreamIdentity, status: string, finish: string | null, usage: Usage | null, output: unknown[] = [],
): Record<string, unknown> {
  return {
    id: s.id, object: 'response', created_at: s.created, model: s.model, status, output,
    incomplete_details: finish === 'length' ? { reason: 'max_output_tokens' } : null,
    usage: usage ? responsesUsage(usage) : null,
  };
}

/** Output items: a reasoning item while the model thinks, then the message item of the answer. */
export function responsesWriter(s: StreamIdentity): StreamWriter {
  let seq = 0;
  let item: { kind: TokenKind; index: number; id: string } | null = null;
  let items = 0;
  const ev = (type: string, payload: Record<string, unknown>): string =>
    typedEvent(type, { ...payload, sequence_number: seq++ });
  const closeItem = (): string => {
    if (item === null) return '';
    const at = { item_id: item.id, output_index: item.index };
    const out = item.kind === 'reasoning'
      ? ev('response.reasoning_text.done', { ...at, content_index: 0 }) +
        ev('response.output_item.done', { output_index: item.index, item: { id: item.id, type: 'reasoning' } })
      : ev('response.output_text.done', { ...at, content_index: 0 }) +
        ev('response.content_part.done', { ...at, content_index: 0 }) +
        ev('response.output_item.done', { output_index: item.index, item: { id: item.id, type: 'message' } });
    item = null;
    return out;
  };
  const openItem = (kind: TokenKind): string => {
    const index = items++;
    item = { kind, index, id: `${kind === 'reasoning' ? 'rs' : 'msg'}_${s.id}_${index}` };
    const type = kind === 'reasoning' ? 'reasoning' : 'message';
    let out = ev('response.output_item.added', {
      output_index: index, item: { id: item.id, type, status: 'in_progress' },
    });
    if (kind === 'content') {
      out += ev('response.content_part.added', {
        item_id: item.id, output_index: index, content_index: 0, part: { type: 'output_text', text: '' },
      });
    }
    return out;
  };
  return {
    finishOnLastToken: false,
    open: () =>
      ev('response.created', { response: responseObject(s, 'in_progress', null, null) }) +
      ev('response.in_progress', { response: responseObject(s, 'in_progress', null, null) }),
    delta(text, kind) {
      let out = '';
      if (item?.kind !== kind) out = closeItem() + openItem(kind);
      const type = kind === 'reasoning' ? 'response.reasoning_text.delta' : 'response.output_text.delta';
      return out + ev(type, { item_id: item!.id, output_index: item!.index, content_index: 0, delta: text });
    },
    close(end: StreamEnd) {
      const out = closeItem();
      if (!end.closed) return out;
      const type = end.finish === 'length' ? 'response.incomplete' : 'response.completed';
      const status = end.finish === 'length' ? 'incomplete' : 'completed';
      return out + ev(type, { response: responseObject(s, status, end.finish, end.usage) });
    },
    error: (message) =>
      ev('response.failed', {
        response: { ...responseObject(s, 'failed', null, null), error: { code: 'server_error', message } },
      }),
    body(text, finish, usage) {
      const output: unknown[] = [];
      if (text.reasoning !== '')
        output.push({ type: 'reasoning', content: [{ type: 'reasoning_text', text: text.reasoning }] });
      output.push({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: text.content }] });
      return JSON.stringify(responseObject(s, finish === 'length' ? 'incomplete' : 'completed', finish, usage, output));
    },
  };
}
