// Tests report/sections/use-case-guidance.ts: capacities with their intervals, and what the notes say about steps
// measured again and verdicts left unclear. Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { useCaseGuidanceSection } from '../../report/sections/use-case-guidance';
import { useCaseCapacity, type StepVerdict, type UseCaseCapacity } from '../../analysis/capacity';
import { DEFAULT_REPORT_OPTIONS } from '../../report/build-report';
import type { Report } from '../../report/report-types';
import type { Block } from '../../report/document';
import { USE_CASES } from '../../thresholds/use-cases';
import { cell, flat } from './helpers';

const chat = USE_CASES.find((u) => u.id === 'general_chatbot')!; // TTFT < 8 s, speed > 15 tok/s

/** A searched ladder 1, 8, 9 users (9 breaks the speed limit) with the interval and verdicts given. */
function searched(low: number, high: number, verdicts: StepVerdict[]): UseCaseCapacity {
  const cells = [1, 8, 9].map((n) => cell({
    id: `capacity_general_chatbot_n${n}`, useCase: 'general_chatbot', concurrency: n, measurement: 'search',
    metrics: { ttft: flat(1000), decodeSpeed: flat(n === 9 ? 14 : 16) },
  }));
  const capacity = useCaseCapacity(chat, cells, 'avg', null);
  return { ...capacity, interval: { level: 0.95, low, high, largestStep: 9, replicates: 1000 }, verdicts };
}

function text(capacities: UseCaseCapacity[]): string {
  const report = {
    useCases: capacities, cells: [], parts: [], options: DEFAULT_REPORT_OPTIONS, limitStat: 'avg',
  } as unknown as Report;
  const blockText = (b: Block): string => ('text' in b ? b.text : 'rows' in b ? b.rows.flat().join(' | ') : '');
  return useCaseGuidanceSection(report).map(blockText).join('\n');
}

describe('use-case guidance', () => {
  it('shows the interval in brackets and says nothing of verdicts when the interval is within the resolution', () => {
    const out = text([searched(7, 8, [{ users: 8, ok: true, passShare: 0.6, measurements: 1 }])]);
    expect(out).toContain('8 (7-8)');
    expect(out).not.toMatch(/unclear|measured again/);
  });

  it('names the steps measured again, and the verdicts still unclear where the interval stays wide', () => {
    const out = text([searched(4, 9, [
      { users: 8, ok: true, passShare: 0.55, measurements: 3 },
      { users: 9, ok: false, passShare: 0.01, measurements: 1 },
    ])]);
    expect(out).toContain('8 (4-9)');
    expect(out).toContain('measured again, pooling the requests, steps whose verdict was unclear: ' +
      'General Chatbot at 8 users (3 measurements)');
    expect(out).toContain('Still unclear, the capacity resting on a verdict the requests cannot make: ' +
      'General Chatbot at 8 users (passed; every limit held in 55.0% of resamples)');
    expect(out).toMatch(/Wider than the search's resolution .*General Chatbot/);
  });
});
