// Tests for report/merge-samples.ts: two runners' samples of a cell merged by hand-worked numbers.
// Runs in Node (vitest).

import { describe, expect, it } from 'vitest';
import { mergeCell, mergeSamples } from '../../report/merge-samples';
import { type SamplesData } from '../../report/read-samples';
import { MAX_MESSAGES_PER_KIND, newCellAccumulator } from '../../analysis/cell-accumulator';
import { newRequestSpans } from '../../analysis/request-spans';
import { FloatList } from '../../analysis/stats';

function cellOf(
  ttfts: number[], over: { ok?: number; cpu?: [number, number, number, number]; windowMs?: [number, number] } = {},
) {
  const c = newCellAccumulator('sweep_c1k_n3', { cell: 'sweep_c1k_n3', concurrency: '3' });
  for (const v of ttfts) c.trends.ttft.push(v);
  c.okCount = over.ok ?? ttfts.length;
  c.outputTokens = 16 * ttfts.length;
  [c.windowStartMs, c.windowEndMs] = over.windowMs ?? [1000, 2000];
  if (over.cpu) {
    c.cpuFirst = { atMs: over.cpu[0], seconds: over.cpu[1] };
    c.cpuLast = { atMs: over.cpu[2], seconds: over.cpu[3] };
  }
  return c;
}

describe('mergeCell', () => {
  it('takes the union of the values, sums the counts and widens the window', () => {
    const a = cellOf([10, 30], { windowMs: [1000, 5000] });
    const b = cellOf([20], { ok: 0, windowMs: [900, 4000] });
    b.failCount = 1;
    b.errorsByKind.http_5xx = 1;
    mergeCell(a, b);
    expect([...a.trends.ttft.sorted()]).toEqual([10, 20, 30]);
    expect([a.okCount, a.failCount, a.outputTokens, a.errorsByKind.http_5xx]).toEqual([2, 1, 48, 1]);
    expect([a.windowStartMs, a.windowEndMs]).toEqual([900, 5000]);
  });

  it("adds the runners' senders' achieved rates up, and counts the senders that pushed one", () => {
    const a = cellOf([1]);
    const b = cellOf([1]);
    const none = cellOf([1]);
    [a.achievedRate, a.achievedSenders] = [4.9, 1];
    [b.achievedRate, b.achievedSenders] = [5, 1];
    mergeCell(a, b);
    mergeCell(a, none);
    expect([a.achievedRate, a.achievedSenders]).toEqual([9.9, 2]);
  });

  it("keeps the busier runner's CPU samples: each k6 process has its own cores", () => {
    const a = cellOf([1], { cpu: [0, 1, 10_000, 3] }); // 0.2 of its cores
    const b = cellOf([1], { cpu: [0, 5, 10_000, 14] }); // 0.9 of its cores
    mergeCell(a, b);
    expect([a.cpuFirst, a.cpuLast]).toEqual([{ atMs: 0, seconds: 5 }, { atMs: 10_000, seconds: 14 }]);
  });

  it('adds up the counts of a message and keeps at most MAX_MESSAGES_PER_KIND of them', () => {
    const a = cellOf([1]);
    const b = cellOf([1]);
    a.errorMessages.http_5xx = new Map([['CUDA out of memory', 2]]);
    b.errorMessages.http_5xx = new Map(Array.from({ length: MAX_MESSAGES_PER_KIND + 5 }, (_, i) => [`m${i}`, 1]));
    b.errorMessages.http_5xx.set('CUDA out of memory', 3);
    mergeCell(a, b);
    expect(a.errorMessages.http_5xx!.get('CUDA out of memory')).toBe(5);
    expect(a.errorMessages.http_5xx!.size).toBe(MAX_MESSAGES_PER_KIND);
  });
});

describe('mergeSamples', () => {
  const series = (times: number[]) => ({ times: list(times), values: list(times.map((t) => t / 1000)) });
  const list = (values: number[]) => {
    const l = new FloatList(1);
    l.pushAll(values);
    return l;
  };
  const data = (
    cells: [string, ReturnType<typeof cellOf>][], monitor: SamplesData['monitor'], rows: number,
  ): SamplesData => ({
    cells: new Map(cells), monitor, rows, skippedRows: 1, partialTailBytes: 9, malformedRows: 0,
    requestSpans: newRequestSpans(),
  });

  it('merges cells by id, adds rows, and puts monitor samples in time order', () => {
    const merged = mergeSamples(
      data([['x', cellOf([1])]], { running: series([1000, 3000]) }, 10),
      data([['x', cellOf([2])], ['y', cellOf([3])]], { running: series([2000]), waiting: series([5]) }, 5),
    );
    expect([...merged.cells.keys()]).toEqual(['x', 'y']);
    expect(merged.cells.get('x')!.trends.ttft.length).toBe(2);
    expect([...merged.monitor.running!.times.values()]).toEqual([1000, 2000, 3000]);
    expect([...merged.monitor.running!.values.values()]).toEqual([1, 2, 3]);
    expect(merged.monitor.waiting!.times.length).toBe(1);
    expect([merged.rows, merged.skippedRows, merged.partialTailBytes]).toEqual([15, 2, 0]);
  });
});
