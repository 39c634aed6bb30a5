// Mooncake and Bailian rows: fields read, and every bad-row kind with its one-line message and count.
// Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { describeRowIssue, loadTrace } from '../../lib/trace/index';

const MOONCAKE_OK = (t: number): string =>
  JSON.stringify({ timestamp: t, input_length: 1024, output_length: 8, hash_ids: [1, 2] });
const BAILIAN_OK = (chat: number): string => JSON.stringify({
  chat_id: chat, parent_chat_id: -1, timestamp: chat, input_length: 32, output_length: 8, type: 'text', turn: 1,
  hash_ids: [1, 2],
});

/** The bad-row lines of a file whose lines 2 and 4 hold the bad line, between good rows. */
function issues(good: (n: number) => string, badLine: string): string[] {
  const load = loadTrace([good(1), badLine, good(2), badLine, good(3)].join('\n'), {
    format: good(1).includes('chat_id') ? 'bailian' : 'mooncake',
  });
  expect(load.rows).toHaveLength(3);
  return load.badRows.map(describeRowIssue);
}

const NOT_IDS = 'hash_ids is not a list of whole numbers';

describe('Mooncake rows', () => {
  it('reads timestamp (ms), lengths and 512-token hash ids; other keys are ignored', () => {
    const load = loadTrace(
      '{"timestamp": 27, "input_length": 1100, "output_length": 9, "hash_ids": [4, 5, 6], "extra": true}\n'
      + '{"timestamp": 1027.5, "input_length": 10, "output_length": 1}\n',
    );
    expect(load.format).toBe('mooncake');
    expect(load.rows).toEqual([
      { index: 0, timestampMs: 0, inputTokens: 1100, outputTokens: 9, hashIds: [4, 5, 6], blockTokens: 512,
        chatId: null, parentChatId: null, turn: null, sessionId: null, delayMs: null, durationMs: null },
      // No hash_ids: no prefix information, not an error.
      { index: 1, timestampMs: 1000.5, inputTokens: 10, outputTokens: 1, hashIds: null, blockTokens: null,
        chatId: null, parentChatId: null, turn: null, sessionId: null, delayMs: null, durationMs: null },
    ]);
    expect(load.badRows).toEqual([]);
  });

  it.each([
    ['{"timestamp": 0, "input_length": 10', 'is not JSON'],
    ['[1, 2, 3]', 'is not a JSON object'],
    ['null', 'is not a JSON object'],
    ['{"input_length": 10, "output_length": 5}', 'has no timestamp'],
    ['{"timestamp": 1, "output_length": 5}', 'has no input_length'],
    ['{"timestamp": 1, "input_length": 10}', 'has no output_length'],
    ['{"timestamp": "1", "input_length": 10, "output_length": 5}', 'timestamp is not a number'],
    ['{"timestamp": 1, "input_length": 0, "output_length": 5}', 'input_length is not a whole number >= 1'],
    ['{"timestamp": 1, "input_length": 1.5, "output_length": 5}', 'input_length is not a whole number >= 1'],
    ['{"timestamp": 1, "input_length": "10", "output_length": 5}', 'input_length is not a whole number >= 1'],
    ['{"timestamp": 1, "input_length": 10, "output_length": -1}', 'output_length is not a whole number >= 1'],
    ['{"timestamp": 1, "input_length": 10, "output_length": 5, "hash_ids": [1, "x"]}', NOT_IDS],
    ['{"timestamp": 1, "input_length": 10, "output_length": 5, "hash_ids": 7}', NOT_IDS],
    ['{"timestamp": 1, "input_length": 10, "output_length": 5, "hash_ids": [-1]}', NOT_IDS],
    ['{"timestamp": 1, "input_length": 10, "output_length": 5, "hash_ids": null}', NOT_IDS],
    ['{"timestamp": 1, "input_length": 513, "output_length": 5, "hash_ids": [1, 2, 3]}',
      'hash_ids has more ids than input_length has blocks of 512 tokens'],
  ])('%s -> %s', (line, message) => {
    expect(issues(MOONCAKE_OK, line)).toEqual([`2 rows (first: line 2): ${message}`]);
  });
});

describe('Bailian rows', () => {
  it('reads chat ids as text, -1 as no parent, time in s, turn, 16-token hash ids; counts rows by type', () => {
    const load = loadTrace([
      BAILIAN_OK(1),
      '{"chat_id": "b", "parent_chat_id": "-1", "timestamp": 0.25, "input_length": 5, "output_length": 3, "turn": 1}',
      '{"chat_id": 2, "parent_chat_id": 1, "timestamp": 1.5, "input_length": 48, "output_length": 4, "type": "search", '
        + '"turn": 2, "hash_ids": [1, 2, 3]}',
    ].join('\n'));
    expect(load.format).toBe('bailian');
    expect(load.rows.map((r) => [r.chatId, r.parentChatId, r.timestampMs, r.turn, r.blockTokens])).toEqual([
      ['b', null, 0, 1, null], ['1', null, 750, 1, 16], ['2', '1', 1250, 2, 16],
    ]);
    expect(load.rowsBy).toEqual({ field: 'type', counts: [{ value: '(none)', rows: 1 }, { value: 'search', rows: 1 },
      { value: 'text', rows: 1 }] });
  });

  it.each([
    ['{"parent_chat_id": -1, "timestamp": 0, "input_length": 5, "output_length": 3, "turn": 1}', 'has no chat_id'],
    ['{"chat_id": 9, "timestamp": 0, "input_length": 5, "output_length": 3, "turn": 1}', 'has no parent_chat_id'],
    ['{"chat_id": 9, "parent_chat_id": -1, "timestamp": 0, "input_length": 5, "output_length": 3}', 'has no turn'],
    ['{"chat_id": 1.5, "parent_chat_id": -1, "timestamp": 0, "input_length": 5, "output_length": 3, "turn": 1}',
      'chat_id is not a whole number or a text'],
    ['{"chat_id": 9, "parent_chat_id": null, "timestamp": 0, "input_length": 5, "output_length": 3, "turn": 1}',
      'parent_chat_id is not -1, a whole number or a text'],
    ['{"chat_id": 9, "parent_chat_id": -1, "timestamp": 0, "input_length": 5, "output_length": 3, "turn": 0}',
      'turn is not a whole number >= 1'],
    ['{"chat_id": 9, "parent_chat_id": -1, "timestamp": 0, "input_length": 17, "output_length": 3, "turn": 1, '
      + '"hash_ids": [1, 2, 3]}', 'hash_ids has more ids than input_length has blocks of 16 tokens'],
    ['{"chat_id": 9, "parent_chat_id": 777, "timestamp": 1, "input_length": 5, "output_length": 3, "turn": 2}',
      'parent_chat_id names no earlier chat'],
  ])('%s -> %s', (line, message) => {
    expect(issues(BAILIAN_OK, line)).toEqual([`2 rows (first: line 2): ${message}`]);
  });

  it('drops a turn whose parent comes later or was itself dropped, and a repeated chat_id, in time order', () => {
    const row = (chat: number, parent: number, t: number, turn: number): string =>
      JSON.stringify({ chat_id: chat, parent_chat_id: parent, timestamp: t, input_length: 5, output_length: 3, turn });
    const load = loadTrace([
      row(1, -1, 0, 1),
      row(3, 2, 5, 3), // line 2: its parent (line 3) is later
      row(2, 1, 9, 2),
      row(4, 3, 10, 4), // line 4: its parent was dropped
      row(1, -1, 11, 1), // line 5: chat 1 again
    ].join('\n'));
    expect(load.rows.map((r) => r.chatId)).toEqual(['1', '2']);
    expect(load.badRows.map(describeRowIssue)).toEqual([
      '2 rows (first: line 2): parent_chat_id names no earlier chat',
      "1 row (line 5): chat_id repeats an earlier row's",
    ]);
  });
});
