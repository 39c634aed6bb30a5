// The agentic script's defaults: one coding agent's session as knobs, and the SLO tiers its capacity is stated in.
// Runs in k6 and Node (data).
//
// A plan's `agentic` section overrides any field (docs/guides/agentic.md gives the why of each default).

import type { ThinkTime } from './sessions';

/** A whole number drawn uniformly from [min, max]. */
export interface IntRange {
  readonly min: number;
  readonly max: number;
}

/** How an agent's session runs: user turns, each a tool loop of model calls; tools, sub-agents, compaction. */
export interface AgentModel {
  /** User turns per session; an agent starts a new session after the last. */
  readonly turns: number;
  /** Tokens of each user message (words of one token each, so exact). */
  readonly userTokens: number;
  /** max_tokens of every model call (forced with ignore_eos). */
  readonly outputTokens: number;
  /** Model calls per turn that end in tool calls, before the call whose answer ends the turn. */
  readonly toolLoopDepth: IntRange;
  /** Tool calls one model call asks for at once (run in parallel: the loop waits for the slowest). */
  readonly parallelToolCalls: IntRange;
  /** Tokens of each tool's result, sent back as a tool message. */
  readonly toolResultTokens: number;
  /** How long one tool runs. */
  readonly toolLatency: ThinkTime;
  /** The user's pause after a turn's answer, before the next turn. */
  readonly thinkTime: ThinkTime;
  /**
   * Fan-out: with `probability`, a tool-calling step calls `count` sub-agents instead of tools. Each runs its own
   * tool loop (`toolLoopDepth` deep, no further fan-out) from the shared prefix; the parent waits for all (join) and
   * reads each one's final answer as its tool result.
   */
  readonly subAgents: { readonly probability: number; readonly count: IntRange; readonly toolLoopDepth: IntRange };
  /** Tokens of the system prompt every agent shares (a prefix cache should hold it once). */
  readonly systemPromptTokens: number;
  /** Tools in the catalog every request carries, and the tokens of each one's description. */
  readonly tools: number;
  readonly toolDescriptionTokens: number;
  /**
   * Context compaction: before a turn whose history has reached `atTokens` prompt tokens, the agent asks the model
   * for a summary (`summaryTokens` long) and continues from the system prompt and that summary. null: never.
   */
  readonly compaction: { readonly atTokens: number; readonly summaryTokens: number } | null;
}

const exponential = (meanSeconds: number): ThinkTime => ({ distribution: 'exponential', meanSeconds });

/**
 * A coding agent of today, scaled to run on a CPU simulator in minutes: a few user turns, each two to four tool
 * rounds of one to three parallel tools of about a second (a file read, a grep, a test run), a sub-agent now and
 * then, a shared 2K-token system prompt and 8 tools, compaction at 32K tokens.
 */
export const DEFAULT_AGENT: AgentModel = {
  turns: 3,
  userTokens: 64,
  outputTokens: 128,
  toolLoopDepth: { min: 2, max: 4 },
  parallelToolCalls: { min: 1, max: 3 },
  toolResultTokens: 512,
  toolLatency: { distribution: 'lognormal', medianSeconds: 0.8, sigma: 0.6 },
  thinkTime: exponential(10),
  subAgents: { probability: 0.1, count: { min: 2, max: 3 }, toolLoopDepth: { min: 1, max: 2 } },
  systemPromptTokens: 2048,
  tools: 8,
  toolDescriptionTokens: 64,
  compaction: { atTokens: 32_768, summaryTokens: 1024 },
};

/** The per-request statistics a tier may name (k6's threshold aggregations). */
export const TIER_STATS = ['avg', 'med', 'p(25)', 'p(75)', 'p(90)', 'p(95)', 'p(99)'] as const;
export type TierStat = (typeof TIER_STATS)[number];

/** The request metrics a tier's limit may be on (keys of lib/metrics.ts's table). */
export const TIER_METRICS = ['ttft', 'decodeSpeed', 'itl', 'e2e'] as const;
export type TierMetric = (typeof TIER_METRICS)[number];

/** One limit of a tier: "<stat> of the step's requests' <metric> <operator> <value>" (ms, or tok/s for speed). */
export interface TierLimit {
  readonly metric: TierMetric;
  readonly stat: TierStat;
  readonly operator: '<' | '<=' | '>' | '>=';
  readonly value: number;
}

/** An SLO tier: a name and the limits every measured step of agents must meet at once. */
export interface SloTier {
  readonly id: string;
  readonly limits: readonly TierLimit[];
}

const floor = (tokS: number): TierLimit => ({ metric: 'decodeSpeed', stat: 'p(25)', operator: '>=', value: tokS });
const ceiling = (ms: number): TierLimit => ({ metric: 'ttft', stat: 'p(90)', operator: '<=', value: ms });

/**
 * Built-in tiers, after AIPerf's issue 987: a floor on the 25th percentile of output speed (three requests in four
 * stream at least that fast) and a ceiling on the 90th percentile of TTFT.
 */
export const DEFAULT_TIERS: readonly SloTier[] = [
  { id: 'interactive', limits: [floor(50), ceiling(2000)] },
  { id: 'standard', limits: [floor(20), ceiling(8000)] },
  { id: 'batch', limits: [floor(5), ceiling(30_000)] },
];

const TIER_METRIC_NAMES: Readonly<Record<TierMetric, string>> = {
  ttft: 'TTFT', decodeSpeed: 'speed', itl: 'ITL', e2e: 'e2e',
};

/** "speed p25 >= 20 tok/s", "TTFT p90 <= 8 s": a tier limit as the report shows it. */
export function tierLimitLabel(l: TierLimit): string {
  const stat = l.stat === 'avg' ? 'mean' : l.stat === 'med' ? 'median' : l.stat.replace(/^p\((\d+)\)$/, 'p$1');
  const name = `${TIER_METRIC_NAMES[l.metric]} ${stat} ${l.operator}`;
  if (l.metric === 'decodeSpeed') return `${name} ${l.value} tok/s`;
  return l.value >= 1000 && l.value % 100 === 0 ? `${name} ${l.value / 1000} s` : `${name} ${l.value} ms`;
}
