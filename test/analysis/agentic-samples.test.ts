// An agentic cell's own samples: agent metrics to their lists, TTFT by prompt size class. Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { addAgentSample, isAgentMetric, newAgentAccumulator } from '../../analysis/agentic-samples';

describe('addAgentSample', () => {
  it('files each agent metric, sums the ideal cache, and keeps TTFT by size class', () => {
    const acc = newAgentAccumulator();
    addAgentSample(acc, 'idealCachedTokens', {}, 800);
    addAgentSample(acc, 'idealCachedTokens', {}, 200);
    addAgentSample(acc, 'agentStepTime', {}, 1500);
    addAgentSample(acc, 'agentSessionTime', {}, 30_000);
    addAgentSample(acc, 'agentSessionTokens', {}, 12_000);
    addAgentSample(acc, 'agentModelShare', {}, 0.6);
    addAgentSample(acc, 'ttft', { context_class: '4k' }, 90);
    addAgentSample(acc, 'ttft', { context_class: '4k' }, 110);
    addAgentSample(acc, 'ttft', { context_class: '8k' }, 150);
    // A TTFT without a class, and another request metric, are not the accumulator's.
    addAgentSample(acc, 'ttft', {}, 999);
    addAgentSample(acc, 'e2e', { context_class: '4k' }, 999);
    expect(acc.idealCachedTokens).toBe(1000);
    expect([...acc.stepTime.values()]).toEqual([1500]);
    expect([...acc.sessionTime.values(), ...acc.sessionTokens.values(), ...acc.modelShare.values()])
      .toEqual([30_000, 12_000, 0.6]);
    expect([...acc.ttftByContext.entries()].map(([k, v]) => [k, [...v.values()]])).toEqual([
      ['4k', [90, 110]], ['8k', [150]],
    ]);
  });

  it('knows the agent metrics by their keys in the metric table', () => {
    expect(['idealCachedTokens', 'agentStepTime', 'agentModelShare'].every(isAgentMetric)).toBe(true);
    expect(isAgentMetric('ttft')).toBe(false);
  });
});
