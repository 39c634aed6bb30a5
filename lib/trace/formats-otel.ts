// Line parser of OpenTelemetry span exports of agents: OTLP JSON, one ExportTraceServiceRequest per line (as the
// Collector's file exporter writes), spans named by the GenAI semantic conventions. Runs in k6 and Node (pure).
//
// A model call is a span whose gen_ai.operation.name is chat, text_completion or generate_content, with its
// gen_ai.usage.input_tokens and output_tokens; it becomes a row at its start time, with its duration, so the gap to
// the session's next call (tools, the user's thinking) is the recorded one. Tool spans (execute_tool) lie inside
// those gaps: they are counted as skipped rows, not sent. The session is gen_ai.conversation.id, else the trace id.

import { bad, idOf, isWholeAtLeast, newRow, type FormatParser, type LineOutcome } from './row';

type Fields = Record<string, unknown>;

const MODEL_CALLS = ['chat', 'text_completion', 'generate_content'];
const TOOL_CALL = 'execute_tool';
const NANOS = /^\d{1,30}$/;

/** An OTLP time in ns (a decimal string, as proto3 JSON writes int64, or a number) as whole seconds and ns. */
function nanosOf(value: unknown): { seconds: number; nanos: number } | null {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) {
    const seconds = Math.floor(value / 1e9);
    return { seconds, nanos: value - seconds * 1e9 };
  }
  if (typeof value !== 'string' || !NANOS.test(value)) return null;
  // ns since 1970 pass 2^53: split, so neither part loses a digit.
  return { seconds: Number(value.slice(0, -9) || '0'), nanos: Number(value.slice(-9)) };
}

/** An attribute's value: OTLP JSON wraps it as {stringValue}, {intValue} (a string or a number), {doubleValue}. */
function attributeValues(attributes: unknown): Map<string, unknown> {
  const values = new Map<string, unknown>();
  if (!Array.isArray(attributes)) return values;
  for (const a of attributes as Fields[]) {
    if (typeof a !== 'object' || a === null || typeof a.key !== 'string') continue;
    const v = a.value as Fields | undefined;
    if (typeof v !== 'object' || v === null) continue;
    const raw = v.stringValue ?? v.intValue ?? v.doubleValue ?? v.boolValue;
    values.set(a.key, typeof raw === 'string' && v.intValue !== undefined ? Number(raw) : raw);
  }
  return values;
}

/** Every span of one export line, or the bad-row message when the line is not one. */
function spansOf(line: string): Fields[] | string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return 'is not JSON';
  }
  const o = value as Fields;
  if (typeof o !== 'object' || o === null || !Array.isArray(o.resourceSpans)) return 'has no resourceSpans list';
  const spans: Fields[] = [];
  for (const rs of o.resourceSpans as Fields[]) {
    const scopes = typeof rs === 'object' && rs !== null ? rs.scopeSpans : undefined;
    if (!Array.isArray(scopes)) return 'has a resourceSpans entry without a scopeSpans list';
    for (const ss of scopes as Fields[]) {
      const list = typeof ss === 'object' && ss !== null ? ss.spans : undefined;
      if (!Array.isArray(list)) return 'has a scopeSpans entry without a spans list';
      spans.push(...(list as Fields[]));
    }
  }
  return spans;
}

export function otelParser(): FormatParser {
  // The first span's second: times are kept from it, so their ns digits survive in a double (as Azure's ticks do).
  let baseSeconds: number | null = null;
  const span = (s: Fields): LineOutcome => {
    if (typeof s !== 'object' || s === null || Array.isArray(s)) return bad('a span is not a JSON object');
    const attributes = attributeValues(s.attributes);
    const operation = attributes.get('gen_ai.operation.name');
    if (operation === TOOL_CALL)
      return { kind: 'skipped', message: 'a tool span (execute_tool): its time is within a gap between model calls' };
    if (typeof operation !== 'string' || !MODEL_CALLS.includes(operation))
      return { kind: 'skipped', message: 'a span that is neither a model call nor a tool (gen_ai.operation.name)' };
    const start = nanosOf(s.startTimeUnixNano);
    const end = nanosOf(s.endTimeUnixNano);
    if (start === null) return bad('a model-call span has no startTimeUnixNano of whole ns');
    if (end === null) return bad('a model-call span has no endTimeUnixNano of whole ns');
    const durationMs = (end.seconds - start.seconds) * 1000 + (end.nanos - start.nanos) / 1e6;
    if (durationMs < 0) return bad('a model-call span ends before it starts');
    const input = attributes.get('gen_ai.usage.input_tokens') ?? attributes.get('gen_ai.usage.prompt_tokens');
    const output = attributes.get('gen_ai.usage.output_tokens') ?? attributes.get('gen_ai.usage.completion_tokens');
    if (!isWholeAtLeast(input, 1)) return bad('a model-call span has no gen_ai.usage.input_tokens >= 1');
    if (!isWholeAtLeast(output, 1)) return bad('a model-call span has no gen_ai.usage.output_tokens >= 1');
    const sessionId = idOf(attributes.get('gen_ai.conversation.id')) ?? idOf(s.traceId);
    if (sessionId === null) return bad('a model-call span has neither gen_ai.conversation.id nor traceId');
    if (baseSeconds === null) baseSeconds = start.seconds;
    const timeMs = (start.seconds - baseSeconds) * 1000 + start.nanos / 1e6;
    const row = newRow(timeMs, input, output, null, null, null, null, null, { sessionId, delayMs: null, durationMs });
    return { kind: 'row', row, category: operation };
  };
  return {
    categoryField: 'gen_ai.operation.name',
    hasHeader: false,
    header: () => undefined,
    line(line) {
      const spans = spansOf(line);
      return typeof spans === 'string' ? bad(spans) : spans.map(span);
    },
  };
}
