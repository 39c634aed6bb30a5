// What the samples of the agentic script add to a cell: its agents' steps and sessions, the ideal cache, and TTFT by
// prompt size. Runs in Node. read-samples.ts hands it each llm_agent_* sample and each request TTFT tagged with a
// size class, measured phase only.

import { AGENT_METRICS, SAMPLE_TAGS, type AgentMetricKey } from '../lib/metrics';
import { FloatList } from './stats';

/** A cell's agent figures, measured phase only (a session's phase is its own: whole within the hold). */
export interface AgentAccumulator {
  readonly stepTime: FloatList;
  readonly sessionTime: FloatList;
  readonly sessionTokens: FloatList;
  readonly modelShare: FloatList;
  /** Prompt tokens a perfect prefix cache serves, summed over the measured calls. */
  idealCachedTokens: number;
  /** Each measured call's TTFT, by its prompt's size class ("1k", "2k", ...). */
  readonly ttftByContext: Map<string, FloatList>;
}

export function newAgentAccumulator(): AgentAccumulator {
  return {
    stepTime: new FloatList(64), sessionTime: new FloatList(16), sessionTokens: new FloatList(16),
    modelShare: new FloatList(16), idealCachedTokens: 0, ttftByContext: new Map(),
  };
}

/** Whether a metric key is one of the agentic script's own (lib/metrics.ts AGENT_METRICS). */
export function isAgentMetric(key: string): key is AgentMetricKey {
  return key in AGENT_METRICS;
}

/** One measured sample of an agentic cell: an agent metric, or a call's TTFT with its size class. */
export function addAgentSample(
  acc: AgentAccumulator, key: string, tags: Readonly<Record<string, string>>, value: number,
): void {
  switch (key) {
    case 'idealCachedTokens':
      acc.idealCachedTokens += value;
      return;
    case 'agentStepTime':
      acc.stepTime.push(value);
      return;
    case 'agentSessionTime':
      acc.sessionTime.push(value);
      return;
    case 'agentSessionTokens':
      acc.sessionTokens.push(value);
      return;
    case 'agentModelShare':
      acc.modelShare.push(value);
      return;
    case 'ttft': {
      const size = tags[SAMPLE_TAGS.contextClass];
      if (size === undefined) return;
      let list = acc.ttftByContext.get(size);
      if (list === undefined) acc.ttftByContext.set(size, (list = new FloatList(64)));
      list.push(value);
    }
  }
}
