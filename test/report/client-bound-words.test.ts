// Tests how the report words why a cell was client-bound (report/capacity-words.ts clientBoundWords): analysis/ gives
// the cause in figures (analysis/client-bound.ts), and these are the sentences the report and the bench print.
// Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { clientBoundWords } from '../../report/capacity-words';

describe('clientBoundWords', () => {
  it('words the agent\'s CPU, its tokens read together and its late reads', () => {
    expect(clientBoundWords({ agentCpuShare: 0.95, reading: null, stall: null }))
      .toBe('the measuring agent used 95% of its cores');
    const together = { kind: 'readTogether', share: 0.02, readLagP99Ms: 8 } as const;
    expect(clientBoundWords({ agentCpuShare: null, reading: together, stall: null }))
      .toBe('the measuring agent read 2.0% of the tokens together with the chunk before them (read lag p99 8.0 ms), ' +
        "so their inter-token gaps are the client's, not the server's");
    const late = { kind: 'readLate', readLagP99Ms: 12, itlMedianMs: 10 } as const;
    expect(clientBoundWords({ agentCpuShare: null, reading: late, stall: null }))
      .toBe('the measuring agent read its streams up to 12.0 ms late (p99) against a median inter-token gap of ' +
        '10.0 ms, so tokens may have been read together');
  });

  it("words the machine's stalls, in ms or s", () => {
    expect(clientBoundWords({ agentCpuShare: null, reading: null, stall: { share: 0.25, longestMs: 6180 } }))
      .toBe('the machine stopped running the measuring agent for up to 6.2 s while 25.0% of the requests ran ' +
        '(a paused or starved VM, a stopped process), so their times hold the pause');
    expect(clientBoundWords({ agentCpuShare: null, reading: null, stall: { share: 0.012, longestMs: 80.4 } }))
      .toMatch(/^the machine stopped running the measuring agent for up to 80 ms while 1\.2% of the requests ran/);
  });

  it('joins both causes, the CPU first, and leaves out a read lag the agent did not give', () => {
    const both = clientBoundWords({
      agentCpuShare: 0.914, reading: { kind: 'readTogether', share: 0.5, readLagP99Ms: null }, stall: null,
    });
    expect(both).toBe('the measuring agent used 91% of its cores; the measuring agent read 50.0% of the tokens ' +
      "together with the chunk before them, so their inter-token gaps are the client's, not the server's");
  });
});
