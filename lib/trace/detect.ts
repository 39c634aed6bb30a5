// Tells a trace's format from its first line: a CSV header, or the keys of the first JSON object. Runs in k6 and Node
// (pure).

import { splitCsvLine } from './csv';
import { TraceError, type TraceFormat } from './types';

/** The first line of the text that is not blank, without a byte-order mark; null when every line is blank. */
export function firstLineOf(text: string): string | null {
  let start = 0;
  while (start < text.length) {
    const nl = text.indexOf('\n', start);
    const end = nl < 0 ? text.length : nl;
    const line = text.slice(start, end).replace(/^\uFEFF/, '').trim();
    if (line !== '') return line;
    start = end + 1;
  }
  return null;
}

const JSON_HINT = 'a Mooncake row has timestamp (or session_id), input_length, output_length; a Bailian row also '
  + 'chat_id, parent_chat_id; an OpenTelemetry export line resourceSpans';
const CSV_HINT = 'Azure has TIMESTAMP,ContextTokens,GeneratedTokens; BurstGPT has Timestamp,Model,Request tokens,'
  + 'Response tokens';

/**
 * The format of a trace, from its first non-blank line: a JSON object with chat_id and parent_chat_id is Bailian, one
 * with resourceSpans an OpenTelemetry (OTLP JSON) export, one with timestamp or session_id, input_length and
 * output_length Mooncake; a CSV header with ContextTokens and GeneratedTokens is
 * Azure, one with Request tokens and Response tokens BurstGPT. Throws TraceError (one line) for anything else.
 */
export function detectTraceFormat(text: string): TraceFormat {
  const line = firstLineOf(text);
  if (line === null) throw new TraceError('the trace is empty');
  if (line.startsWith('{')) return jsonFormat(line);
  const names = (splitCsvLine(line) ?? []).map((f) => f.trim().toLowerCase());
  const has = (...want: string[]): boolean => want.every((w) => names.includes(w));
  if (has('timestamp', 'contexttokens', 'generatedtokens')) return 'azure';
  if (has('timestamp', 'request tokens', 'response tokens')) return 'burstgpt';
  throw new TraceError(
    `unknown trace format: the first line is neither a JSON object nor a known CSV header (${CSV_HINT})`,
  );
}

function jsonFormat(line: string): TraceFormat {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new TraceError(`unknown trace format: the first line starts with "{" but is not JSON (${JSON_HINT})`);
  }
  const keys = typeof value === 'object' && value !== null && !Array.isArray(value) ? Object.keys(value) : [];
  if (keys.includes('chat_id') && keys.includes('parent_chat_id')) return 'bailian';
  if (keys.includes('resourceSpans')) return 'otel';
  const mooncake = keys.includes('timestamp') || keys.includes('session_id');
  if (mooncake && ['input_length', 'output_length'].every((k) => keys.includes(k))) return 'mooncake';
  const shown = keys.slice(0, 8).join(', ') + (keys.length > 8 ? ', ...' : '');
  throw new TraceError(`unknown trace format: the first JSON row has keys ${shown || '(none)'} (${JSON_HINT})`);
}
