// selectRows: the time window, the speed-up, the cap, and Bailian conversations never started mid-way.
// Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { selectRows, TraceError, type TraceRow } from '../../lib/trace/index';

function row(index: number, seconds: number, chat: { id: string; parent: string | null } | null = null): TraceRow {
  return {
    index, timestampMs: seconds * 1000, inputTokens: 10, outputTokens: 5, hashIds: null, blockTokens: null,
    chatId: chat?.id ?? null, parentChatId: chat?.parent ?? null, turn: null, sessionId: null, delayMs: null,
    durationMs: null,
  };
}

/** One row a second, at 0 .. 9 s. */
const EVERY_SECOND = Array.from({ length: 10 }, (_, i) => row(i, i));

describe('selectRows', () => {
  it('without options keeps every row as it is', () => {
    expect(selectRows(EVERY_SECOND)).toEqual({ rows: EVERY_SECOND, inWindow: 10, droppedTurns: 0, cappedRows: 0 });
  });

  it('keeps start <= time < start + duration, re-based to the window start', () => {
    const s = selectRows(EVERY_SECOND, { startSeconds: 2, durationSeconds: 3 });
    expect(s.rows.map((r) => [r.index, r.timestampMs])).toEqual([[2, 0], [3, 1000], [4, 2000]]);
    expect(s.inWindow).toBe(3);
  });

  it('re-bases to the window start, not to the first row in it', () => {
    const s = selectRows([row(0, 0), row(1, 2.5)], { startSeconds: 2 });
    expect(s.rows.map((r) => r.timestampMs)).toEqual([500]);
  });

  it('divides the times by the speed: 2 is twice as fast, 0.5 half as fast', () => {
    expect(selectRows(EVERY_SECOND, { startSeconds: 2, durationSeconds: 3, speed: 2 }).rows.map((r) => r.timestampMs))
      .toEqual([0, 500, 1000]);
    expect(selectRows(EVERY_SECOND, { durationSeconds: 2, speed: 0.5 }).rows.map((r) => r.timestampMs))
      .toEqual([0, 2000]);
    expect(selectRows([row(0, 0), row(1, 1)], { speed: 3 }).rows[1]!.timestampMs).toBe(333.333);
  });

  it('caps at maxRequests, the earliest, and counts the rest', () => {
    const s = selectRows(EVERY_SECOND, { startSeconds: 5, maxRequests: 2 });
    expect(s.rows.map((r) => r.index)).toEqual([5, 6]);
    expect(s).toMatchObject({ inWindow: 5, cappedRows: 3, droppedTurns: 0 });
  });

  it('gives no rows for a window past the end', () => {
    expect(selectRows(EVERY_SECOND, { startSeconds: 100 }))
      .toEqual({ rows: [], inWindow: 0, droppedTurns: 0, cappedRows: 0 });
  });

  it.each([
    [{ speed: 0 }, 'speed must be a number > 0, got 0'],
    [{ speed: Infinity }, 'speed must be a number > 0, got Infinity'],
    [{ startSeconds: -1 }, 'startSeconds must be a number >= 0, got -1'],
    [{ durationSeconds: 0 }, 'durationSeconds must be a number > 0, got 0'],
    [{ maxRequests: 1.5 }, 'maxRequests must be a whole number >= 1, got 1.5'],
    [{ maxRequests: NaN }, 'maxRequests must be a whole number >= 1, got NaN'],
  ])('%j is a TraceError', (options, message) => {
    expect(() => selectRows(EVERY_SECOND, options)).toThrow(TraceError);
    expect(() => selectRows(EVERY_SECOND, options)).toThrow(message);
  });
});

describe('selectRows on conversations', () => {
  // Conversation A: a1 at 0 s, a2 at 5 s, a3 at 10 s. Conversation B: b1 at 6 s, b2 at 12 s.
  const CHATS = [
    row(0, 0, { id: 'a1', parent: null }), row(1, 5, { id: 'a2', parent: 'a1' }), row(2, 6, { id: 'b1', parent: null }),
    row(3, 10, { id: 'a3', parent: 'a2' }), row(4, 12, { id: 'b2', parent: 'b1' }),
  ];

  it('drops a turn whose parent is before the window, and every turn after it', () => {
    const s = selectRows(CHATS, { startSeconds: 4 });
    expect(s.rows.map((r) => r.chatId)).toEqual(['b1', 'b2']);
    expect(s).toMatchObject({ inWindow: 4, droppedTurns: 2 });
    expect(s.rows.map((r) => r.timestampMs)).toEqual([2000, 8000]);
  });

  it('keeps whole conversations when the window holds them, and a cap never keeps a turn without its parent', () => {
    expect(selectRows(CHATS).rows.map((r) => r.chatId)).toEqual(['a1', 'a2', 'b1', 'a3', 'b2']);
    expect(selectRows(CHATS, { maxRequests: 3 }).rows.map((r) => r.chatId)).toEqual(['a1', 'a2', 'b1']);
  });

  it('a window ending mid-conversation keeps its first turns', () => {
    const s = selectRows(CHATS, { durationSeconds: 7 });
    expect(s.rows.map((r) => r.chatId)).toEqual(['a1', 'a2', 'b1']);
    expect(s.droppedTurns).toBe(0);
  });
});
