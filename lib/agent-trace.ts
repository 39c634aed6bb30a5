// Recorded agent sessions for the agentic script's replay: a trace's rows grouped into sessions, each call with the
// gap the recording left before it and the prompt blocks it shares. Runs in k6 and Node (pure: given the text).
//
// Sessions come from Mooncake rows' session_id (AIPerf's agentic form), Bailian's parent_chat_id chains, or an
// OpenTelemetry export's conversation or trace ids (lib/trace/). A replay agent runs whole sessions one after
// another (lib/k6/agentic-replay.ts), so the ladder counts concurrent agents as the generator's steps do.

import { fnv1a } from './random';
import { loadTraceFile, type TraceFileSource } from './trace-replay';
import { TraceError, type TraceFormat, type TraceRow } from './trace/index';

/**
 * Tokens per block of the keys made for rows without hash_ids: a session's calls share their prompts' leading blocks
 * (an agent resends its history), and a small block keeps what a cache may serve near the recorded prompt.
 */
export const SESSION_BLOCK_TOKENS = 16;

/** One recorded model call of a session, as the replay sends it. */
export interface AgentTraceCall {
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** The prompt's block keys (equal keys, equal text: lib/block-prompt.ts) and their block length. */
  readonly keys: readonly number[];
  readonly blockTokens: number;
  /**
   * The recorded wait before this call, ms (0 for a session's first): after the previous call's answer ('end', from
   * Mooncake's delay or a span's end), or after the previous call was sent ('start', when the trace has only send
   * times; the call then also waits for that answer).
   */
  readonly gapMs: number;
  readonly gapFrom: 'end' | 'start';
  /** Prompt tokens whose leading blocks an earlier call of the trace (recorded order) already sent. */
  readonly idealCachedTokens: number;
  /** The row's index in the loaded trace: its own blocks (past its keys) are keyed by it. */
  readonly traceIndex: number;
}

export interface AgentTraceSession {
  readonly id: string;
  readonly calls: readonly AgentTraceCall[];
}

/** What plan.json records of a replayed agent trace, for the report. */
export interface AgentTraceSummary {
  readonly format: TraceFormat;
  /** Valid rows, rows skipped as bad (skipBadRows), rows the format leaves out (an export's tool spans). */
  readonly loadedRows: number;
  readonly badRows: number;
  readonly skippedRows: number;
  readonly sessions: number;
  readonly calls: number;
  readonly maxCallsPerSession: number;
  readonly maxInputTokens: number;
  readonly maxOutputTokens: number;
  readonly inputTokensTotal: number;
  /** The trace's ideal prefix-cache share: idealCachedTokens over inputTokens, every call. */
  readonly idealCachedShare: number;
  /** Where the prompt blocks come from: the rows' hash_ids, or each session's own calls (no hash_ids). */
  readonly blocks: 'hash_ids' | 'sessions';
}

export interface AgentTrace {
  readonly sessions: readonly AgentTraceSession[];
  readonly summary: AgentTraceSummary;
}

/** Each row's session: its session id; Bailian's first turn's chat id; null for a row of no session. */
function sessionIds(rows: readonly TraceRow[]): (string | null)[] {
  const rootOf = new Map<string, string>();
  return rows.map((r) => {
    if (r.sessionId !== null) return r.sessionId;
    if (r.chatId === null) return null;
    const root = r.parentChatId === null ? r.chatId : (rootOf.get(r.parentChatId) ?? r.parentChatId);
    rootOf.set(r.chatId, root);
    return `chat:${root}`;
  });
}

/** The wait before `row`, the call after `prev` in its session. */
function gapBefore(row: TraceRow, prev: TraceRow | null): Pick<AgentTraceCall, 'gapMs' | 'gapFrom'> {
  if (prev === null) return { gapMs: 0, gapFrom: 'end' };
  if (row.delayMs !== null) return { gapMs: row.delayMs, gapFrom: 'end' };
  if (prev.durationMs !== null)
    return { gapMs: Math.max(0, row.timestampMs - (prev.timestampMs + prev.durationMs)), gapFrom: 'end' };
  return { gapMs: Math.max(0, row.timestampMs - prev.timestampMs), gapFrom: 'start' };
}

/** A row's block keys: its hash ids, else its session's (block i of every call of one session is the same text). */
function keysOf(row: TraceRow, session: string | null): { keys: number[]; blockTokens: number } {
  if (row.hashIds !== null && row.blockTokens !== null) return { keys: [...row.hashIds], blockTokens: row.blockTokens };
  if (session === null) return { keys: [], blockTokens: SESSION_BLOCK_TOKENS };
  const blocks = Math.ceil(row.inputTokens / SESSION_BLOCK_TOKENS);
  const keys = Array.from({ length: blocks }, (_, i) => fnv1a(`${session}#${i}`));
  return { keys, blockTokens: SESSION_BLOCK_TOKENS };
}

/**
 * Loads an agent trace: its rows (the trace loader's checks and bad-row policy), grouped into sessions in the order
 * of their first calls, each call's recorded gap and ideal cached prefix. Throws TraceError (one line).
 */
export function loadAgentTrace(text: string, source: TraceFileSource): AgentTrace {
  const load = loadTraceFile(text, source);
  const ids = sessionIds(load.rows);
  if (ids.every((id) => id === null))
    throw new TraceError(
      `${source.file}: no row names a session; an agent trace needs Mooncake rows with session_id, Bailian ` +
      'conversations or an OpenTelemetry span export',
    );
  const bySession = new Map<string, AgentTraceCall[]>();
  const lastOf = new Map<string, TraceRow>();
  const seen = new Set<string>();
  let idealTotal = 0;
  load.rows.forEach((row, i) => {
    const id = ids[i] ?? `row:${row.index}`;
    const { keys, blockTokens } = keysOf(row, ids[i] ?? null);
    // As lib/trace/stats.ts counts a trace's prefix reuse: leading blocks an earlier row sent, at most the prompt.
    let k = 0;
    while (k < keys.length && seen.has(`${blockTokens}:${keys[k]}`)) k++;
    const idealCachedTokens = Math.min(k * blockTokens, row.inputTokens);
    for (const key of keys) seen.add(`${blockTokens}:${key}`);
    idealTotal += idealCachedTokens;
    const call: AgentTraceCall = {
      inputTokens: row.inputTokens, outputTokens: row.outputTokens, keys, blockTokens,
      ...gapBefore(row, lastOf.get(id) ?? null), idealCachedTokens, traceIndex: row.index,
    };
    lastOf.set(id, row);
    const calls = bySession.get(id);
    if (calls) calls.push(call);
    else bySession.set(id, [call]);
  });
  const sessions = [...bySession].map(([id, calls]) => ({ id, calls }));
  const inputTotal = load.rows.reduce((n, r) => n + r.inputTokens, 0);
  return {
    sessions,
    summary: {
      format: load.format,
      loadedRows: load.rows.length,
      badRows: load.badRows.reduce((n, r) => n + r.count, 0),
      skippedRows: load.skippedRows.reduce((n, r) => n + r.count, 0),
      sessions: sessions.length,
      calls: load.rows.length,
      maxCallsPerSession: sessions.reduce((m, s) => Math.max(m, s.calls.length), 0),
      maxInputTokens: load.rows.reduce((m, r) => Math.max(m, r.inputTokens), 0),
      maxOutputTokens: load.rows.reduce((m, r) => Math.max(m, r.outputTokens), 0),
      inputTokensTotal: inputTotal,
      idealCachedShare: inputTotal === 0 ? 0 : idealTotal / inputTotal,
      blocks: load.rows.some((r) => r.hashIds !== null) ? 'hash_ids' : 'sessions',
    },
  };
}
