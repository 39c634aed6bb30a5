// readSummaryData: the top-level check of k6's handleSummary data. Runs in Node (vitest).
import { expect, it } from 'vitest';
import { readSummaryData } from '../../lib/summary-data';
it('throws one line naming what is missing, and keeps whatever else k6 wrote', () => {
  expect(() => readSummaryData(null, 'S')).toThrow('S: not a JSON object');
  expect(() => readSummaryData([1], 'S')).toThrow('S: not a JSON object');
  expect(() => readSummaryData({ metrics: {}, state: {} }, 'S')).toThrow('S: missing "root_group" (is this');
  expect(() => readSummaryData({ metrics: {}, root_group: 3, state: {} }, 'S')).toThrow('S: missing "root_group"');
  expect(readSummaryData({ metrics: {}, root_group: {}, state: {}, extra: 1 }, 'S')).toBeTruthy();
});
