// Tests how the report words why a cell was client-bound (report/capacity-words.ts clientBoundWords): analysis/ gives
// the cause in figures (analysis/client-bound.ts), and these are the sentences the report and the bench print.
// Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { clientBoundWords } from '../../report/capacity-words';

describe('clientBoundWords', () => {
  it('words the agent\'s CPU, its tokens read together and its late reads', () => {
    expect(clientBoundWords({ agentCpuShare: 0.95, reading: null })).toBe('the measuring agent used 95% of its cores');
    expect(clientBoundWords({ agentCpuShare: null, reading: { kind: 'readTogether', share: 0.02, readLagP99Ms: 8 } }))
      .toBe('the measuring agent read 2.0% of the tokens together with the chunk before them (read lag p99 8.0 ms), ' +
        "so their inter-token gaps are the client's, not the server's");
    expect(clientBoundWords({ agentCpuShare: null, reading: { kind: 'readLate', readLagP99Ms: 12, itlMedianMs: 10 } }))
      .toBe('the measuring agent read its streams up to 12.0 ms late (p99) against a median inter-token gap of ' +
        '10.0 ms, so tokens may have been read together');
  });

  it('joins both causes, the CPU first, and leaves out a read lag the agent did not give', () => {
    const both = clientBoundWords({
      agentCpuShare: 0.914, reading: { kind: 'readTogether', share: 0.5, readLagP99Ms: null },
    });
    expect(both).toBe('the measuring agent used 91% of its cores; the measuring agent read 50.0% of the tokens ' +
      "together with the chunk before them, so their inter-token gaps are the client's, not the server's");
  });
});
