// Unit tests of the SSE line splitter against xk6-sse's behaviour, fed literal transcripts. Runs in Node.
import { describe, expect, it } from 'vitest';
import { SseParser, type SseEvent } from '../../runner/sse-parser';

function parse(chunks: readonly string[], end = true): { events: SseEvent[]; errors: string[] } {
  const events: SseEvent[] = [];
  const errors: string[] = [];
  const p = new SseParser({ event: (e) => events.push(e), error: (m) => errors.push(m) });
  for (const c of chunks) p.push(Buffer.from(c));
  if (end) p.end();
  return { events, errors };
}

describe('SseParser', () => {
  it('dispatches data events on a blank line, [DONE] included', () => {
    const { events, errors } = parse(['data: {"a":1}\n\ndata: [DONE]\n\n']);
    expect(errors).toEqual([]);
    expect(events).toEqual([
      { id: '', name: '', data: '{"a":1}', comment: '' },
      { id: '', name: '', data: '[DONE]', comment: '' },
    ]);
  });

  it('joins several data lines with a newline and trims only the end of data', () => {
    expect(parse(['data: a\ndata: b\n\n']).events[0]!.data).toBe('a\nb');
    expect(parse(['data:  x \n\n']).events[0]!.data).toBe(' x ');
  });

  it('delivers a comment-only block as an event with empty data', () => {
    expect(parse([': keep-alive\n\n']).events).toEqual([{ id: '', name: '', data: '', comment: 'keep-alive' }]);
  });

  it('keeps a trailing \\r on id, name and comment with CRLF, and dispatches on a CRLF blank line', () => {
    const { events } = parse(['id: 7\r\nevent: msg\r\n: note\r\ndata: hi\r\n\r\n']);
    expect(events).toEqual([{ id: '7\r', name: 'msg\r', comment: 'note\r', data: 'hi' }]);
  });

  it('fires "unknown event: <line>" for an unknown field, newline included, and ignores retry', () => {
    const { events, errors } = parse(['{"error":"boom"}\nretry: 10\ndata: x\n\n']);
    expect(errors).toEqual(['unknown event: {"error":"boom"}\n']);
    expect(events.map((e) => e.data)).toEqual(['x']);
  });

  it('drops an unterminated last line', () => {
    expect(parse(['data: a\n\ndata: b']).events.map((e) => e.data)).toEqual(['a']);
    expect(parse(['data: a\n\ndata: b\n']).events.map((e) => e.data)).toEqual(['a']);
  });

  it('handles lines and multi-byte characters split across chunks', () => {
    const text = 'data: héllo wörld\n\n';
    const bytes = Buffer.from(text);
    const events: SseEvent[] = [];
    const p = new SseParser({ event: (e) => events.push(e), error: () => undefined });
    for (let i = 0; i < bytes.length; i++) p.push(bytes.subarray(i, i + 1));
    expect(events).toEqual([{ id: '', name: '', data: 'héllo wörld', comment: '' }]);
  });

  it('stops dispatching after stop()', () => {
    const events: SseEvent[] = [];
    const p = new SseParser({ event: (e) => { events.push(e); p.stop(); }, error: () => undefined });
    p.push(Buffer.from('data: 1\n\ndata: 2\n\n'));
    expect(events).toHaveLength(1);
  });
});
