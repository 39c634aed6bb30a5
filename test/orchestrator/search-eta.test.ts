// The capacity search's ETA: request times bounded by the limits, and the arithmetic of what is left.
// Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { USE_CASES } from '../../thresholds/use-cases';
import { requestSecondsWithinLimits, searchEtaSeconds, SEARCH_REQUEST_TIMES } from '../../orchestrator/search-eta';

const lim = (
  metric: 'ttft' | 'e2e' | 'decodeSpeed' | 'itl' | 'tpot', operator: '<' | '<=' | '>' | '>=', value: number,
) => ({ metric, operator, value, label: '' });

describe('requestSecondsWithinLimits', () => {
  it('is the e2e limit when there is one', () => {
    expect(requestSecondsWithinLimits([lim('e2e', '<', 2000)], 128)).toBe(2);
  });

  it('is the TTFT limit plus the output after the first token at the speed limit', () => {
    expect(requestSecondsWithinLimits([lim('ttft', '<', 8000), lim('decodeSpeed', '>', 15)], 121)).toBe(8 + 120 / 15);
  });

  it('takes a per-token limit (TPOT or ITL) when there is no speed limit', () => {
    expect(requestSecondsWithinLimits([lim('ttft', '<=', 1000), lim('itl', '<', 50)], 11)).toBe(1 + 10 * 0.05);
  });

  it('is null when the limits leave the request unbounded', () => {
    expect(requestSecondsWithinLimits([lim('decodeSpeed', '>', 10)], 128)).toBeNull();
    expect(requestSecondsWithinLimits([lim('ttft', '<', 1000)], 128)).toBeNull();
  });

  it('bounds every built-in use case', () => {
    for (const u of USE_CASES) expect(requestSecondsWithinLimits(u.limits, u.outputTokens), u.id).toBeGreaterThan(0);
  });
});

describe('searchEtaSeconds', () => {
  it('adds the budget of every use case to come to what is left of the current one', () => {
    const eta = searchEtaSeconds({
      current: { boundSeconds: 10, spentSeconds: 15, stepSeconds: [5, 10], stepsLeft: 1 }, future: [20, 5],
      allStepSeconds: [5, 10],
    });
    // current: max(1 step x 7.5 s, 4 x 10 - 15) = 25; future: 4 x 20 + 4 x 5 = 100.
    expect(eta).toBe(25 + SEARCH_REQUEST_TIMES * 25);
  });

  it('goes by the current pace when that is longer than the budget left', () => {
    const eta = searchEtaSeconds({
      current: { boundSeconds: 2, spentSeconds: 20, stepSeconds: [3, 3], stepsLeft: 3 }, future: [],
      allStepSeconds: [3, 3],
    });
    expect(eta).toBe(9);
  });

  it('falls back to the mean step for a use case whose limits do not bound it, and says nothing with nothing to go ' +
    'on', () => {
    expect(searchEtaSeconds({
      current: { boundSeconds: null, spentSeconds: 4, stepSeconds: [4], stepsLeft: 2 }, future: [null],
      allStepSeconds: [4],
    })).toBe(8 + SEARCH_REQUEST_TIMES * 4);
    expect(searchEtaSeconds({
      current: { boundSeconds: null, spentSeconds: 0, stepSeconds: [], stepsLeft: 3 }, future: [], allStepSeconds: [],
    })).toBeNull();
  });
});
