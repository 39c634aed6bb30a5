// Tests for lib/runner.ts: a split run's runner from k6's options, its share of a plan, and runner.json. Runs in Node
// (vitest).

import { describe, expect, it } from 'vitest';
import { plannedRequests } from '../../lib/options';
import { resolvePlan } from '../../lib/plan';
import { cellShare, cellsWithoutShare, readRunnerInfo, runnerLabel, runnerOf } from '../../lib/runner';
import { operatorSegmentFlags } from '../../lib/segments';

/** k6's consolidated options of runner i of n as the k6-operator starts it. */
function operatorOptions(i: number, n: number) {
  const [segment, sequence] = operatorSegmentFlags(i, n).map((flag) => flag.split('=')[1]!);
  return {
    executionSegment: segment, executionSegmentSequence: sequence, tags: { instance_id: String(i), testrun_name: 't' },
  };
}

const plan = resolvePlan(
  { sweep: { contexts: [512], concurrencies: [1, 2, 3, 5], rounds: 2, outputTokens: 16 } }, 'sweep',
);

describe('runnerOf', () => {
  it('is null for a run that is not split', () => {
    expect(runnerOf({})).toBeNull();
    expect(runnerOf({ executionSegment: null, executionSegmentSequence: null })).toBeNull();
    expect(runnerOf({ executionSegment: '0:1', executionSegmentSequence: '0,1' })).toBeNull();
  });

  it('names runner i of n, its segment in k6 spelling and the operator instance id', () => {
    expect(runnerOf(operatorOptions(2, 4))!.info).toEqual({
      schemaVersion: 1, runner: 2, runners: 4, segment: '1/4:1/2', sequence: '0,1/4,1/2,3/4,1', instanceId: '2',
    });
    expect(runnerLabel(runnerOf(operatorOptions(2, 4))!.info)).toBe('runner 2 of 4 (segment 1/4:1/2)');
  });
});

describe("a runner's share of a plan", () => {
  const shares = (n: number) =>
    Array.from({ length: n }, (_, i) => runnerOf(operatorOptions(i + 1, n))!.position);

  it('gives every cell its users across the runners, the first runners the extra ones', () => {
    const two = shares(2);
    expect(plan.cells.map((cell) => two.map((p) => cellShare(p, cell)))).toEqual([[1, 0], [1, 1], [2, 1], [3, 2]]);
    const four = shares(4);
    expect(plan.cells.map((cell) => four.map((p) => cellShare(p, cell)))).toEqual([
      [1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0], [2, 1, 1, 1],
    ]);
  });

  it("the runners' planned requests add up to the plan's", () => {
    for (const n of [2, 3, 4]) {
      const total = shares(n).reduce((sum, p) => sum + plannedRequests(plan, (cell) => cellShare(p, cell)), 0);
      expect(total).toBe(plannedRequests(plan));
    }
  });

  it("gives a rate cell's senders to the runners as k6 gives users: one sender each when there are as many", () => {
    const rate = resolvePlan({ rate: { useCases: ['code_completion'], rates: [4], senders: 3 } }, 'rate');
    const three = shares(3);
    expect(three.map((p) => cellShare(p, rate.cells[0]!))).toEqual([1, 1, 1]);
    expect(shares(2).map((p) => cellShare(p, rate.cells[0]!))).toEqual([2, 1]);
    expect(shares(4).map((p) => cellShare(p, rate.cells[0]!))).toEqual([1, 1, 1, 0]);
  });

  it('lists the cells a runner has no users in', () => {
    const four = shares(4);
    expect(cellsWithoutShare(four[0]!, plan.cells)).toEqual([]);
    expect(cellsWithoutShare(four[3]!, plan.cells)).toEqual(plan.cells.slice(0, 3).map((cell) => cell.id));
  });
});

describe('readRunnerInfo', () => {
  it('reads what the script writes', () => {
    const info = runnerOf(operatorOptions(3, 4))!.info;
    expect(readRunnerInfo(JSON.parse(JSON.stringify(info)), 'runner.json')).toEqual(info);
  });

  it('names a bad field, and a runner number that does not match its segment', () => {
    expect(() => readRunnerInfo({ schemaVersion: 1, runner: 0 }, 'r/runner.json')).toThrow(
      /^r\/runner\.json: runner must be at least 1/,
    );
    const wrong = { ...runnerOf(operatorOptions(1, 2))!.info, runner: 2 };
    expect(() => readRunnerInfo(wrong, 'runner.json')).toThrow(
      /runner 2 of 2 does not hold segment 0:1\/2 of 0,1\/2,1/,
    );
  });
});
