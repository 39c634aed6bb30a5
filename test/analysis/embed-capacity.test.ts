// Tests for analysis/embed-capacity.ts: each embed cell's throughput and p99, and the capacity of each ladder.
// Runs in Node (vitest).

import { describe, expect, it } from 'vitest';
import { embedCapacities, embedCellFigures, type EmbedCellInput } from '../../analysis/embed-capacity';

const cell = (concurrency: number, latency: number, extra: Partial<EmbedCellInput> = {}): EmbedCellInput => ({
  cellId: `c${concurrency}`, inputTokens: 512, batch: 4, concurrency,
  latencyMs: Array.from({ length: 100 }, () => latency), failed: 0, items: 400, tokens: 400 * 512, spanMs: 10_000,
  ...extra,
});

describe('an embed cell', () => {
  it('gives requests, items and tokens per second over its span, and its p50 and p99', () => {
    const latencyMs = Array.from({ length: 100 }, (_, i) => i + 1);
    const f = embedCellFigures(cell(2, 0, { latencyMs }), 99.5);
    expect(f.requestsPerSecond).toBe(10);
    expect(f.itemsPerSecond).toBe(40);
    expect(f.tokensPerSecond).toBe(40 * 512);
    expect(f.latencyP50Ms).toBeCloseTo(50.5, 6);
    expect(f.latencyP99Ms).toBeCloseTo(99.01, 6);
    expect(f.withinLimit).toBe(true);
    expect(embedCellFigures(cell(2, 0, { latencyMs }), 99).withinLimit).toBe(false);
  });

  it('breaks its limit with a single failure, and says nothing without a successful request', () => {
    expect(embedCellFigures(cell(1, 10, { failed: 1 }), 1000).withinLimit).toBe(false);
    const none = embedCellFigures(cell(1, 0, { latencyMs: [], failed: 3, spanMs: 0 }), 1000);
    expect(none).toMatchObject({ requests: 3, requestsPerSecond: null, latencyP99Ms: null, withinLimit: false });
  });
});

describe('embed capacity', () => {
  it('is the last concurrency within the limit below the first break, per input and batch', () => {
    const cells = [
      cell(16, 400, { spanMs: 5000 }), cell(1, 50), cell(4, 100, { spanMs: 4000 }), cell(32, 200),
      cell(1, 250, { batch: 16 }), cell(4, 1200, { batch: 16 }),
    ];
    const [small, big] = embedCapacities(cells, 300);
    expect(small!.cells.map((c) => c.concurrency)).toEqual([1, 4, 16, 32]);
    expect(small!.capacity)
      .toEqual({ concurrency: 4, requestsPerSecond: 25, itemsPerSecond: 100, tokensPerSecond: 51_200 });
    expect(small!.brokenAt).toBe(16);
    expect(big).toMatchObject({ batch: 16, brokenAt: 4 });
    expect(big!.capacity?.concurrency).toBe(1);
  });

  it('is null when the lowest concurrency breaks, and open-ended when none does', () => {
    expect(embedCapacities([cell(1, 500), cell(2, 100)], 300)[0]).toMatchObject({ capacity: null, brokenAt: 1 });
    expect(embedCapacities([cell(1, 100), cell(2, 100)], 300)[0])
      .toMatchObject({ capacity: { concurrency: 2 }, brokenAt: null });
  });
});
