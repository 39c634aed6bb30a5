// What the agentic generator plans for its first agent, for end-to-end tests to judge a run by: the tool calls and
// results each of its calls carries, in order. Runs in Node (vitest).

import { planSession } from '../../lib/agentic';
import { resolvePlan } from '../../lib/plan';
import { mulberry32 } from '../../lib/random';
import type { AgentModel } from '../../thresholds/agentic';

/**
 * The [tool calls, tool results] each call of a step's first agent carries, in order, as lib/k6/agentic.ts draws
 * its sessions (seeded by the plan and the agent's place), for a plan without sub-agents or compaction: a session
 * opens with none, and each tool step adds its calls and, before the next call, their results.
 */
export function plannedToolTurns(agentic: { readonly seed: number }, count: number): [number, number][] {
  const m = resolvePlan({ agentic }, 'agentic').agentic!.model as AgentModel;
  // lib/k6/agentic.ts agentUser: the agent at place 0.
  const random = mulberry32((agentic.seed ^ Math.imul(1, 0x9e3779b1)) >>> 0);
  const out: [number, number][] = [];
  while (out.length < count) {
    let carried = 0;
    for (const turn of planSession(m, random).turns) {
      for (const step of turn.loop.steps) {
        out.push([carried, carried]);
        carried += step.length;
      }
      out.push([carried, carried]);
    }
  }
  return out.slice(0, count);
}
