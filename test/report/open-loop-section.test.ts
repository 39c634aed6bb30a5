// Tests report/sections/open-loop.ts: how the section says which statistic each limit was judged on.
// Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import type { CellArrivals } from '../../lib/plan';
import { openLoopStats } from '../../analysis/open-loop';
import { rateCapacities } from '../../analysis/rate-capacity';
import type { Report } from '../../report/report-types';
import { openLoopSection } from '../../report/sections/open-loop';
import { USE_CASES, findUseCase, type UseCase } from '../../thresholds/use-cases';
import { cell, flat } from './helpers';

const JUDGED = { limitStat: 'avg', minSuccessRate: 0.99, minGoodput: null, requestValues: new Map() } as const;

const ARRIVALS: CellArrivals = {
  process: 'poisson', ratePerSecond: 2, rampFromPerSecond: null, durationSeconds: 10, burstiness: 1, seed: 1,
  requests: 20, lagLimitMs: 10, senders: 1, warmupSeconds: 0,
};

/** The section's text for one use case measured at 2 req/s, every TTFT and TPOT as given. */
function text(useCase: UseCase): string {
  const lag = flat(1, 20);
  const rate = cell({
    id: `rate_${useCase.id}_r2`, script: 'rate', useCase: useCase.id, requests: 20, succeeded: 20, successRate: 1,
    metrics: { ttft: flat(100, 20), tpot: flat(10, 20), e2e: flat(1000, 20), scheduleLag: lag },
    openLoop: openLoopStats(ARRIVALS, lag, 2, 20),
  });
  const rates = rateCapacities([useCase], [rate], JUDGED);
  const report = { cells: [rate], rates, limitStat: 'avg', reconciliation: [] } as unknown as Report;
  return openLoopSection(report, new Set()).map((b) => ('text' in b ? b.text : '')).join('\n');
}

describe('the open-loop section', () => {
  it('says a limit with its own statistic (MLPerf\'s p99) is judged on it, and the plan\'s only for the rest', () => {
    expect(text(findUseCase('mlperf_llama3_1_8b')!)).toContain(
      'met every limit (the average of each cell where a limit names no statistic of its own, requests the slot',
    );
    expect(text(USE_CASES[0]!)).toContain('met every limit (the average of each cell, requests the slot');
  });
});
