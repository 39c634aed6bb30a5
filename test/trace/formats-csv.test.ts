// Azure and BurstGPT rows: columns found by name, every bad-row kind with its one-line message and count, BurstGPT's
// failed requests skipped, and the header errors. Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { describeRowIssue, loadTrace, TraceError } from '../../lib/trace/index';

const AZURE_HEADER = 'TIMESTAMP,ContextTokens,GeneratedTokens';
const BURST_HEADER = 'Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type';

/** The bad-row lines of a file whose lines 3 and 5 hold the bad line, between good rows. */
function issues(header: string, good: string, badLine: string): string[] {
  const load = loadTrace([header, good, badLine, good, badLine, good].join('\n'));
  expect(load.rows).toHaveLength(3);
  return load.badRows.map(describeRowIssue);
}

describe('Azure rows', () => {
  it('reads times as ms from the first row, keeping the 100 ns digits', () => {
    const load = loadTrace([
      AZURE_HEADER,
      '2023-11-16 18:15:46.6805900,4808,10',
      '2023-11-16 18:15:48.2359586,1200,250',
      '2023-11-17 00:00:00.0000001,7,1',
    ].join('\r\n'));
    expect(load.format).toBe('azure');
    expect(load.rows.map((r) => [r.timestampMs, r.inputTokens, r.outputTokens])).toEqual([
      [0, 4808, 10], [1555.369, 1200, 250], [20653319.41, 7, 1],
    ]);
    expect(load.rows[0]).toMatchObject({ hashIds: null, blockTokens: null, chatId: null, turn: null });
    expect(load.rowsBy).toBeNull();
  });

  it("finds columns by name, so 2025's NumImages and another order load too", () => {
    const load = loadTrace('GeneratedTokens,NumImages,TIMESTAMP,ContextTokens\n5,2,2025-01-01 00:00:01,100\n');
    expect(load.rows.map((r) => [r.inputTokens, r.outputTokens])).toEqual([[100, 5]]);
  });

  it.each([
    ['2023-11-16 18:15:47,100', 'does not have as many columns as the header'],
    ['2023-11-16 18:15:47,100,5,9', 'does not have as many columns as the header'],
    ['"2023-11-16 18:15:47,100,5', 'is not valid CSV (a quote is not closed, or text follows a closing quote)'],
    ['11/16/2023 18:15,100,5', 'TIMESTAMP is not a date-time like 2023-11-16 18:15:46.6805900'],
    ['2023-11-16 18:15:47,0,5', 'ContextTokens is not a whole number >= 1'],
    ['2023-11-16 18:15:47,,5', 'ContextTokens is not a whole number >= 1'],
    ['2023-11-16 18:15:47,12.5,5', 'ContextTokens is not a whole number >= 1'],
    ['2023-11-16 18:15:47,100,x', 'GeneratedTokens is not a whole number >= 1'],
    ['2023-11-16 18:15:47,100,0', 'GeneratedTokens is not a whole number >= 1'],
  ])('%s -> %s', (line, message) => {
    expect(issues(AZURE_HEADER, '2023-11-16 18:15:46.5,100,5', line)).toEqual([`2 rows (first: line 3): ${message}`]);
  });
});

describe('BurstGPT rows', () => {
  it('reads Timestamp in s, skips failed requests (0 response tokens) without calling them bad, counts models', () => {
    const load = loadTrace([
      BURST_HEADER,
      '5,ChatGPT,472,18,490,Conversation log',
      '5,GPT-4,1000,0,1000,API log',
      '45.5,GPT-4,90,"12",102,"API log"',
      '46,ChatGPT,300,0,300,Conversation log',
      '50,ChatGPT,30,2,32,Conversation log',
    ].join('\n'));
    expect(load.format).toBe('burstgpt');
    expect(load.rows.map((r) => [r.timestampMs, r.inputTokens, r.outputTokens])).toEqual([
      [0, 472, 18], [40500, 90, 12], [45000, 30, 2],
    ]);
    expect(load.badRows).toEqual([]);
    expect(load.skippedRows.map(describeRowIssue))
      .toEqual(['2 rows (first: line 3): Response tokens is 0 (a failed request)']);
    expect(load.rowsBy).toEqual({
      field: 'Model', counts: [{ value: 'ChatGPT', rows: 2 }, { value: 'GPT-4', rows: 1 }],
    });
  });

  it('reads the newer files with Session ID and Elapsed time', () => {
    const load = loadTrace(
      'Timestamp,Session ID,Elapsed time,Model,Request tokens,Response tokens,Total tokens,Log Type\n'
      + '0,s-1,1.25,ChatGPT,100,20,120,Conversation log\n3,s-1,0.5,ChatGPT,150,30,180,Conversation log\n',
    );
    expect(load.rows.map((r) => [r.timestampMs, r.inputTokens, r.outputTokens, r.chatId])).toEqual([
      [0, 100, 20, null], [3000, 150, 30, null],
    ]);
  });

  it.each([
    ['7,ChatGPT,100', 'does not have as many columns as the header'],
    ['7,"ChatGPT,100,5,105,API log', 'is not valid CSV (a quote is not closed, or text follows a closing quote)'],
    ['soon,ChatGPT,100,5,105,API log', 'Timestamp is not a number'],
    [',ChatGPT,100,5,105,API log', 'Timestamp is not a number'],
    ['7,ChatGPT,100,-5,95,API log', 'Response tokens is not a whole number'],
    ['7,ChatGPT,0,5,5,API log', 'Request tokens is not a whole number >= 1'],
    ['7,ChatGPT,many,5,5,API log', 'Request tokens is not a whole number >= 1'],
  ])('%s -> %s', (line, message) => {
    expect(issues(BURST_HEADER, '1,ChatGPT,10,5,15,API log', line)).toEqual([`2 rows (first: line 3): ${message}`]);
  });
});

describe('CSV headers', () => {
  it.each([
    ['TIMESTAMP,ContextTokens\n2023-11-16 18:15:46,5\n', 'azure',
      'the Azure header has no "GeneratedTokens" column (it has: TIMESTAMP, ContextTokens)'],
    ['Timestamp,Request tokens,Response tokens\n1,2,3\n', 'burstgpt', 'the BurstGPT header has no "Model" column'],
    ['{"timestamp": 0, "input_length": 10, "output_length": 5}\n', 'azure',
      'the Azure header has no "TIMESTAMP" column'],
  ] as const)('%j as %s is a TraceError', (text, format, message) => {
    expect(() => loadTrace(text, { format })).toThrow(TraceError);
    expect(() => loadTrace(text, { format })).toThrow(message);
  });
});
