// Property-based tests (fast-check) of lib/stream.ts StreamObserver fed through the transport's SSE parser (runner/llm-sse-parser.ts): any bytes in any split end in exactly one classified record without throwing, and a valid stream split at any byte boundary gives the record of the unsplit stream. Runs in Node (vitest).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StreamObserver, type StreamEnd } from '../../lib/stream';
import type { RequestRecord } from '../../lib/record';
import { LlmSseParser } from '../../runner/llm-sse-parser';

const RUNS = { numRuns: 200 };
const INFO = { startMs: 0, requestedInputTokens: 100, requestedOutputTokens: 16 };
const OUTCOMES = new Set(['completed', 'errored']);

/** Feeds bytes, cut at the given offsets, through the parser into a new observer, as the transport does; every read arrives at the same time so only the split differs. */
function observe(bytes: Uint8Array, cuts: readonly number[], end: StreamEnd): RequestRecord {
  const observer = new StreamObserver(INFO);
  const parser = new LlmSseParser((ev) => observer.onEvent(ev.data, ev.time, ev.name));
  const points = [...new Set(cuts.map((c) => Math.min(c, bytes.length)))].sort((a, b) => a - b);
  let at = 0;
  for (const p of [...points, bytes.length]) {
    if (p > at) parser.push(Buffer.from(bytes.subarray(at, p)), 50);
    at = Math.max(at, p);
  }
  parser.end();
  return observer.finish(end);
}

const OK_END: StreamEnd = { status: 200, transportError: '', endMs: 80 };

/** Pieces of event streams, valid and not, to mix with random bytes. */
const fragment = fc.oneof(
  fc.constantFrom('data: [DONE]\n\n', 'data: {"choices":[{"delta":{"role":"assistant"}}]}\n\n', 'data: {"choices":[{"delta":{},"finish_reason":"stop"}]}\n\n', 'data: {"error":{"message":"CUDA out of memory"}}\n\n', 'event: error\ndata: boom\n\n', ': keep-alive\n\n', '\r\n', '\n', 'data: {"choices":[{"delta":{"content":"', '"}}]}\n\n', '\uFEFF', 'data:', 'retry: 10\n'),
  fc.string().map((s) => `data: {"choices":[{"delta":{"content":${JSON.stringify(s)}}}]}\n\n`),
  fc.string(),
  fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b).toString('latin1')),
);

const anyEnd: fc.Arbitrary<StreamEnd> = fc.record({
  status: fc.constantFrom(0, 200, 200, 400, 429, 500, 503),
  transportError: fc.constantFrom('', '', 'read: connection reset by peer', 'request timeout'),
  endMs: fc.constantFrom(80),
  errorCode: fc.constantFrom(undefined, '', 'reset', 'idle_timeout', 'timeout'),
  body: fc.constantFrom(undefined, '', '{"error":{"message":"overloaded"}}', 'not json'),
}).map((e) => Object.fromEntries(Object.entries(e).filter(([, v]) => v !== undefined)) as unknown as StreamEnd);

function encode(parts: readonly string[]): Uint8Array {
  return Buffer.from(parts.join(''), 'utf8');
}

describe('StreamObserver, property-based', () => {
  it('any events and bytes, in any split, end in exactly one classified record and never throw', () => {
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 20 }), fc.array(fc.nat({ max: 4096 }), { maxLength: 12 }), anyEnd, (parts, cuts, end) => {
        const record = observe(encode(parts), cuts, end);
        expect(OUTCOMES.has(record.outcome)).toBe(true);
        if (record.outcome === 'errored') {
          expect(record.errorKind).toMatch(/^[a-z_0-9]+$/);
          expect(typeof record.errorMessage).toBe('string');
        }
      }),
      RUNS,
    );
  });

  it('a valid stream split at any byte boundary gives the same record as unsplit', () => {
    const validStream = fc.record({
      texts: fc.array(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 12 }),
      reasoning: fc.array(fc.string({ maxLength: 6 }), { maxLength: 3 }),
      usage: fc.boolean(),
      crlf: fc.boolean(),
    });
    fc.assert(
      fc.property(validStream, fc.array(fc.nat({ max: 4096 }), { maxLength: 16 }), ({ texts, reasoning, usage, crlf }, cuts) => {
        const nl = crlf ? '\r\n' : '\n';
        const ev = (o: unknown): string => `data: ${JSON.stringify(o)}${nl}${nl}`;
        const parts = [
          ev({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] }),
          ...reasoning.map((r) => ev({ choices: [{ index: 0, delta: { reasoning_content: r }, finish_reason: null }] })),
          ...texts.map((t) => ev({ choices: [{ index: 0, delta: { content: t }, finish_reason: null }] })),
          ev({ choices: [{ index: 0, delta: {}, finish_reason: 'length' }] }),
          ...(usage ? [ev({ choices: [], usage: { prompt_tokens: 100, completion_tokens: texts.length + reasoning.length, total_tokens: 100 + texts.length + reasoning.length } })] : []),
          `data: [DONE]${nl}${nl}`,
        ];
        const bytes = encode(parts);
        const whole = observe(bytes, [], OK_END);
        expect(whole.outcome).toBe('completed');
        expect(observe(bytes, cuts.map((c) => c % (bytes.length + 1)), OK_END)).toEqual(whole);
        // Byte by byte, the worst split a transport can make.
        expect(observe(bytes, Array.from({ length: bytes.length }, (_, i) => i), OK_END)).toEqual(whole);
      }),
      RUNS,
    );
  });
});
