// The agentic part's figures: per step of agents, the calls' speed and TTFT, the prefix cache against its ideal, the
// agents' steps and sessions; per SLO tier, the capacity in concurrent agents (analysis/slo-tiers.ts). Runs in Node.
//
// Formulas, over each step's measured calls and sessions (those wholly inside its hold):
//   ideal hit rate = sum of llm_agent_ideal_cached_tokens / prompt tokens (what the workload lets a cache serve)
//   server hit rate = sum of usage cached_tokens / prompt tokens (what the server said it served)
//   model share = mean over sessions of (time with one of its calls running / session time)

import type { Plan } from '../lib/plan';
import type { AgentModel } from '../thresholds/agentic';
import type { AgentAccumulator } from './agentic-samples';
import { aggregate } from './capacity-interval';
import type { RequestValues } from './capacity';
import type { CellStats } from './cells';
import { tierCapacity, type TierCapacity, type TierStep } from './slo-tiers';
import { summarize, type Distribution, type FloatList } from './stats';

/** TTFT of the measured calls of one group (a turn, a prompt size class). */
export interface TtftGroup {
  readonly group: string;
  readonly calls: number;
  readonly meanMs: number | null;
  readonly p95Ms: number | null;
}

export interface AgenticStep {
  readonly cellId: string;
  readonly agents: number;
  readonly calls: number;
  readonly failed: number;
  /** Output tokens per second of the step, all its agents together. */
  readonly throughput: number | null;
  readonly ttftP90Ms: number | null;
  readonly speedP25: number | null;
  readonly idealHitRate: number | null;
  readonly serverHitRate: number | null;
  readonly stepTime: Distribution | null;
  readonly sessionTime: Distribution | null;
  readonly sessionTokens: Distribution | null;
  readonly modelShare: Distribution | null;
  readonly ttftByTurn: readonly TtftGroup[];
  readonly ttftByContext: readonly TtftGroup[];
}

export interface AgenticReport {
  readonly model: AgentModel;
  /** The recorded agent trace replayed instead of the generator's sessions, and what it held; null: none. */
  readonly trace: NonNullable<Plan['agentic']>['trace'];
  /** The tier whose limits were the run's k6 thresholds; null: none. */
  readonly gateTier: string | null;
  readonly steps: readonly AgenticStep[];
  readonly tiers: readonly TierCapacity[];
  /**
   * The bench's search over agents (plan agentic.search) when it chose the steps: its settings; null for a ladder.
   */
  readonly search: NonNullable<Plan['agentic']>['search'];
}

/** What an agentic cell's samples held beside its statistics: its calls' values and its agents' figures. */
export interface AgenticSamples {
  readonly values: RequestValues;
  readonly agents: AgentAccumulator | undefined;
}

function p(values: ArrayLike<number> | undefined, stat: string): number | null {
  return values && values.length > 0 ? aggregate(values, stat) : null;
}

const sizeOrder = (size: string): number => Number.parseInt(size, 10);

function stepOf(cell: CellStats, samples: AgenticSamples | undefined): AgenticStep {
  const a = samples?.agents;
  const input = cell.inputTokensTotal;
  const dist = (list: FloatList | undefined): Distribution | null => (list ? summarize(list.sorted()) : null);
  const byContext = [...(a?.ttftByContext ?? new Map()).entries()].sort((x, y) => sizeOrder(x[0]) - sizeOrder(y[0]));
  return {
    cellId: cell.id, agents: cell.concurrency, calls: cell.requests, failed: cell.failed, throughput: cell.throughput,
    ttftP90Ms: p(samples?.values.ttft, 'p(90)'), speedP25: p(samples?.values.decodeSpeed, 'p(25)'),
    idealHitRate: a && input > 0 ? a.idealCachedTokens / input : null,
    serverHitRate: cell.cachedTokensTotal !== null && input > 0 ? cell.cachedTokensTotal / input : null,
    stepTime: dist(a?.stepTime), sessionTime: dist(a?.sessionTime), sessionTokens: dist(a?.sessionTokens),
    modelShare: dist(a?.modelShare),
    ttftByTurn: (cell.sessions?.turns ?? []).map((t) => ({
      group: t.turn, calls: t.requests, meanMs: t.ttftMeanMs, p95Ms: t.ttftP95Ms,
    })),
    ttftByContext: byContext.map(([group, list]) => {
      const d = summarize(list.sorted());
      return { group, calls: d?.count ?? 0, meanMs: d?.mean ?? null, p95Ms: d?.p95 ?? null };
    }),
  };
}

/** The agentic part's report; null without one. `minSuccessRate`: the share of calls every tier needs. */
export function agenticReport(
  plans: readonly Plan[], cells: readonly CellStats[], samples: ReadonlyMap<string, AgenticSamples>,
  minSuccessRate: number | null,
): AgenticReport | null {
  const plan = plans.find((x) => x.script === 'agentic' && x.agentic !== null);
  if (!plan) return null;
  const mine = cells.filter((c) => c.script === 'agentic').sort((x, y) => x.concurrency - y.concurrency);
  const steps = mine.map((c) => stepOf(c, samples.get(c.id)));
  const cfg = plan.agentic!;
  const search = cfg.search ?? null;
  const tierSteps = mine.map((c) => tierStepOf(c, samples.get(c.id)));
  return {
    model: cfg.model as AgentModel, trace: cfg.trace ?? null, gateTier: cfg.gateTier, steps,
    tiers: cfg.tiers.map((t) => tierCapacity(t, tierSteps, minSuccessRate ?? 0)), search,
  };
}

/**
 * A step as the tiers judge it. A step the client limited is marked so: it judges no tier, on a ladder as in a search
 * (which measures it again), as a rate ladder leaves such a cell out (analysis/rate-capacity.ts).
 */
export function tierStepOf(cell: CellStats, samples: AgenticSamples | undefined): TierStep {
  return {
    cellId: cell.id, agents: cell.concurrency, values: samples?.values ?? {}, succeeded: cell.succeeded,
    failed: cell.failed, throughput: cell.throughput,
    clientBound: cell.clientBound !== null,
  };
}
