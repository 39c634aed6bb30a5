// The suite's side of the accuracy study (bench/accuracy-suite.ts): k6 CSV rows back into requests, keyed to the
// simulator's records. Runs in Node (vitest).

import { describe, expect, it } from 'vitest';
import type { TruthRecord } from '../../bench/accuracy-judge';
import { closedLoopRequests, openLoopRequests, suiteKey } from '../../bench/accuracy-suite';
import { requestPrefix } from '../../lib/prompt-text';

const HEAD = 'metric_name,timestamp,metric_value,scenario,extra_tags,metadata';
const row = (metric: string, t: number, v: number, meta = 'vu=1&iter=0'): string => `${metric},${t},${v},s,,${meta}`;

describe('closedLoopRequests', () => {
  it('gathers each user and iteration\'s samples, in whatever order they were written', () => {
    const csv = [
      HEAD, row('llm_request_ok', 100, 1, 'vu=2&iter=0'), row('llm_request_ok', 100, 1, 'iter=0&vu=1'),
      row('llm_ttft', 100, 52, 'vu=1&iter=0'), row('llm_ttft', 100, 61, 'iter=0&vu=2'),
      row('llm_itl', 100, 9, 'vu=1&iter=0'), row('llm_itl', 100, 11, 'vu=1&iter=0'),
      row('llm_output_tokens', 100, 3, 'vu=1&iter=0'), row('llm_output_tokens', 100, 1, 'vu=2&iter=0'),
      row('llm_request_ok', 200, 0, 'vu=1&iter=1'), row('llm_errors', 200, 1, 'vu=1&iter=1'),
      row('data_received', 200, 5, ''),
    ].join('\n');
    const r = closedLoopRequests(csv);
    expect(r.requests.map((q) => [q.key, q.figures.ttft, q.figures.itl])).toEqual([
      ['2:0', 61, []], ['1:0', 52, [9, 11]],
    ]);
    expect([r.outputTokens, r.failed]).toEqual([4, 1]);
  });

  it('says so when the CSV has no metadata column (k6 without vu and iter)', () => {
    expect(() => closedLoopRequests('metric_name,timestamp,metric_value\nllm_ttft,1,2')).toThrow(/metadata/);
  });
});

describe('suiteKey', () => {
  it('names a record by the user and iteration of its prompt line', () => {
    const t = { promptHead: requestPrefix('unique', 77, 3, 12).trimEnd() } as TruthRecord;
    expect(suiteKey(t)).toBe('3:12');
    expect(suiteKey({ promptHead: 'hello' } as TruthRecord)).toBeNull();
  });
});

describe('openLoopRequests', () => {
  it('ranks requests by their intended send as seen, and gives each the lag of its index', () => {
    // Two requests: pushed at 1500 and 1300, their e2e from the intended send 400 and 250, so intended about 1100
    // and 1050: the second block is the earlier request.
    const csv = [
      HEAD, row('llm_schedule_lag', 1050, 0.4), row('llm_schedule_lag', 1100, 0.7),
      row('llm_request_ok', 1300, 1), row('llm_ttft', 1300, 21), row('llm_e2e_intended', 1300, 250),
      row('llm_request_ok', 1500, 1), row('llm_ttft', 1500, 23), row('llm_e2e_intended', 1500, 400),
    ].join('\n');
    const r = openLoopRequests(csv, [{ key: '1:1', index: 1 }, { key: '1:0', index: 0 }]);
    expect(r.requests.map((q) => [q.key, q.figures.ttft, q.figures.sendLag])).toEqual([
      ['1:0', 21, 0.4], ['1:1', 23, 0.7],
    ]);
  });
});
