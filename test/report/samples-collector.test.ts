import { describe, expect, it } from 'vitest';
import { SamplesCollector } from '../../report/samples-collector';

const COUNTS = { rows: 0, skippedRows: 0, partialTailBytes: 0, malformedRows: 0 };

describe('SamplesCollector request spans', () => {
  it("takes a request's whole time from a stream's e2e and an embed request's latency, in every phase", () => {
    const collector = new SamplesCollector();
    collector.addCellSample('e2e', 'c1', {}, 1_000, 400);
    collector.addCellSample('e2e', 'c1', { phase: 'warmup' }, 1_200, 100);
    collector.addCellSample('embedLatency', 'e1', {}, 2_000, 50);
    collector.addCellSample('ttft', 'c1', {}, 1_000, 90);
    const { requestSpans } = collector.finish(COUNTS);
    expect([...requestSpans.starts.values()]).toEqual([600, 1_100, 1_950]);
    expect([...requestSpans.ends.values()]).toEqual([1_000, 1_200, 2_000]);
  });
});
