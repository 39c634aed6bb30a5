// Tests for lib/stream.ts: literal SSE transcripts (test/lib/fixtures) split as k6/x/sse delivers them, replayed with chosen arrival times. Runs in Node (vitest).

import { describe, expect, it } from 'vitest';
import { StreamObserver, readChunk } from '../../lib/stream';
import type { CompletedRecord, ErroredRecord, RequestRecord } from '../../lib/record';
import { readFixture, replay, splitSse } from './helpers/sse';

function completed(r: RequestRecord): CompletedRecord {
  if (r.outcome !== 'completed') throw new Error(`expected completed, got ${r.errorKind}: ${r.errorMessage}`);
  return r;
}

function errored(r: RequestRecord): ErroredRecord {
  if (r.outcome !== 'errored') throw new Error('expected errored, got completed');
  return r;
}

const OK = { status: 200, transportError: '' };

describe('splitSse (the xk6-sse reader the fixtures go through)', () => {
  it('dispatches on a blank line, joins data lines with \\n, turns a comment-only block into an empty event', () => {
    const d = splitSse('data: a\ndata: b\n\n: keep-alive\n\nid: 7\nevent: x\nretry: 10\ndata:{}\n\n');
    expect(d).toEqual([
      { type: 'event', event: { id: '', name: '', comment: '', data: 'a\nb' } },
      { type: 'event', event: { id: '', name: '', comment: 'keep-alive', data: '' } },
      { type: 'event', event: { id: '7', name: 'x', comment: '', data: '{}' } },
    ]);
  });

  it('reports an unknown field line as an error and drops an unterminated last line and an undispatched event', () => {
    expect(splitSse('{"error":1}\ndata: kept\n\ndata: lost\ndata: also lost')).toEqual([
      { type: 'error', message: 'unknown event: {"error":1}\n' },
      { type: 'event', event: { id: '', name: '', comment: '', data: 'kept' } },
    ]);
  });

  it('keeps a trailing \\r on id, name and comment with CRLF, but not on data', () => {
    expect(splitSse(': c\r\nid: 1\r\nevent: message\r\ndata: x\r\n\r\n')).toEqual([{ type: 'event', event: { id: '1\r', name: 'message\r', comment: 'c\r', data: 'x' } }]);
  });
});

describe('StreamObserver on vLLM chat', () => {
  // Deliveries: role, The, sky, is, blue, ., finish, usage, [DONE].
  const times = [1080, 1100, 1120, 1150, 1160, 1200, 1201, 1201, 1202];
  const info = { startMs: 1000, requestedInputTokens: 1000, requestedOutputTokens: 5 };

  it('gives exact TTFT, ITL, TPOT, e2e and speeds; the role-only chunk is not a token', () => {
    const { record, deliveries } = replay(readFixture('vllm-chat.sse'), times, info, { ...OK, endMs: 1203 });
    expect(deliveries).toHaveLength(9);
    expect(record).toEqual({
      outcome: 'completed',
      status: 200,
      startMs: 1000,
      endMs: 1203,
      requestedInputTokens: 1000,
      requestedOutputTokens: 5,
      events: 9,
      inputTokens: 1024,
      inputTokenSource: 'usage',
      outputTokens: 5,
      outputTokenSource: 'usage',
      ttftMs: 100,
      ttfcMs: 100,
      e2eMs: 203,
      itlMs: [20, 30, 10, 40],
      tpotMs: 25.75, // (203 - 100) / (5 - 1)
      decodeTokensPerSecond: 4000 / 103, // (5 - 1) tokens / 0.103 s = 38.83 tok/s
      prefillTokensPerSecond: 10240, // 1024 tokens / 0.1 s
      finishReason: 'length',
      sawDone: true,
    });
  });

  it('gives the same record with CRLF line endings', () => {
    const lf = replay(readFixture('vllm-chat.sse'), times, info, { ...OK, endMs: 1203 }).record;
    const crlf = replay(readFixture('vllm-chat.sse').replace(/\n/g, '\r\n'), times, info, { ...OK, endMs: 1203 }).record;
    expect(crlf).toEqual(lf);
  });
});

describe('StreamObserver on other stream shapes', () => {
  it('vLLM completions: choices[].text is content', () => {
    const r = completed(replay(readFixture('vllm-completions.sse'), [50, 60, 75, 76, 76], { startMs: 0, requestedInputTokens: 500, requestedOutputTokens: 3 }, { ...OK, endMs: 77 }).record);
    expect([r.ttftMs, r.ttfcMs, r.e2eMs]).toEqual([50, 50, 77]);
    expect(r.itlMs).toEqual([10, 15]);
    expect(r.tpotMs).toBe(13.5); // (77 - 50) / 2
    expect(r.decodeTokensPerSecond).toBe(2000 / 27);
    expect(r.prefillTokensPerSecond).toBe(10240); // 512 / 0.05 s
    expect([r.inputTokens, r.inputTokenSource, r.outputTokens, r.outputTokenSource]).toEqual([512, 'usage', 3, 'usage']);
    expect(r.finishReason).toBe('length');
  });

  it('reasoning_content before content: TTFT at the first reasoning token, TTFC at the first content token', () => {
    // role 40; reasoning 100, 110, 120; content 200, 210; finish 211; usage 212; [DONE] 212.
    const r = completed(replay(readFixture('vllm-reasoning-content.sse'), [40, 100, 110, 120, 200, 210, 211, 212, 212], { startMs: 0, requestedInputTokens: 20, requestedOutputTokens: 5 }, { ...OK, endMs: 213 }).record);
    expect(r.ttftMs).toBe(100);
    expect(r.ttfcMs).toBe(200);
    expect(r.itlMs).toEqual([10, 10, 80, 10]);
    expect(r.tpotMs).toBe(28.25); // (213 - 100) / 4
    expect(r.decodeTokensPerSecond).toBe(4000 / 113);
    expect(r.prefillTokensPerSecond).toBe(200); // 20 / 0.1 s
    expect(r.finishReason).toBe('stop');
  });

  it('the newer `reasoning` field counts as a token the same way', () => {
    const r = completed(replay(readFixture('vllm-reasoning.sse'), [10, 50, 70, 90, 91, 91], { startMs: 0, requestedInputTokens: 16, requestedOutputTokens: 3 }, { ...OK, endMs: 92 }).record);
    expect([r.ttftMs, r.ttfcMs]).toEqual([50, 90]);
    expect(r.itlMs).toEqual([20, 20]);
    expect(r.tpotMs).toBe(21);
    expect(r.outputTokens).toBe(3);
    expect(r.finishReason).toBe('stop');
  });

  it('tool-call deltas are tokens; usage tokens are spread over the chunks by text length', () => {
    // Tool chunks weigh 11 ("get_weather"), 10, 5 and 2 characters: 12 tokens split 4, 4, 2, 2.
    const r = completed(replay(readFixture('vllm-tool-call.sse'), [30, 100, 140, 150, 170, 171, 171, 172], { startMs: 0, requestedInputTokens: 300, requestedOutputTokens: 64 }, { ...OK, endMs: 172 }).record);
    expect(r.ttftMs).toBe(100);
    expect(r.ttfcMs).toBeNull();
    expect(r.outputTokens).toBe(12);
    // First chunk: 3 extra tokens at 0 ms; then 40/4, 10/2, 20/2.
    expect(r.itlMs).toEqual([0, 0, 0, 10, 10, 10, 10, 5, 5, 10, 10]);
    expect(r.tpotMs).toBe(72 / 11);
    expect(r.decodeTokensPerSecond).toBe(11000 / 72);
    expect(r.prefillTokensPerSecond).toBe(3000);
    expect(r.finishReason).toBe('tool_calls');
  });

  it('SGLang multi-token chunks: ITL spreads each gap, one sample per token after the first', () => {
    // Chunks of 4, 8 and 12 characters carry 2, 3 and 3 of the 8 usage tokens.
    const r = completed(replay(readFixture('sglang-multi-token.sse'), [20, 200, 260, 320, 321, 321, 322], { startMs: 0, requestedInputTokens: 2048, requestedOutputTokens: 8 }, { ...OK, endMs: 322 }).record);
    expect(r.itlMs).toEqual([0, 20, 20, 20, 20, 20, 20]);
    expect(r.itlMs).toHaveLength(r.outputTokens - 1);
    expect(r.ttftMs).toBe(200);
    expect(r.tpotMs).toBe(122 / 7);
    expect(r.decodeTokensPerSecond).toBe(7000 / 122);
    expect(r.prefillTokensPerSecond).toBe(10240);
    expect(r.events).toBe(7);
  });

  it('speculative decoding: uneven chunks (5, 15, 2, 8 characters) carry 2, 4, 1, 3 tokens', () => {
    const r = completed(replay(readFixture('vllm-speculative.sse'), [10, 100, 130, 135, 165, 166, 166], { startMs: 0, requestedInputTokens: 64, requestedOutputTokens: 10 }, { ...OK, endMs: 167 }).record);
    expect(r.itlMs).toEqual([0, 7.5, 7.5, 7.5, 7.5, 5, 10, 10, 10]);
    expect(r.outputTokens).toBe(10);
    expect(r.tpotMs).toBe(67 / 9);
    expect(r.decodeTokensPerSecond).toBe(9000 / 67);
    expect(r.finishReason).toBe('length');
  });

  it('a stream with finish_reason but no [DONE] completes (llama.cpp shape, content null in the role chunk)', () => {
    const r = completed(replay(readFixture('llamacpp-no-done.sse'), [15, 40, 55, 80, 81], { startMs: 0, requestedInputTokens: 24, requestedOutputTokens: 3 }, { ...OK, endMs: 85 }).record);
    expect(r.sawDone).toBe(false);
    expect(r.finishReason).toBe('stop');
    expect(r.ttftMs).toBe(40);
    expect(r.itlMs).toEqual([15, 25]);
    expect(r.tpotMs).toBe(22.5);
    expect([r.inputTokens, r.outputTokens]).toEqual([20, 3]);
    expect(r.prefillTokensPerSecond).toBe(500);
  });

  it('keep-alive comments arrive as empty events and change no timing', () => {
    // Deliveries: comment 100, comment 200, role 300, A 400, comment 450, B 500, C 600, usage 601, [DONE] 601.
    const { record, deliveries } = replay(readFixture('keep-alive.sse'), [100, 200, 300, 400, 450, 500, 600, 601, 601], { startMs: 0, requestedInputTokens: 100, requestedOutputTokens: 3 }, { ...OK, endMs: 602 });
    expect(deliveries[0]).toEqual({ type: 'event', event: { id: '', name: '', comment: 'keep-alive', data: '' } });
    const r = completed(record);
    expect(r.ttftMs).toBe(400);
    expect(r.itlMs).toEqual([100, 100]);
    expect(r.tpotMs).toBe(101);
    expect(r.events).toBe(9);
  });

  it('CRLF transcript with id, event and comment fields', () => {
    const { record, deliveries } = replay(readFixture('crlf.sse'), [5, 10, 40, 60, 61, 61], { startMs: 0, requestedInputTokens: 8, requestedOutputTokens: 2 }, { ...OK, endMs: 62 });
    expect(deliveries[0]).toEqual({ type: 'event', event: { id: '', name: '', comment: 'stream opened\r', data: '' } });
    expect(deliveries[1]).toMatchObject({ type: 'event', event: { id: '1\r', name: 'message\r' } });
    const r = completed(record);
    expect([r.ttftMs, r.e2eMs, r.outputTokens, r.finishReason, r.sawDone]).toEqual([40, 62, 2, 'stop', true]);
    expect(r.itlMs).toEqual([20]);
  });

  it('no usage: tokens counted from chunks and the input length is the requested one', () => {
    const r = completed(replay(readFixture('no-usage.sse'), [10, 30, 45, 70, 71], { startMs: 0, requestedInputTokens: 1024, requestedOutputTokens: 3 }, { ...OK, endMs: 72 }).record);
    expect([r.outputTokens, r.outputTokenSource, r.inputTokens, r.inputTokenSource]).toEqual([3, 'chunks', 1024, 'requested']);
    expect(r.itlMs).toEqual([15, 25]);
    expect(r.tpotMs).toBe(21);
    expect(r.prefillTokensPerSecond).toBe(1024000 / 30);
  });

  it('one token: no ITL sample, TPOT and decode speed undefined', () => {
    const o = new StreamObserver({ startMs: 0, requestedInputTokens: 10, requestedOutputTokens: 1 });
    o.onEvent('{"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":"length"}]}', 30);
    o.onEvent('{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":1}}', 31);
    o.onEvent('[DONE]', 31);
    const r = completed(o.finish({ ...OK, endMs: 32 }));
    expect(r.itlMs).toEqual([]);
    expect([r.tpotMs, r.decodeTokensPerSecond]).toEqual([null, null]);
    expect(r.prefillTokensPerSecond).toBe(10000 / 30);
  });

  it('usage smaller than the chunk count keeps one ITL sample per usage token after the first', () => {
    const o = new StreamObserver({ startMs: 0, requestedInputTokens: 10, requestedOutputTokens: 2 });
    o.onEvent('{"choices":[{"delta":{"content":"a"}}]}', 10);
    o.onEvent('{"choices":[{"delta":{"content":"b"}}]}', 20);
    o.onEvent('{"choices":[{"delta":{"content":"c"},"finish_reason":"stop"}]}', 35);
    o.onEvent('{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":2}}', 36);
    const r = completed(o.finish({ ...OK, endMs: 40 }));
    expect(r.outputTokens).toBe(2);
    expect(r.itlMs).toEqual([10]);
  });
});

describe('StreamObserver errors', () => {
  const info = { startMs: 0, requestedInputTokens: 32768, requestedOutputTokens: 1024 };

  it('truncated: neither finish_reason nor [DONE]; the cut last event is never delivered', () => {
    const { record, deliveries } = replay(readFixture('truncated.sse'), [10, 50, 70], info, { ...OK, endMs: 90 });
    expect(deliveries).toHaveLength(3);
    expect(errored(record)).toMatchObject({ errorKind: 'truncated', errorMessage: 'stream ended without finish_reason or [DONE]', outputTokensSeen: 2, status: 200, endMs: 90 });
  });

  it('400 with a newline-terminated JSON body: "unknown event" error, message extracted', () => {
    const { record } = replay(readFixture('http-400-vllm.txt'), [5], info, { status: 400, transportError: '', endMs: 6 });
    expect(errored(record)).toMatchObject({
      errorKind: 'http_4xx',
      status: 400,
      events: 0,
      errorMessage: "This model's maximum context length is 32768 tokens. However, you requested 33792 tokens (32768 in the messages, 1024 in the completion). Please reduce the length of the messages or completion.",
    });
  });

  it('400 whose body has no trailing newline: nothing is delivered, the message is the status', () => {
    const { record, deliveries } = replay(readFixture('http-400-no-newline.txt'), [], info, { status: 400, transportError: '', endMs: 6 });
    expect(deliveries).toEqual([]);
    expect(errored(record)).toMatchObject({ errorKind: 'http_4xx', errorMessage: 'HTTP 400' });
  });

  it('429 from a gateway: http_429 with the {"error": {...}} message', () => {
    const { record } = replay(readFixture('http-429.txt'), [3], info, { status: 429, transportError: '', endMs: 4 });
    expect(errored(record)).toMatchObject({ errorKind: 'http_429', errorMessage: 'Rate limit reached for model Qwen3-Coder: 20 requests per minute.' });
  });

  it('503 with a plain-text body: http_5xx keeping the transport words', () => {
    const { record } = replay(readFixture('http-503.txt'), [3], info, { status: 503, transportError: '', endMs: 4 });
    const r = errored(record);
    expect(r.errorKind).toBe('http_5xx');
    expect(r.errorMessage).toContain('unknown event: Service Unavailable');
  });

  it('503 with no body at all: the message is the status', () => {
    expect(errored(new StreamObserver(info).finish({ status: 503, transportError: '', endMs: 1 }))).toMatchObject({ errorKind: 'http_5xx', errorMessage: 'HTTP 503' });
  });

  it('JSON error object inside a 200 stream: server_error with its message, tokens seen kept', () => {
    const { record } = replay(readFixture('vllm-error-in-stream.sse'), [20, 60, 90, 91], info, { ...OK, endMs: 92 });
    expect(errored(record)).toMatchObject({ errorKind: 'server_error', errorMessage: 'CUDA out of memory while decoding', outputTokensSeen: 1, status: 200 });
  });

  it('llama.cpp "error:" line inside a 200 stream: server_error', () => {
    // The blank line after the error line dispatches an empty event, as xk6-sse does.
    const { record, deliveries } = replay(readFixture('llamacpp-stream-error.sse'), [10, 30, 40, 40], info, { ...OK, endMs: 41 });
    expect(deliveries[2]).toEqual({ type: 'error', message: 'unknown event: error: {"code":500,"message":"failed to decode the batch","type":"server_error"}\n' });
    const r = errored(record);
    expect(r.errorKind).toBe('server_error');
    expect(r.errorMessage).toContain('failed to decode the batch');
  });

  it('a data line that is not JSON: malformed_chunk naming the data', () => {
    const { record } = replay(readFixture('malformed.sse'), [10, 20, 21, 30, 31], info, { ...OK, endMs: 32 });
    const r = errored(record);
    expect(r.errorKind).toBe('malformed_chunk');
    // The message quotes at most the first 120 characters of the data.
    const data = '{"id":"chatcmpl-m1","object":"chat.completion.chunk","created":1763800000,"model":"m","choices":[{"index":0,"delta":{"content":"Hel';
    expect(r.errorMessage).toBe(`malformed chunk: ${data.slice(0, 120)}`);
    expect(r.errorMessage).toHaveLength('malformed chunk: '.length + 120);
  });

  it('connection failure: status 0 with the transport error, no events', () => {
    const message = 'Post "http://127.0.0.1:9/v1/chat/completions": dial tcp 127.0.0.1:9: connect: connection refused';
    const r = errored(new StreamObserver({ startMs: 1000, requestedInputTokens: 1, requestedOutputTokens: 1 }).finish({ status: 0, transportError: message, endMs: 1003 }));
    expect(r).toEqual({ outcome: 'errored', status: 0, startMs: 1000, endMs: 1003, requestedInputTokens: 1, requestedOutputTokens: 1, events: 0, errorKind: 'connection', errorMessage: message, outputTokensSeen: 0 });
  });

  it('a whole-stream timeout before the headers: timeout', () => {
    const message = 'Post "http://127.0.0.1:8000/v1/chat/completions": context deadline exceeded (Client.Timeout exceeded while awaiting headers)';
    expect(errored(new StreamObserver(info).finish({ status: 0, transportError: message, endMs: 600000 }))).toMatchObject({ errorKind: 'timeout', errorMessage: message });
  });

  it('a timeout while reading the body (error event on a 200 stream): timeout, tokens seen kept', () => {
    const o = new StreamObserver(info);
    o.onEvent('{"choices":[{"delta":{"content":"a"}}]}', 10);
    o.onEvent('{"choices":[{"delta":{"content":"b"}}]}', 20);
    o.onTransportError('context deadline exceeded (Client.Timeout or context cancellation while reading body)');
    expect(errored(o.finish({ ...OK, endMs: 600000 }))).toMatchObject({ errorKind: 'timeout', outputTokensSeen: 2 });
  });

  it('a reset mid-stream: stream_error', () => {
    const o = new StreamObserver(info);
    o.onEvent('{"choices":[{"delta":{"content":"a"}}]}', 10);
    o.onTransportError('read tcp 127.0.0.1:50000->127.0.0.1:8000: read: connection reset by peer');
    expect(errored(o.finish({ ...OK, endMs: 30 }))).toMatchObject({ errorKind: 'stream_error', errorMessage: 'read tcp 127.0.0.1:50000->127.0.0.1:8000: read: connection reset by peer' });
  });

  it('zero tokens: no_tokens', () => {
    const { record } = replay(readFixture('zero-tokens.sse'), [10, 20, 21, 21], info, { ...OK, endMs: 22 });
    expect(errored(record)).toMatchObject({ errorKind: 'no_tokens', outputTokensSeen: 0, events: 4 });
  });

  it('[DONE] alone: no_tokens', () => {
    const o = new StreamObserver(info);
    o.onEvent('[DONE]', 5);
    expect(errored(o.finish({ ...OK, endMs: 6 })).errorKind).toBe('no_tokens');
  });

  it('the first error wins', () => {
    const o = new StreamObserver(info);
    o.onEvent('not json', 5);
    o.onEvent('{"error":"later"}', 6);
    expect(errored(o.finish({ ...OK, endMs: 7 }))).toMatchObject({ errorKind: 'malformed_chunk', errorMessage: 'malformed chunk: not json' });
  });
});

describe('readChunk', () => {
  it('role-only and usage-only chunks carry no token', () => {
    expect(readChunk({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] })).toEqual({ generatedChars: 0, hasToken: false, hasContent: false, finishReason: null, usage: null, error: null });
    expect(readChunk({ choices: [], usage: { prompt_tokens: 7, completion_tokens: 3 } })).toEqual({ generatedChars: 0, hasToken: false, hasContent: false, finishReason: null, usage: { promptTokens: 7, completionTokens: 3 }, error: null });
  });

  it('reads error shapes: {"error": string}, {"error": {...}}, {"object": "error", ...}, a non-object', () => {
    expect(readChunk({ error: 'boom' }).error).toBe('boom');
    expect(readChunk({ error: { message: 'bad', code: 400 } }).error).toBe('bad');
    expect(readChunk({ error: { code: 400 } }).error).toBe('{"code":400}');
    expect(readChunk({ object: 'error', message: 'overloaded', code: 503 }).error).toBe('overloaded');
    expect(readChunk('[1]').error).toBe('chunk is not a JSON object');
    expect(readChunk(null).error).toBe('chunk is not a JSON object');
  });

  it('a tool-call delta with neither name nor arguments still counts as one token', () => {
    expect(readChunk({ choices: [{ delta: { tool_calls: [{ index: 0 }] } }] })).toMatchObject({ hasToken: true, hasContent: false, generatedChars: 1 });
  });
});

describe('StreamObserver status and transport-error details', () => {
  const info = { startMs: 0, requestedInputTokens: 10, requestedOutputTokens: 5 };

  it('classifies a 3xx as http_other', () => {
    const o = new StreamObserver(info);
    const r = o.finish({ status: 302, transportError: '', endMs: 5 }) as ErroredRecord;
    expect(r.errorKind).toBe('http_other');
  });

  it('trims the newline xk6-sse leaves on "unknown event" and reads a llama.cpp top-level message', () => {
    const o = new StreamObserver(info);
    o.onTransportError('unknown event: {"code":500,"message":"context too long","type":"server_error"}\n');
    const r = o.finish({ status: 200, transportError: '', endMs: 5 }) as ErroredRecord;
    expect(r.errorKind).toBe('server_error');
    expect(r.errorMessage).toBe('context too long');
  });
});

describe('StreamObserver fed by k6/x/llm (event names, bodies, error codes, transport start)', () => {
  const info = { startMs: 100, requestedInputTokens: 8, requestedOutputTokens: 3 };
  const chunk = (content: string) => JSON.stringify({ choices: [{ index: 0, delta: { content } }] });
  const finishChunk = JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'length' }], usage: { prompt_tokens: 8, completion_tokens: 3 } });

  it("times TTFT and e2e from the transport's own start stamp when it gives one", () => {
    const o = new StreamObserver(info);
    o.onEvent(chunk('a'), 150);
    o.onEvent(chunk('b'), 160);
    o.onEvent(chunk('c'), 170);
    o.onEvent(finishChunk, 171);
    o.onEvent('[DONE]', 171);
    const r = completed(o.finish({ ...OK, startMs: 110, endMs: 172 }));
    expect(r.ttftMs).toBe(40);
    expect(r.e2eMs).toBe(62);
    expect(r.startMs).toBe(110);
    expect(r.itlMs).toEqual([10, 10]);
  });

  it('an event the transport already decoded gives the same record as one decoded here', () => {
    const events = [chunk('a'), chunk('b'), '{"error":"x"', chunk('c'), finishChunk, '[DONE]'];
    const plain = new StreamObserver(info);
    const decoded = new StreamObserver(info);
    events.forEach((data, i) => {
      plain.onEvent(data, 150 + i * 10);
      let json: unknown;
      try {
        json = JSON.parse(data);
      } catch {
        decoded.onEvent(data, 150 + i * 10); // not JSON: the transport gives no json
        return;
      }
      decoded.onParsedEvent(data, 150 + i * 10, '', json);
    });
    const end = { ...OK, endMs: 300 };
    expect(decoded.finish(end)).toEqual(plain.finish(end));
    expect(errored(plain.finish(end)).errorKind).toBe('malformed_chunk');
  });

  it('an `event: error` after tokens is a server_error with the server message', () => {
    const o = new StreamObserver(info);
    o.onEvent(chunk('a'), 150);
    o.onEvent('{"error":{"message":"model overloaded","type":"ServiceUnavailable"}}', 160, 'error');
    const r = errored(o.finish({ ...OK, endMs: 170 }));
    expect(r.errorKind).toBe('server_error');
    expect(r.errorMessage).toBe('model overloaded');
    expect(r.outputTokensSeen).toBe(1);
  });

  it("a non-2xx body gives the server's own words; the status decides the kind", () => {
    const r = errored(new StreamObserver(info).finish({ status: 500, transportError: '', endMs: 200, body: '{"object":"error","message":"CUDA out of memory","code":500}' }));
    expect(r).toMatchObject({ errorKind: 'http_5xx', errorMessage: 'CUDA out of memory' });
    const plain = errored(new StreamObserver(info).finish({ status: 429, transportError: '', endMs: 200, body: 'Too Many Requests\n' }));
    expect(plain).toMatchObject({ errorKind: 'http_429', errorMessage: 'Too Many Requests' });
  });

  it('a 200 answer that is a JSON error object, not an event stream, is a server_error', () => {
    const r = errored(new StreamObserver(info).finish({ status: 200, transportError: '', endMs: 200, body: '{"error":{"message":"model overloaded"}}' }));
    expect(r).toMatchObject({ errorKind: 'server_error', errorMessage: 'model overloaded' });
  });

  it('a line of the stream that is not SSE (a bare JSON error) is a server_error with its message', () => {
    const o = new StreamObserver(info);
    o.onEvent(chunk('a'), 150);
    const r = errored(o.finish({ ...OK, endMs: 200, firstInvalidLine: '{"error":"engine dead"}' }));
    expect(r).toMatchObject({ errorKind: 'server_error', errorMessage: 'engine dead' });
  });

  it.each([
    ['connect', 0, 'connection'],
    ['connect_timeout', 0, 'connect_timeout'],
    ['header_timeout', 0, 'ttfb_timeout'],
    ['timeout', 0, 'timeout'],
    ['idle_timeout', 200, 'stalled'],
    ['reset', 200, 'stream_error'],
    ['read', 200, 'stream_error'],
    ['line_too_long', 200, 'malformed_chunk'],
    ['timeout', 200, 'timeout'],
  ] as const)('errorCode %s with status %i: %s', (errorCode, status, kind) => {
    const o = new StreamObserver(info);
    if (status === 200) o.onEvent(chunk('a'), 150);
    const r = errored(o.finish({ status, transportError: `${errorCode} happened`, endMs: 300, errorCode }));
    expect(r.errorKind).toBe(kind);
    expect(r.errorMessage).toBe(`${errorCode} happened`);
  });

  it('an error chunk seen before a reset keeps the first error', () => {
    const o = new StreamObserver(info);
    o.onEvent('{"error":"first"}', 150);
    const r = errored(o.finish({ status: 200, transportError: 'connection reset by peer', endMs: 300, errorCode: 'reset' }));
    expect(r).toMatchObject({ errorKind: 'server_error', errorMessage: 'first' });
  });
});
