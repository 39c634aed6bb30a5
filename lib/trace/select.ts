// Picks the rows a replay sends: a time window of the trace, sped up or slowed down, capped.
// Runs in k6 and Node (pure).

import { TraceError, type TraceRow } from './types';

export interface SelectOptions {
  /** Replay speed: 2 sends the trace twice as fast (every time divided by 2). Default 1. */
  readonly speed?: number;
  /** Window start, s of trace time from the trace's first row. Default 0. */
  readonly startSeconds?: number;
  /** Window length, s of trace time (before the speed-up). Default: to the end. */
  readonly durationSeconds?: number;
  /** At most this many rows, the earliest. Default: no cap. */
  readonly maxRequests?: number;
}

export interface Selection {
  /** The chosen rows, times from the window start divided by the speed; each keeps its index in the whole trace. */
  readonly rows: readonly TraceRow[];
  /** Rows whose time fell in the window. */
  readonly inWindow: number;
  /** Conversation turns dropped because their parent turn was not selected (with every turn that follows them). */
  readonly droppedTurns: number;
  /** Rows left out by maxRequests. */
  readonly cappedRows: number;
}

/**
 * The rows with start <= time < start + duration, in the order given (time order, as loadTrace gives them), with
 * timestampMs' = (timestampMs - start) / speed. A turn whose parentChatId names a chat not selected is dropped, and
 * so, in turn, are its descendants: a replay never sends a follow-up without the turn it follows. Then the cap.
 * Throws TraceError when an option is out of range.
 */
export function selectRows(rows: readonly TraceRow[], options: SelectOptions = {}): Selection {
  const speed = check('speed', options.speed ?? 1, (v) => v > 0 && isFinite(v), 'a number > 0');
  const startMs = 1000 * check('startSeconds', options.startSeconds ?? 0, (v) => v >= 0 && isFinite(v),
    'a number >= 0');
  const durationMs = 1000 * check('durationSeconds', options.durationSeconds ?? Infinity, (v) => v > 0, 'a number > 0');
  const cap = check('maxRequests', options.maxRequests ?? Infinity,
    (v) => v === Infinity || (Number.isInteger(v) && v >= 1), 'a whole number >= 1');
  const window = rows.filter((r) => r.timestampMs >= startMs && r.timestampMs - startMs < durationMs);
  const selected = new Set<string>();
  const linked: TraceRow[] = [];
  for (const r of window) {
    if (r.parentChatId !== null && !selected.has(r.parentChatId)) continue;
    if (r.chatId !== null) selected.add(r.chatId);
    linked.push(r);
  }
  // Parents come before their turns in time order, so the earliest rows never include a turn without its parent.
  const chosen = linked.slice(0, cap);
  return {
    rows: chosen.map((r) => ({ ...r, timestampMs: Math.round(((r.timestampMs - startMs) / speed) * 1000) / 1000 })),
    inWindow: window.length,
    droppedTurns: window.length - linked.length,
    cappedRows: linked.length - chosen.length,
  };
}

function check(name: string, value: number, ok: (v: number) => boolean, want: string): number {
  if (typeof value !== 'number' || Number.isNaN(value) || !ok(value))
    throw new TraceError(`${name} must be ${want}, got ${value}`);
  return value;
}
