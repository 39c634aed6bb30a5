// The trace check's text: findings one a line, the selection line, the stats table. Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import {
  loadTrace, renderLoadFindings, renderSelection, renderStatsTable, selectRows, traceStats,
} from '../../lib/trace/index';

const BURST = [
  'Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type',
  '9,GPT-4,100,10,110,API log', '0,ChatGPT,200,0,200,API log', '3,ChatGPT,300,30,330,API log',
  'x,ChatGPT,1,1,2,API log',
].join('\n');

describe('renderLoadFindings', () => {
  it('says the format, bad and skipped rows, the sort, and the rows per model', () => {
    expect(renderLoadFindings(loadTrace(BURST), false)).toEqual([
      'format: burstgpt (detected), 2 valid rows',
      'bad rows: 1, skipped',
      '  1 row (line 5): Timestamp is not a number',
      'skipped as the format says: 1 row (line 3): Response tokens is 0 (a failed request)',
      'not sorted: 1 rows were earlier than the row above them; sorted by time',
      'rows by Model: ChatGPT 1, GPT-4 1',
    ]);
    expect(renderLoadFindings(loadTrace(BURST, { format: 'burstgpt' }), true)[0])
      .toBe('format: burstgpt (given with --format), 2 valid rows');
  });
});

describe('renderSelection', () => {
  it('names the window and what it kept', () => {
    const rows = loadTrace(BURST).rows;
    const options = { durationSeconds: 10, speed: 2, maxRequests: 1 };
    expect(renderSelection(options, selectRows(rows, options)))
      .toBe('selection (start 0 s, for 10 s, speed 2x, at most 1 requests): 2 rows in the window, 1 over the cap, '
        + '1 selected');
  });
});

describe('renderStatsTable', () => {
  it('aligns one column per stats object and leaves out figures no column has', () => {
    const rows = loadTrace(BURST).rows;
    const table = renderStatsTable([
      { title: 'trace', stats: traceStats(rows) }, { title: 'selection', stats: traceStats(rows.slice(0, 1)) },
    ]);
    // Gap CV and prefix sharing are left out: neither column has them (one gap; no hash ids).
    expect(table.split('\n')).toEqual([
      '                                               trace              selection',
      'rows                                               2                      1',
      'duration (s)                                     6.0                    0.0',
      'mean rate (req/s)                              0.167                      -',
      'input tokens p50/p90/p99/max   200 / 280 / 298 / 300  300 / 300 / 300 / 300',
      'output tokens p50/p90/p99/max      20 / 28 / 30 / 30      30 / 30 / 30 / 30',
    ]);
  });
});
