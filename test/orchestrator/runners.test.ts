// Tests for orchestrator/runners.ts: a split run's k6 command lines and exit codes. Runs in Node (vitest).

import { describe, expect, it } from 'vitest';
import { EXIT } from '../../lib/exit-codes';
import { runArguments } from '../../orchestrator/engine';
import { resolvePlan } from '../../lib/plan';
import {
  combineExitCodes, runnerArguments, RESUME_BODY, runnerInvocation, withSplitSenders,
} from '../../orchestrator/runners';

const part = {
  bundle: 'dist/sweep.js', partDir: '/r/run/sweep', env: { PLAN: '/r/plan.json', RESULTS_DIR: '/r/run/sweep' },
  tags: { testid: 'run' },
};

describe('runnerArguments', () => {
  it("is the k6-operator's command line for runner 2 of 4, with the runner's own folder", () => {
    const own = runArguments(runnerInvocation(part, 2));
    expect(runnerArguments(own, 2, 4, '127.0.0.1:6565', 'run')).toEqual([
      'run', '--quiet', '--execution-segment=1/4:2/4', '--execution-segment-sequence=0,1/4,2/4,3/4,1',
      '-e', 'PLAN=/r/plan.json', '-e', 'RESULTS_DIR=/r/run/sweep/runner-2', '--tag', 'testid=run',
      '--out', 'csv=fileName=/r/run/sweep/runner-2/samples.csv,timeFormat=unix_milli',
      '--summary-export', '/r/run/sweep/runner-2/summary-export.json', 'dist/sweep.js',
      '--address=127.0.0.1:6565', '--paused', '--tag', 'instance_id=2', '--tag', 'testrun_name=run',
    ]);
  });

  it("resumes with the body the operator's starter sends", () => {
    expect(JSON.parse(RESUME_BODY)).toEqual({ data: { type: 'status', id: 'default', attributes: { paused: false } } });
  });
});

describe('combineExitCodes', () => {
  it('is 99 when a runner failed a threshold on its share, 0 when none did', () => {
    expect(combineExitCodes([0, 0])).toBe(EXIT.ok);
    expect(combineExitCodes([0, 99])).toBe(EXIT.thresholdsFailed);
  });

  it('lets any other code win, an interrupt first', () => {
    expect(combineExitCodes([99, 107])).toBe(EXIT.scriptError);
    expect(combineExitCodes([107, 105, 0])).toBe(EXIT.interrupted);
  });
});

describe('withSplitSenders', () => {
  const rate = resolvePlan({ rate: { useCases: ['code_completion'], rates: [2, 4] } }, 'rate');

  it("gives a split rate part's cells a sender per runner at least, and leaves one process's plan as it was", () => {
    expect(withSplitSenders(rate, 1)).toBe(rate);
    expect(withSplitSenders(rate, 3).cells.map((c) => c.arrivals!.senders)).toEqual([3, 3]);
    const more = resolvePlan({ rate: { useCases: ['code_completion'], rates: [2], senders: 4 } }, 'rate');
    expect(withSplitSenders(more, 2).cells[0]!.arrivals!.senders).toBe(4);
    const sweep = resolvePlan({}, 'sweep');
    expect(withSplitSenders(sweep, 2)).toBe(sweep);
  });
});
