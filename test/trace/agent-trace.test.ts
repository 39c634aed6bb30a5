// Agent traces: Mooncake rows with session_id and delay, OpenTelemetry span exports, their bad rows, and the
// sessions, gaps and ideal cached prefixes the agentic replay sends. Runs in Node (vitest).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadAgentTrace, SESSION_BLOCK_TOKENS } from '../../lib/agent-trace';
import { describeRowIssue, detectTraceFormat, loadTrace, TraceError } from '../../lib/trace/index';

const source = { file: 't.jsonl', format: null, skipBadRows: false };

/** One OTLP JSON export line of the given spans. */
function exportLine(spans: unknown[]): string {
  return JSON.stringify({ resourceSpans: [{ resource: {}, scopeSpans: [{ scope: {}, spans }] }] });
}

const attr = (key: string, v: string | number) =>
  ({ key, value: typeof v === 'number' ? { intValue: String(v) } : { stringValue: v } });

/** A chat span of trace `trace` from `fromMs` to `toMs` (under 1000) after 1,764,921,600 s. */
function chat(trace: string, fromMs: number, toMs: number, input: number | null = 100, output: number | null = 10) {
  const ns = (ms: number) => `1764921600${String(ms * 1e6).padStart(9, '0')}`;
  return {
    traceId: trace, spanId: 'b', startTimeUnixNano: ns(fromMs), endTimeUnixNano: ns(toMs),
    attributes: [attr('gen_ai.operation.name', 'chat'),
      ...(input === null ? [] : [attr('gen_ai.usage.input_tokens', input)]),
      ...(output === null ? [] : [attr('gen_ai.usage.output_tokens', output)])],
  };
}

function badMessages(text: string): string[] {
  return loadTrace(text).badRows.map(describeRowIssue);
}

describe('OpenTelemetry span exports', () => {
  it('detects an export line, and reads model-call spans as rows with their durations and sessions', () => {
    const text = exportLine([chat('t1', 0, 400), { ...chat('t1', 900, 990, 300, 20) },
      { traceId: 't1', spanId: 'c', startTimeUnixNano: '1764921600400000000', endTimeUnixNano: '1764921600800000000',
        attributes: [attr('gen_ai.operation.name', 'execute_tool')] }]);
    expect(detectTraceFormat(text)).toBe('otel');
    const load = loadTrace(text);
    expect(load.rows.map((r) => [r.timestampMs, r.durationMs, r.inputTokens, r.outputTokens, r.sessionId]))
      .toEqual([[0, 400, 100, 10, 't1'], [900, 90, 300, 20, 't1']]);
    expect(load.skippedRows.map((r) => r.count)).toEqual([1]);
  });

  it('takes gen_ai.conversation.id over the trace id as the session', () => {
    const span = chat('t1', 0, 5);
    span.attributes.push(attr('gen_ai.conversation.id', 'conv-9'));
    expect(loadTrace(exportLine([span])).rows[0]!.sessionId).toBe('conv-9');
  });

  it.each([
    ['not JSON', '{"resourceSpans": [', 'is not JSON'],
    ['no spans list', JSON.stringify({ resourceSpans: [{ scopeSpans: [{}] }] }),
      'has a scopeSpans entry without a spans list'],
    ['no scopeSpans', JSON.stringify({ resourceSpans: [{}] }), 'has a resourceSpans entry without a scopeSpans list'],
    ['a span not an object', exportLine([chat('t', 0, 1), 7]), 'a span is not a JSON object'],
    ['no start', exportLine([chat('t', 0, 1), { ...chat('t', 0, 1), startTimeUnixNano: 'soon' }]),
      'a model-call span has no startTimeUnixNano of whole ns'],
    ['no end', exportLine([chat('t', 0, 1), { ...chat('t', 0, 1), endTimeUnixNano: undefined }]),
      'a model-call span has no endTimeUnixNano of whole ns'],
    ['end before start', exportLine([chat('t', 0, 1), chat('t', 50, 10)]), 'a model-call span ends before it starts'],
    ['no input tokens', exportLine([chat('t', 0, 1), chat('t', 0, 1, null)]),
      'a model-call span has no gen_ai.usage.input_tokens >= 1'],
    ['no output tokens', exportLine([chat('t', 0, 1), chat('t', 0, 1, 5, null)]),
      'a model-call span has no gen_ai.usage.output_tokens >= 1'],
    ['no session', exportLine([chat('t', 0, 1), { ...chat('t', 0, 1), traceId: '' }]),
      'a model-call span has neither gen_ai.conversation.id nor traceId'],
  ])('%s is a bad row', (_, line, message) => {
    const first = exportLine([chat('t', 0, 1)]);
    expect(badMessages(`${first}\n${line}`)).toEqual([`1 row (line 2): ${message}`]);
  });
});

describe('Mooncake agent rows', () => {
  it('reads session_id and delay; a follow-up with a delay alone is timed after the one before', () => {
    const load = loadTrace([
      '{"session_id": "a", "timestamp": 100, "input_length": 600, "output_length": 5, "hash_ids": [1, 2]}',
      '{"session_id": "a", "delay": 250, "input_length": 700, "output_length": 5, "hash_ids": [1, 2]}',
    ].join('\n'));
    expect(load.format).toBe('mooncake');
    expect(load.rows.map((r) => [r.sessionId, r.delayMs, r.timestampMs])).toEqual([['a', null, 0], ['a', 250, 250]]);
  });

  it.each([
    ['{"session_id": [], "timestamp": 0, "input_length": 5, "output_length": 3}',
      'session_id is not a whole number or a text'],
    ['{"session_id": "a", "delay": -1, "input_length": 5, "output_length": 3}', 'delay is not a number of ms >= 0'],
    ['{"session_id": "a", "input_length": 5, "output_length": 3}', 'has no timestamp'],
  ])('%s is a bad row', (line, message) => {
    const first = '{"session_id": "a", "timestamp": 0, "input_length": 5, "output_length": 3}';
    expect(badMessages(`${first}\n${line}`)).toEqual([`1 row (line 2): ${message}`]);
  });
});

describe('loadAgentTrace', () => {
  it('groups Mooncake rows into sessions with their recorded delays and the trace\'s ideal cached prefix', () => {
    const t = loadAgentTrace([
      '{"session_id": "a", "timestamp": 0, "input_length": 600, "output_length": 5, "hash_ids": [1, 2]}',
      '{"session_id": "b", "timestamp": 10, "input_length": 1100, "output_length": 5, "hash_ids": [1, 3, 4]}',
      '{"session_id": "a", "delay": 250, "input_length": 1100, "output_length": 5, "hash_ids": [1, 2, 5]}',
    ].join('\n'), source);
    expect(t.sessions.map((s) => s.id)).toEqual(['a', 'b']);
    expect(t.sessions[0]!.calls.map((c) => [c.gapMs, c.gapFrom, c.idealCachedTokens, c.blockTokens])).toEqual([
      [0, 'end', 0, 512], [250, 'end', 1024, 512],
    ]);
    // Block 1 was sent by session a's first call; block 3 never before.
    expect(t.sessions[1]!.calls[0]!.idealCachedTokens).toBe(512);
    expect(t.summary).toMatchObject({ sessions: 2, calls: 3, maxCallsPerSession: 2, blocks: 'hash_ids',
      idealCachedShare: 1536 / 2800 });
  });

  it('gives span calls the gap from one call\'s end to the next one\'s start, and session blocks of their own', () => {
    const t = loadAgentTrace(exportLine([chat('t1', 0, 400, 40), chat('t1', 900, 990, 70)]), source);
    const [first, second] = t.sessions[0]!.calls;
    expect([second!.gapMs, second!.gapFrom]).toEqual([500, 'end']);
    // Without hash ids a session's calls share their leading blocks: the first call's 40 tokens are 2 full blocks.
    expect(first!.keys).toHaveLength(Math.ceil(40 / SESSION_BLOCK_TOKENS));
    expect(second!.keys.slice(0, 3)).toEqual(first!.keys);
    expect(second!.idealCachedTokens).toBe(3 * SESSION_BLOCK_TOKENS);
    expect(t.summary.blocks).toBe('sessions');
  });

  it('chains Bailian turns into one session, the gap counted from the previous send', () => {
    const t = loadAgentTrace([
      '{"chat_id": 1, "parent_chat_id": -1, "timestamp": 1, "input_length": 50, "output_length": 5, "turn": 1}',
      '{"chat_id": 2, "parent_chat_id": 1, "timestamp": 4, "input_length": 80, "output_length": 5, "turn": 2}',
    ].join('\n'), source);
    expect(t.sessions).toHaveLength(1);
    expect(t.sessions[0]!.calls.map((c) => [c.gapMs, c.gapFrom])).toEqual([[0, 'end'], [3000, 'start']]);
  });

  it('refuses a trace of no sessions, and bad rows unless skipped, in one line', () => {
    expect(() => loadAgentTrace('{"timestamp": 0, "input_length": 5, "output_length": 3}', source))
      .toThrow(/t.jsonl: no row names a session/);
    const text = `${exportLine([chat('t', 0, 1)])}\n${exportLine([chat('t', 5, 1)])}`;
    expect(() => loadAgentTrace(text, source)).toThrow(TraceError);
    expect(() => loadAgentTrace(text, source)).toThrow('t.jsonl: 1 row (line 2): a model-call span ends before it');
    expect(loadAgentTrace(text, { ...source, skipBadRows: true }).summary).toMatchObject({ badRows: 1, calls: 1 });
  });

  it.each(['agent-mooncake.jsonl', 'agent-otel.jsonl'])('loads the synthetic sample %s', (name) => {
    const t = loadAgentTrace(readFileSync(`examples/traces/${name}`, 'utf8'), source);
    expect(t.summary.badRows).toBe(0);
    expect(t.sessions.length).toBeGreaterThanOrEqual(4);
    for (const s of t.sessions) expect(s.calls.slice(1).every((c) => c.gapMs > 0 && c.gapFrom === 'end')).toBe(true);
  });
});
