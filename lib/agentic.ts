// The agentic script's seeded workload generator and its cache arithmetic. Runs in k6 and Node (pure).
//
// A session is drawn whole before it runs: per user turn, the tool loop (which calls each step makes, how long each
// tool runs, which calls are sub-agents and their own loops) and the pause after it. The k6 side (lib/k6/agentic.ts)
// sends the calls, builds each next request from the previous answer and waits the drawn times.

import type { AgentModel, IntRange } from '../thresholds/agentic';
import { drawThinkSeconds } from './sessions';

/** One tool call a model call asks for: which tool, how long it runs (ms), or the sub-agent it starts. */
export interface ToolCallPlan {
  readonly tool: number;
  readonly latencyMs: number;
  readonly subAgent: AgentLoopPlan | null;
}

/** A tool loop: its tool-calling model calls in order, each with its calls; then one call gives the final answer. */
export interface AgentLoopPlan {
  readonly steps: readonly (readonly ToolCallPlan[])[];
}

export interface TurnPlan {
  readonly loop: AgentLoopPlan;
  /** The user's pause after the turn's answer, ms. */
  readonly thinkMs: number;
}

export interface SessionPlan {
  readonly turns: readonly TurnPlan[];
}

/** The tool that starts a sub-agent: the catalog's last (its description is a task, not a command). */
export function subAgentTool(m: Pick<AgentModel, 'tools'>): number {
  return m.tools - 1;
}

function drawInt(r: IntRange, random: () => number): number {
  return r.min + Math.floor(random() * (r.max - r.min + 1));
}

function drawLoop(m: AgentModel, depth: IntRange, fanOut: boolean, random: () => number): AgentLoopPlan {
  const steps: ToolCallPlan[][] = [];
  const n = drawInt(depth, random);
  for (let s = 0; s < n; s++) {
    // The draw is made even without fan-out, so a sub-agent's own draws do not shift the parent's sequence.
    const spawn = random() < m.subAgents.probability && fanOut && m.tools > 1;
    const count = spawn ? drawInt(m.subAgents.count, random) : drawInt(m.parallelToolCalls, random);
    const calls: ToolCallPlan[] = [];
    for (let c = 0; c < count; c++) {
      if (spawn) {
        const subAgent = drawLoop(m, m.subAgents.toolLoopDepth, false, random);
        calls.push({ tool: subAgentTool(m), latencyMs: 0, subAgent });
      } else {
        const tool = Math.floor(random() * Math.max(1, m.tools - 1));
        calls.push({ tool, latencyMs: 1000 * drawThinkSeconds(m.toolLatency, random), subAgent: null });
      }
    }
    steps.push(calls);
  }
  return { steps };
}

/** One session of the model, drawn from `random` (uniform in [0, 1)): the same draws give the same session. */
export function planSession(m: AgentModel, random: () => number): SessionPlan {
  const turns: TurnPlan[] = [];
  for (let t = 0; t < m.turns; t++) {
    const loop = drawLoop(m, m.toolLoopDepth, true, random);
    turns.push({ loop, thinkMs: 1000 * drawThinkSeconds(m.thinkTime, random) });
  }
  return { turns };
}

/** Model calls a loop makes: one per tool-calling step, one for the final answer, and every sub-agent's own. */
export function loopCalls(loop: AgentLoopPlan): number {
  let n = loop.steps.length + 1;
  for (const calls of loop.steps) for (const c of calls) if (c.subAgent) n += loopCalls(c.subAgent);
  return n;
}

/** How long a step's tools keep the loop waiting, ms: the slowest of its parallel calls (sub-agents are measured). */
export function toolWaitMs(calls: readonly ToolCallPlan[]): number {
  return calls.reduce((w, c) => Math.max(w, c.latencyMs), 0);
}

/** Prompt tokens of a request as the server counted them, and its output tokens. */
export interface CountedCall {
  readonly inputTokens: number;
  readonly outputTokens: number;
}

/**
 * The prompt tokens an ideal prefix cache serves for a request, as the server counts tokens:
 * - continuing a conversation: everything the previous call sent and got back (its prompt + its answer), which
 *   the request repeats before its new messages;
 * - opening one (a session, a sub-agent, after compaction): the shared system prompt and tool catalog, that is
 *   the prompt less its one new message (`freshTokens` of content and `messageTokens` of template around it), and
 *   0 for the cell's first request, which finds nothing cached.
 * Exact in tokens: a real cache keeps whole blocks, so what it serves is below this by up to a block per request.
 */
export function idealCachedTokens(
  promptTokens: number, previous: CountedCall | null,
  fresh: { readonly freshTokens: number; readonly messageTokens: number; readonly cold: boolean },
): number {
  if (previous) return Math.min(promptTokens, previous.inputTokens + previous.outputTokens);
  if (fresh.cold) return 0;
  return Math.max(0, promptTokens - fresh.freshTokens - fresh.messageTokens);
}

/** Whether a conversation whose last call was `last` is due for compaction before its next turn. */
export function needsCompaction(m: Pick<AgentModel, 'compaction'>, last: CountedCall | null): boolean {
  return m.compaction !== null && last !== null && last.inputTokens + last.outputTokens >= m.compaction.atTokens;
}

/** A prompt's size class for the context_class tag: the power of two at or above it, from 1K ("1k", "2k", "4k"). */
export function contextClass(promptTokens: number): string {
  let k = 1;
  while (k * 1024 < promptTokens) k *= 2;
  return `${k}k`;
}
