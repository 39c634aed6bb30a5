// The search over concurrent agents of the agentic script (plan `agentic.search`): one step of N agents judges every
// SLO tier at once; the search climbs until tiers break, then narrows each tier's [last pass, first fail) to the plan's
// resolution. Pure. Runs in Node.
//
// Each tier is the users' search (orchestrator/capacity-search.ts nextSearchStep) over the same steps: the same climb
// (a power law through the passing steps, at most x2), the same interpolation, the same bisection when a try does not
// halve the interval. Every tier that is not yet resolved names the step it wants next, and the smallest is measured:
// the strictest tier is narrowed first, and each of its steps is a passing step of the looser tiers, which then climb
// from it. Each step's verdicts are the report's own (analysis/slo-tiers.ts checkTierStep), so the search and the
// report's tier table cannot disagree.
//
// A step the client limited (the measuring agent was too busy to read the streams on time: analysis/client-bound.ts)
// measured the client, not the server: it is measured once more, as the rate search does; limited again, the search
// ends there (steps of more agents would be limited further), and every tier not yet resolved is undetermined above
// its last clean pass.

import { resolutionAt } from '../lib/plan';
import type { LadderLimit, LimitCheck } from '../analysis/capacity';
import { tierLimitLabel, type SloTier } from '../thresholds/agentic';
import { nextSearchStep, type SearchPoint } from './capacity-search';

export interface AgenticSearchConfig {
  readonly startAgents: number;
  readonly maxAgents: number;
  readonly exactBelow: number;
  readonly resolutionPercent: number;
}

/** One tier's verdict on a step: each limit's check (the success share last), and whether all held. */
export interface TierVerdict {
  readonly ok: boolean;
  readonly checks: readonly LimitCheck[];
}

/** One measured step of agents: its verdict per tier (in the plan's order), and whether the client limited it. */
export interface AgentsStep {
  readonly agents: number;
  readonly cellId: string;
  readonly tiers: readonly TierVerdict[];
  /** Why the client limited it; null when it did not. */
  readonly clientLimited: string | null;
}

/** A tier's outcome: its last passing and first failing agents, null where none; `limited` when the client ended it. */
export interface TierOutcome {
  readonly lastPass: number | null;
  readonly firstFail: number | null;
  readonly limited: boolean;
}

export type AgentsSearchState =
  | { readonly kind: 'next'; readonly agents: number; readonly again: boolean }
  | {
      readonly kind: 'done';
      readonly tiers: readonly TierOutcome[];
      /** The step the client limited twice, ending the search; null when none did. */
      readonly clientLimited: AgentsStep | null;
    };

/** A tier's limits as the users' search reads them (their values and order matter to it), the success share last. */
export function tierSearchLimits(tier: SloTier, minSuccessRate: number): LadderLimit[] {
  const limits: LadderLimit[] = tier.limits.map((l) => ({
    metric: l.metric, operator: l.operator, value: l.value, label: tierLimitLabel(l),
    expression: `${l.stat}${l.operator}${l.value}`,
  }));
  limits.push({
    metric: 'successRate', operator: '>=', value: minSuccessRate, label: `success >= ${minSuccessRate * 100}%`,
    expression: `rate>=${minSuccessRate}`,
  });
  return limits;
}

/** Validates a search's configuration once; throws a one-line message naming the bad field. */
export function checkAgenticSearchConfig(cfg: AgenticSearchConfig): void {
  if (!(cfg.startAgents >= 1)) throw new Error('agentic search startAgents must be at least 1');
  if (!(cfg.maxAgents >= cfg.startAgents)) throw new Error('agentic search maxAgents must be at least its startAgents');
}

/** The clean steps as one tier's points, in the order measured. */
function pointsOf(steps: readonly AgentsStep[], tier: number): SearchPoint[] {
  return steps.map((s) => ({ users: s.agents, ok: s.tiers[tier]!.ok, checks: s.tiers[tier]!.checks }));
}

/**
 * The next step from the steps measured so far (in the order measured), or the outcome per tier. `limits` holds each
 * tier's limits (tierSearchLimits), in the order of the steps' verdicts.
 */
export function nextAgentsStep(
  steps: readonly AgentsStep[], cfg: AgenticSearchConfig, limits: readonly (readonly LadderLimit[])[],
): AgentsSearchState {
  const limited = steps.filter((s) => s.clientLimited !== null);
  const twice = limited.find((s) => limited.filter((o) => o.agents === s.agents).length >= 2) ?? null;
  const clean = steps.filter((s) => s.clientLimited === null);
  const last = steps.at(-1);
  if (twice === null && last?.clientLimited) return { kind: 'next', agents: last.agents, again: true };
  const grid = { startUsers: cfg.startAgents, exactBelow: cfg.exactBelow, resolutionPercent: cfg.resolutionPercent };
  const states = limits.map((l, i) => nextSearchStep(pointsOf(clean, i), grid, cfg.maxAgents, l));
  if (twice !== null) {
    const tiers = states.map((st, i) =>
      st.kind === 'done' ? { lastPass: st.lastPass, firstFail: st.firstFail, limited: false }
        : { ...outcomeBelow(pointsOf(clean, i), twice.agents), limited: true });
    return { kind: 'done', tiers, clientLimited: twice };
  }
  const wanted = states.flatMap((st, i) =>
    (st.kind === 'next' ? [climbAtLeast(pointsOf(clean, i), st.users, cfg)] : []));
  if (wanted.length > 0) return { kind: 'next', agents: Math.min(...wanted), again: false };
  const tiers = states.map((st) => {
    const done = st as Extract<typeof st, { kind: 'done' }>;
    return { lastPass: done.lastPass, firstFail: done.firstFail, limited: false };
  });
  return { kind: 'done', tiers, clientLimited: null };
}

/**
 * A tier that has not broken yet climbs at least one resolution step at a time, as the rate search does: a statistic
 * that nears its limit slowly would otherwise creep up one agent a step, each step tens of seconds.
 */
function climbAtLeast(points: readonly SearchPoint[], wanted: number, cfg: AgenticSearchConfig): number {
  const lo = Math.max(0, ...points.filter((p) => p.ok).map((p) => p.users));
  const broken = points.some((p) => !p.ok && p.users > lo);
  if (broken || points.length === 0) return wanted;
  return Math.max(wanted, Math.min(cfg.maxAgents, lo + resolutionAt(lo, cfg)));
}

/** The last clean pass below `ceiling` and the first clean fail above it: where a client-limited search ends. */
function outcomeBelow(points: readonly SearchPoint[], ceiling: number): Omit<TierOutcome, 'limited'> {
  const below = points.filter((p) => p.users < ceiling);
  const lastPass = Math.max(0, ...below.filter((p) => p.ok).map((p) => p.users));
  const fails = below.filter((p) => !p.ok && p.users > lastPass).map((p) => p.users);
  return { lastPass: lastPass === 0 ? null : lastPass, firstFail: fails.length > 0 ? Math.min(...fails) : null };
}
