// Tests analysis/clock-faults.ts and report/clock-fault-warning.ts: a server mean above the client's for the same
// requests is flagged, within the readings' resolution it is not. Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { clockFaultsOf, clockToleranceMs } from '../../analysis/clock-faults';
import { clockFaultWarning } from '../../report/clock-fault-warning';
import type { ServerFigures } from '../../analysis/server-metrics';
import type { Report } from '../../report/report-types';
import { renderMarkdown } from '../../report/render-md';
import { serverClockSection } from '../../report/sections/server-clock';
import { cell, flat } from './helpers';

function server(ttftMs: number | null, e2eMs: number | null, scrapes = true): ServerFigures {
  return {
    queueWaitMs: null, prefillTimeMs: null, serverTtftMs: ttftMs, serverItlMs: null, serverE2eMs: e2eMs,
    preemptions: null, maxWaiting: null, maxKvCacheUsage: null, prefixCacheHitRate: null,
    serverPrefillTokensPerSecond: null, serverDecodeTokensPerSecond: null,
    scrapes: scrapes ? [{ fromMs: 0, toMs: 1000, requests: 12 }] : null, leftOut: null,
  };
}

describe('clock faults', () => {
  const metrics = { ttft: flat(151), e2e: flat(2000) };
  const timed = (s: ServerFigures) => cell({ id: 'capacity_code_completion_n1', succeeded: 12, metrics, server: s });

  it("flags a server TTFT or e2e above the client's for the same requests (issue 46: 203 ms against 151)", () => {
    const faults = clockFaultsOf(timed(server(203, 1990)));
    expect(faults).toEqual([expect.objectContaining({ metric: 'TTFT', suiteMs: 151, serverMs: 203, requests: 12 })]);
    const w = clockFaultWarning([timed(server(203, 2100)), timed(server(140, 1900))])!;
    expect(w.kind).toBe('clock-fault');
    expect(w.summary).toMatch(/above the client's for the same requests in 1 cell: a measurement fault/);
    expect(w.details).toHaveLength(2);
    expect(w.details[0]).toMatch(/^Cell capacity_code_completion_n1: the server's mean TTFT \(203.*\) is above/);
  });

  it('allows what the sums and the clocks cannot tell apart, and judges no figure read over no scrapes', () => {
    // 500 ppm of 2 s is 1 ms, and the sums' 1 us over 12 requests: 0.0001 ms.
    expect(clockToleranceMs(2000, 12)).toBeCloseTo(1 + 0.001 / 12, 9);
    expect(clockFaultsOf(timed(server(151.05, 2000.9)))).toEqual([]);
    expect(clockFaultsOf(timed(server(151.2, 2001.1))).map((f) => f.metric)).toEqual(['TTFT', 'e2e']);
    expect(clockFaultsOf(timed(server(203, null, false)))).toEqual([]);
    expect(clockFaultWarning([timed(server(150, 1999))])).toBeNull();
  });
});

describe("The Server's Own Clock section", () => {
  it('marks a fault in the table and lists the cells whose server means are left out, with why', () => {
    const metrics = { ttft: flat(151), e2e: flat(2000), itl: flat(10) };
    const faulty = cell({ id: 'capacity_code_completion_n1', succeeded: 12, metrics, server: server(203, 1990) });
    const leftOut = { ...server(null, null, false), maxKvCacheUsage: 0.5, leftOut: { kind: 'shared' as const } };
    const shared = cell({ id: 'capacity_code_completion_n2', concurrency: 2, metrics, server: leftOut });
    const md = renderMarkdown(serverClockSection({ cells: [faulty, shared] } as unknown as Report), []);
    expect(md).toContain('| capacity_code_completion_n1 | 1 | 12 | 151ms / 203ms **FAULT** | 10.0ms | 2.0s / 2.0s |');
    expect(md).toMatch(/\| capacity_code_completion_n2 \| 2 \| 10 \| 151ms \| 10\.0ms \| 2\.0s \|/);
    expect(md).toContain("- capacity_code_completion_n2: other requests (warm-ups, requests across a step change or " +
      "another cell's) ran between every pair of scrapes around its measured requests.");
  });
});
