// Resolves a plan's agentic section: the agent model, the tiers, the cells (steps of concurrent agents) and their
// slots. Runs in k6 and Node.
//
// An agentic cell is one step of N concurrent agents, each running sessions back to back (lib/k6/agentic.ts). It runs
// in k6's time slots, under the bench too: one agent's sub-agents are concurrent requests of one VU, which the
// bench's one-ticket-per-request driving does not hold. Each step is held rampSeconds + warmupSeconds + holdSeconds.

import { DEFAULT_AGENT, type AgentModel } from '../thresholds/agentic';
import type { agenticSchemas } from './plan-agentic-schema';
import type { ParsedPlanInput } from './plan-schema';
import type { Parsed } from './schema';

/** The agentic section of a resolved plan (plan.json's `agentic`). */
export type AgenticConfig = Parsed<ReturnType<typeof agenticSchemas>['resolvedAgentic']>;

/**
 * The defaults of thresholds/agentic.ts with the plan's fields over them; null when the gate tier is none of the
 * tiers (lib/plan.ts says so, naming the field).
 */
export function resolveAgentic(
  input: ParsedPlanInput['agentic'], trace: AgenticConfig['trace'] = null,
): AgenticConfig | null {
  const own = Object.fromEntries(Object.entries(input.model).filter(([, value]) => value !== undefined));
  const model = { ...DEFAULT_AGENT, ...own } as AgentModel;
  if (input.gateTier !== null && !input.tiers.some((t) => t.id === input.gateTier)) return null;
  const { tiers, gateTier, seed, rampSeconds, warmupSeconds, holdSeconds, search } = input;
  return { model, tiers, gateTier, seed, rampSeconds, warmupSeconds, holdSeconds, trace, search } as AgenticConfig;
}

/**
 * A step's call sizes, for cell ids and slots: a replayed trace's longest prompt and output, else the generator's
 * first call, its bound on a call's prompt, and its output.
 */
export function agentCallSizes(cfg: AgenticConfig): { first: number; longest: number; output: number } {
  const t = cfg.trace?.summary;
  if (t) return { first: t.maxInputTokens, longest: t.maxInputTokens, output: t.maxOutputTokens };
  return { first: firstCallTokens(cfg.model), longest: longestCallTokens(cfg.model), output: cfg.model.outputTokens };
}

/** Prompt tokens of a session's first call: the system prompt, the catalog and one user message (template aside). */
export function firstCallTokens(m: AgentModel): number {
  return m.systemPromptTokens + m.tools * m.toolDescriptionTokens + m.userTokens;
}

/**
 * A bound on a call's prompt tokens, for slot sizes only: every turn at its deepest loop of the widest steps, up to
 * where compaction cuts the history.
 */
export function longestCallTokens(m: AgentModel): number {
  const perStep = m.outputTokens + m.parallelToolCalls.max * m.toolResultTokens;
  const full = firstCallTokens(m) + m.turns * (m.userTokens + (m.toolLoopDepth.max + 1) * perStep);
  return m.compaction ? Math.min(full, m.compaction.atTokens + perStep) : full;
}

/** An agentic cell before its slot: one step of `agents` concurrent agents. */
export interface AgenticCellDraft {
  readonly id: string;
  readonly script: 'agentic';
  readonly contextTokens: number;
  readonly outputTokens: number;
  readonly concurrency: number;
  readonly rounds: number;
  readonly useCase: null;
  readonly profile: null;
}

/** The plan's ladder: one cell per number of concurrent agents. */
export function agenticDrafts(agents: readonly number[], cfg: AgenticConfig): AgenticCellDraft[] {
  const sizes = agentCallSizes(cfg);
  return [...new Set(agents)].sort((a, b) => a - b).map((n) => ({
    id: `agentic_n${n}`, script: 'agentic', contextTokens: sizes.first,
    outputTokens: sizes.output, concurrency: n, rounds: 1, useCase: null, profile: null,
  }));
}

/**
 * A step's slot: ramp + warm-up + hold; then its agents start no call, and the calls running may end within the
 * grace: one call of the longest prompt alone, times the safety factor. Not one per agent: an agent's history is
 * mostly cached, so the calls at the end prefill little, and a slot sized for the worst case idles for minutes (k6
 * starts each cell at a fixed time). A call still running after the grace is cut, and the report counts it.
 */
export function agenticSlot(
  cfg: AgenticConfig,
  requestSeconds: (context: number, output: number, concurrency: number) => number, safetyFactor: number,
): { maxDurationSeconds: number; gracefulStopSeconds: number } {
  const sizes = agentCallSizes(cfg);
  const call = requestSeconds(sizes.longest, sizes.output, 1);
  return {
    maxDurationSeconds: cfg.rampSeconds + cfg.warmupSeconds + cfg.holdSeconds,
    gracefulStopSeconds: Math.max(1, Math.ceil(call * safetyFactor)),
  };
}
