// loadTrace and createTraceLoader: the four samples, time order, re-basing, line numbers, and the traces that cannot
// be used at all. Runs in Node (vitest).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTraceLoader, describeRowIssue, loadTrace, TraceError, type TraceLoad } from '../../lib/trace/index';

const SAMPLES = join(__dirname, '../../examples/traces');
const sample = (name: string): string => readFileSync(join(SAMPLES, name), 'utf8');

function traceError(run: () => unknown): string {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(TraceError);
    return (e as Error).message;
  }
  throw new Error('no TraceError');
}

/** Checks what every load promises: times from 0, in order, indexes 0..n-1. */
function expectWellFormed(load: TraceLoad): void {
  expect(load.rows[0]!.timestampMs).toBe(0);
  load.rows.forEach((r, i) => {
    expect(r.index).toBe(i);
    if (i > 0) expect(r.timestampMs).toBeGreaterThanOrEqual(load.rows[i - 1]!.timestampMs);
  });
}

describe('the samples in examples/traces', () => {
  it('mooncake.jsonl: 40 rows with 512-token hash ids sharing three system prompts', () => {
    const load = loadTrace(sample('mooncake.jsonl'));
    expect(load).toMatchObject({ format: 'mooncake', badRows: [], skippedRows: [], outOfOrderRows: 0, rowsBy: null });
    expect(load.rows).toHaveLength(40);
    expectWellFormed(load);
    for (const r of load.rows) {
      expect(r.blockTokens).toBe(512);
      expect(r.hashIds).toHaveLength(Math.ceil(r.inputTokens / 512));
    }
    const prefixes = new Set(load.rows.map((r) => r.hashIds![0]!));
    expect([...prefixes].sort((a, b) => a - b)).toEqual([0, 4, 6]);
  });

  it('azure.csv: 40 rows from 2023-11-16 18:15:46.6805900', () => {
    const load = loadTrace(sample('azure.csv'));
    expect(load).toMatchObject({ format: 'azure', badRows: [], skippedRows: [], outOfOrderRows: 0 });
    expect(load.rows).toHaveLength(40);
    expectWellFormed(load);
    // Second row 18:15:48.2359586: 1.5553686 s after the first.
    expect(load.rows[1]!.timestampMs).toBe(1555.369);
  });

  it('burstgpt.csv: 37 rows, 3 failed requests skipped, rows per model', () => {
    const load = loadTrace(sample('burstgpt.csv'));
    expect(load).toMatchObject({ format: 'burstgpt', badRows: [], outOfOrderRows: 0 });
    expect(load.rows).toHaveLength(37);
    expectWellFormed(load);
    expect(load.skippedRows.map(describeRowIssue))
      .toEqual(['3 rows (first: line 9): Response tokens is 0 (a failed request)']);
    expect(load.rowsBy!.field).toBe('Model');
    expect(load.rowsBy!.counts.map((c) => c.value)).toEqual(['ChatGPT', 'GPT-4']);
    expect(load.rowsBy!.counts.reduce((n, c) => n + c.rows, 0)).toBe(37);
  });

  it('bailian.jsonl: 14 conversations, 10 of 3 turns, each turn after its parent and extending its prompt', () => {
    const load = loadTrace(sample('bailian.jsonl'));
    expect(load).toMatchObject({ format: 'bailian', badRows: [], skippedRows: [], outOfOrderRows: 0 });
    expect(load.rows).toHaveLength(36);
    expectWellFormed(load);
    const byId = new Map(load.rows.map((r) => [r.chatId!, r]));
    const firstTurns = load.rows.filter((r) => r.parentChatId === null);
    expect(firstTurns).toHaveLength(14);
    expect(firstTurns.every((r) => r.turn === 1)).toBe(true);
    for (const r of load.rows.filter((x) => x.parentChatId !== null)) {
      const parent = byId.get(r.parentChatId!)!;
      expect(r.turn).toBe(parent.turn! + 1);
      expect(r.timestampMs).toBeGreaterThan(parent.timestampMs);
      const fullBlocks = Math.floor(parent.inputTokens / 16);
      expect(r.hashIds!.slice(0, fullBlocks)).toEqual(parent.hashIds!.slice(0, fullBlocks));
    }
    expect(load.rows.filter((r) => r.turn === 3)).toHaveLength(10);
  });
});

describe('loadTrace', () => {
  it('sorts rows that were not in time order, says how many were out of place, and keeps file order for ties', () => {
    const row = (t: number, input: number): string =>
      JSON.stringify({ timestamp: t, input_length: input, output_length: 1 });
    const load = loadTrace([row(500, 1), row(100, 2), row(100, 3), row(900, 4), row(200, 5)].join('\n'));
    expect(load.outOfOrderRows).toBe(2);
    expect(load.rows.map((r) => [r.timestampMs, r.inputTokens]))
      .toEqual([[0, 2], [0, 3], [100, 5], [400, 1], [800, 4]]);
    expectWellFormed(load);
  });

  it('counts lines as the file has them: blank lines and CRLF included, a header too', () => {
    const load = loadTrace('\r\nTIMESTAMP,ContextTokens,GeneratedTokens\r\n\r\n2023-11-16 18:15:46,5,5\r\nbad\r\n');
    expect(load.badRows.map(describeRowIssue)).toEqual(['1 row (line 5): does not have as many columns as the header']);
  });

  it('reads a first line that starts with a byte-order mark', () => {
    const load = loadTrace('\uFEFF{"timestamp": 0, "input_length": 3, "output_length": 1}\n');
    expect(load).toMatchObject({ format: 'mooncake', badRows: [] });
    expect(loadTrace('\uFEFFTIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:15:46,5,5\n').rows).toHaveLength(1);
  });

  it('the line-by-line loader gives what loadTrace gives', () => {
    const text = sample('bailian.jsonl');
    const loader = createTraceLoader('bailian');
    for (const line of text.split('\n')) loader.push(line);
    expect(loader.finish()).toEqual(loadTrace(text));
  });

  it.each([
    ['', undefined, 'the trace is empty'],
    ['\n\n', 'mooncake', 'the trace is empty'],
    ['TIMESTAMP,ContextTokens,GeneratedTokens\n', undefined,
      'no row of the azure trace is usable (it has a header only)'],
    ['{"timestamp": 0, "input_length": 0, "output_length": 1}\n{"timestamp": 1, "input_length": 0, "output_length": 1}',
      undefined,
      'no row of the mooncake trace is usable: 2 rows (first: line 1): input_length is not a whole number >= 1'],
    ['Timestamp,Model,Request tokens,Response tokens\n1,GPT-4,10,0\n', undefined,
      'no row of the burstgpt trace is usable: 1 row (line 2): Response tokens is 0 (a failed request)'],
    ['hello\n', undefined, 'unknown trace format'],
  ] as const)('%j is a one-line TraceError', (text, format, message) => {
    const got = traceError(() => loadTrace(text, format === undefined ? {} : { format }));
    expect(got.startsWith(message)).toBe(true);
    expect(got).not.toContain('\n');
  });
});
