// Line parsers of the JSON Lines traces: Mooncake and Qwen Bailian. Runs in k6 and Node (pure).
//
// Mooncake (FAST'25): {timestamp (ms from start), input_length, output_length, hash_ids (512-token blocks)}, and as
// AIPerf reads agent sessions: session_id, and on a session's later rows delay (ms after the previous answer), which
// may stand in for timestamp.
// Bailian: {chat_id, parent_chat_id (-1 for a first turn), timestamp (s), input_length, output_length, type, turn,
// hash_ids (16-token blocks)}. Other keys are ignored. hash_ids may be absent (some converted traces drop it): the
// row then has no prefix information, which is not an error.

import { bad, hashIdsOf, idOf, isFiniteNumber, isWholeAtLeast, newRow, type FormatParser } from './row';
import { BLOCK_TOKENS } from './types';

type Fields = Record<string, unknown>;
interface Common {
  readonly timeMs: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly hashIds: readonly number[] | null;
}

/** The line as a JSON object, or the bad-row message saying why it is not one. */
function objectOf(line: string): Fields | string {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return 'is not JSON';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'is not a JSON object';
  return value as Fields;
}

/** The fields both formats share, or the bad-row message; times are converted with msPerUnit (1 for ms, 1000 for s). */
function commonFields(o: Fields, msPerUnit: number, blockTokens: number): Common | string {
  for (const key of ['timestamp', 'input_length', 'output_length']) if (!(key in o)) return `has no ${key}`;
  if (!isFiniteNumber(o.timestamp)) return 'timestamp is not a number';
  if (!isWholeAtLeast(o.input_length, 1)) return 'input_length is not a whole number >= 1';
  if (!isWholeAtLeast(o.output_length, 1)) return 'output_length is not a whole number >= 1';
  let hashIds: number[] | null = null;
  if ('hash_ids' in o) {
    hashIds = hashIdsOf(o.hash_ids);
    if (hashIds === null) return 'hash_ids is not a list of whole numbers';
    // A prompt of n tokens fills ceil(n / block) blocks; more ids than that cannot describe this prompt.
    if (hashIds.length > Math.ceil(o.input_length / blockTokens))
      return `hash_ids has more ids than input_length has blocks of ${blockTokens} tokens`;
  }
  return { timeMs: o.timestamp * msPerUnit, inputTokens: o.input_length, outputTokens: o.output_length, hashIds };
}

export function mooncakeParser(): FormatParser {
  const block = BLOCK_TOKENS.mooncake!;
  // A session's last send time, for a follow-up row that gives only its delay (AIPerf writes them so).
  const lastMsOf = new Map<string, number>();
  return {
    categoryField: null,
    hasHeader: false,
    header: () => undefined,
    line(line) {
      const o = objectOf(line);
      if (typeof o === 'string') return bad(o);
      const agent = agentFields(o);
      if (typeof agent === 'string') return bad(agent);
      const { sessionId, delayMs } = agent;
      // A session's follow-up may give its delay alone: it went that long after the one before (at the earliest).
      const withTime = !('timestamp' in o) && sessionId !== null && delayMs !== null
        ? { ...o, timestamp: (lastMsOf.get(sessionId) ?? 0) + delayMs } : o;
      const common = commonFields(withTime, 1, block);
      if (typeof common === 'string') return bad(common);
      if (sessionId !== null) lastMsOf.set(sessionId, common.timeMs);
      const row = newRow(common.timeMs, common.inputTokens, common.outputTokens, common.hashIds, block, null, null,
        null, { sessionId, delayMs, durationMs: null });
      return { kind: 'row', row, category: null };
    },
  };
}

/** AIPerf's agent fields of a Mooncake row: session_id and delay (ms after the previous answer), both optional. */
function agentFields(o: Fields): { sessionId: string | null; delayMs: number | null } | string {
  let sessionId: string | null = null;
  if ('session_id' in o && o.session_id !== null) {
    sessionId = idOf(o.session_id);
    if (sessionId === null) return 'session_id is not a whole number or a text';
  }
  let delayMs: number | null = null;
  if ('delay' in o && o.delay !== null) {
    if (!isFiniteNumber(o.delay) || o.delay < 0) return 'delay is not a number of ms >= 0';
    delayMs = o.delay;
  }
  return { sessionId, delayMs };
}

export function bailianParser(): FormatParser {
  const block = BLOCK_TOKENS.bailian!;
  return {
    categoryField: 'type',
    hasHeader: false,
    header: () => undefined,
    line(line) {
      const o = objectOf(line);
      if (typeof o === 'string') return bad(o);
      for (const key of ['chat_id', 'parent_chat_id', 'turn']) if (!(key in o)) return bad(`has no ${key}`);
      const common = commonFields(o, 1000, block);
      if (typeof common === 'string') return bad(common);
      const chatId = idOf(o.chat_id);
      if (chatId === null) return bad('chat_id is not a whole number or a text');
      // -1 (or "-1") marks a first turn.
      const first = o.parent_chat_id === -1 || o.parent_chat_id === '-1';
      const parentChatId = first ? null : idOf(o.parent_chat_id);
      if (!first && parentChatId === null) return bad('parent_chat_id is not -1, a whole number or a text');
      if (!isWholeAtLeast(o.turn, 1)) return bad('turn is not a whole number >= 1');
      const category = typeof o.type === 'string' && o.type !== '' ? o.type : null;
      const row = newRow(common.timeMs, common.inputTokens, common.outputTokens, common.hashIds, block, chatId,
        parentChatId, o.turn);
      return { kind: 'row', row, category };
    },
  };
}
