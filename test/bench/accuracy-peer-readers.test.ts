// What the peers saved, read into per-request figures (bench/accuracy-peer-readers.ts). Runs in Node (vitest).

import { describe, expect, it } from 'vitest';
import type { TruthRecord } from '../../bench/accuracy-judge';
import { aiperfRequests, guidellmRequests, keyByRank, vllmRequests } from '../../bench/accuracy-peer-readers';

describe('vllmRequests', () => {
  it('keys request i by its x-request-id and derives e2e and TPOT from its chunks', () => {
    const r = vllmRequests('p-', [
      { ttftMs: 50, itlMs: [0.1, 10, 9.9], error: '' }, { ttftMs: 0, itlMs: [], error: 'boom' },
    ]);
    expect(r).toHaveLength(1);
    expect(r[0]!.key).toBe('p-0');
    expect(r[0]!.figures.e2e).toBeCloseTo(70, 12);
    expect(r[0]!.figures.tpot).toBeCloseTo(10, 12);
    expect(r[0]!.figures.decodeSpeed).toBeCloseTo(100, 9);
  });
});

describe('aiperfRequests', () => {
  it('reads profile_export.jsonl records by X-Request-ID, leaving failed ones out', () => {
    const ok = {
      metadata: { x_request_id: 'r1' },
      metrics: {
        time_to_first_token: { value: 51 }, inter_chunk_latency: { value: [10, 11] }, request_latency: { value: 72 },
        inter_token_latency: { value: 10.5 }, output_token_throughput_per_user: { value: 95.2 },
        prefill_throughput_per_user: { value: 20_000 },
      },
    };
    const failed = { metadata: { x_request_id: 'r2' }, metrics: {} };
    const r = aiperfRequests(`${JSON.stringify(ok)}\n${JSON.stringify(failed)}\n`);
    expect(r.map((q) => [q.key, q.figures.ttft, q.figures.itl, q.figures.e2e, q.figures.tpot])).toEqual([
      ['r1', 51, [10, 11], 72, 10.5],
    ]);
    expect(() => aiperfRequests('{')).toThrow(/not JSON/);
  });
});

describe('guidellmRequests and keyByRank', () => {
  it('pairs requests with no id by rank of send time against arrival', () => {
    const report = {
      benchmarks: [{
        requests: {
          successful: [
            { request_start_time: 2.0, time_to_first_token_ms: 60, request_latency: 0.3, time_per_output_token_ms: 9 },
            { request_start_time: 1.0, time_to_first_token_ms: 55, request_latency: 0.2, time_per_output_token_ms: 8 },
          ],
        },
      }],
    };
    const reqs = guidellmRequests(JSON.stringify(report));
    expect(reqs.map((q) => [q.startMs, q.figures.e2e])).toEqual([[2000, 300], [1000, 200]]);
    const truth = [
      { arrivalEpochMs: 2001, outcome: 'completed' }, { arrivalEpochMs: 1001, outcome: 'completed' },
      { arrivalEpochMs: 1500, outcome: 'aborted' },
    ] as TruthRecord[];
    const keyed = keyByRank(reqs, truth);
    expect(keyed.requests.map((q) => [q.key, q.figures.ttft])).toEqual([['rank:0', 55], ['rank:1', 60]]);
    expect(truth.map(keyed.keyOf)).toEqual(['rank:1', 'rank:0', null]);
    expect(() => guidellmRequests('{}')).toThrow(/no benchmarks\[0\]/);
  });
});
