// traceStats against hand-worked numbers: rate, gap CV, percentiles, prefix sharing, conversations.
// Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { traceStats, type TraceRow } from '../../lib/trace/index';

function row(seconds: number, input: number, extra: Partial<TraceRow> = {}): TraceRow {
  return {
    index: 0, timestampMs: seconds * 1000, inputTokens: input, outputTokens: 1, hashIds: null, blockTokens: null,
    chatId: null, parentChatId: null, turn: null, sessionId: null, delayMs: null, durationMs: null, ...extra,
  };
}

describe('traceStats', () => {
  it('evenly spaced rows: rate 1/gap, gap CV 0', () => {
    const s = traceStats([0, 1, 2, 3, 4].map((t) => row(t * 0.25, 10)));
    expect(s).toMatchObject({ rows: 5, durationMs: 1000, meanRatePerSecond: 4, gapCv: 0 });
  });

  it('gaps of 1 s and 2 s: mean 1.5 s, population sd 0.5 s, CV 1/3; rate 2 gaps over 3 s', () => {
    const s = traceStats([row(0, 1), row(1, 1), row(3, 1)]);
    expect(s.gapCv).toBeCloseTo(1 / 3, 12);
    expect(s.meanRatePerSecond).toBeCloseTo(2 / 3, 12);
  });

  it('percentiles as k6 takes them, between closest ranks', () => {
    const s = traceStats([500, 100, 400, 200, 300].map((n, i) => row(i, n)));
    // p90: rank 0.9 x 4 = 3.6, 400 + 0.6 x 100; p99: rank 3.96.
    expect(s.inputTokens).toEqual({ p50: 300, p90: 460, p99: 496, max: 500 });
    expect(s.outputTokens).toEqual({ p50: 1, p90: 1, p99: 1, max: 1 });
  });

  it('shared prefix: leading hash ids seen in an earlier row, times the block, capped at the prompt', () => {
    const b = (ids: number[]): Partial<TraceRow> => ({ hashIds: ids, blockTokens: 16 });
    const s = traceStats([
      row(0, 48, b([1, 2, 3])), // nothing seen yet: 0
      row(1, 40, b([1, 2, 9])), // 1, 2 seen: 32
      row(2, 60, b([1, 2, 3, 4])), // 1, 2, 3 seen: 48
      row(3, 20, b([9, 1])), // 9 (row 2) and 1 seen: 32, but the prompt has 20 tokens: 20
      row(4, 40, b([5, 1, 2])), // 5 unseen: the prefix stops there, 0
      row(5, 1000), // no hash ids: not counted
    ]);
    expect(s.prefix).toEqual({ sharedTokens: 100, promptTokens: 208, share: 100 / 208 });
  });

  it('no hash ids, no chat ids: those figures are null', () => {
    const s = traceStats([row(0, 5), row(1, 6)]);
    expect(s.prefix).toBeNull();
    expect(s.conversations).toBeNull();
    expect(s.gapCv).toBeNull(); // one gap says nothing about its spread
  });

  it('conversations follow parentChatId to the first turn', () => {
    const c = (id: string, parent: string | null): Partial<TraceRow> => ({ chatId: id, parentChatId: parent });
    const s = traceStats([
      row(0, 1, c('a', null)), row(1, 1, c('b', null)), row(2, 1, c('a2', 'a')), row(3, 1, c('a3', 'a2')),
    ]);
    expect(s.conversations).toEqual({ count: 2, meanTurns: 2, maxTurns: 3 });
  });

  it('no rows, one row, rows at one time', () => {
    expect(traceStats([])).toEqual({
      rows: 0, durationMs: 0, meanRatePerSecond: null, gapCv: null, inputTokens: null, outputTokens: null, prefix: null,
      conversations: null,
    });
    expect(traceStats([row(0, 7)])).toMatchObject({ rows: 1, durationMs: 0, meanRatePerSecond: null, gapCv: null });
    expect(traceStats([row(1, 7), row(1, 7), row(1, 7)])).toMatchObject({ meanRatePerSecond: null, gapCv: null });
  });
});
