// How `npm run bench` drives the sessions script: the capacity search, in steps of active users. Pure. Runs in Node.
//
// A step holds N users, each running conversations with think time; it passes when the turns it measured meet the
// use case's limits, judged as a capacity step is (orchestrator/capacity-search.ts), so the active-user capacity and
// the concurrent-request capacity are found by one rule.

import type { CapacitySearchConfig, Plan } from '../lib/plan';
import { sessionCell, type SessionsConfig } from '../lib/plan-sessions';
import { CapacitySearch } from './capacity-search';
import type { StepSource } from './driver';

export interface SessionsDrive {
  readonly source: StepSource;
  readonly vus: number;
  readonly search: CapacitySearch;
}

/** The search over each measured use case's active users; as many VUs as the largest step may need. */
export function sessionsDrive(plan: Plan, cfg: CapacitySearchConfig, sessions: SessionsConfig): SessionsDrive {
  const useCases = Object.entries(sessions.models).map(([id, model]) => ({
    useCase: plan.useCases.find((u) => u.id === id)!, outputTokens: model.outputTokens,
  }));
  const search = new CapacitySearch(
    useCases, cfg, plan.limitStat, plan.minGoodput,
    (s, users) => sessionCell(s.useCase.id, sessions.models[s.useCase.id]!, users),
  );
  return { source: search, vus: Math.max(...search.searches.map((s) => s.maxUsers)), search };
}
