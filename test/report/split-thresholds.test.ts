// Tests for report/split-thresholds.ts: a plan's thresholds judged on merged cells, by k6's rules.
// Runs in Node (vitest).

import { describe, expect, it } from 'vitest';
import { resolvePlan } from '../../lib/plan';
import { judgeMergedThresholds } from '../../report/split-thresholds';
import { cell, flat } from './helpers';

const plan = resolvePlan(
  { gate: { useCase: 'general_chatbot', concurrency: 4, rounds: 2, minSuccessRate: 0.95 } }, 'gate',
);
const id = plan.cells[0]!.id;
const outcome = (cells: Parameters<typeof judgeMergedThresholds>[1]) =>
  Object.fromEntries(judgeMergedThresholds(plan, cells).map((t) => [`${t.metric} ${t.expression}`, t.ok]));

describe('judgeMergedThresholds', () => {
  it("judges the gate's limits on the merged statistics and its success rate on the merged counts", () => {
    const merged = cell({
      id, requests: 20, succeeded: 19, failed: 1, metrics: { ttft: flat(9000), decodeSpeed: flat(20) },
    });
    const got = outcome([merged]);
    expect(got[`llm_ttft{cell:${id}} avg<8000`]).toBe(false);
    expect(got[`llm_decode_speed{cell:${id}} avg>15`]).toBe(true);
    expect(got[`llm_request_ok{cell:${id}} rate>=0.95`]).toBe(true);
    expect(got[`llm_e2e{cell:${id}} max>=0`]).toBe(true);
  });

  it("follows k6 for a cell without samples: a Trend's statistics are 0, a Rate passes", () => {
    const got = outcome([]);
    expect(got[`llm_ttft{cell:${id}} avg<8000`]).toBe(true);
    expect(got[`llm_decode_speed{cell:${id}} avg>15`]).toBe(false);
    expect(got[`llm_request_ok{cell:${id}} rate>=0.95`]).toBe(true);
  });
});
