// The agentic script's agents: sessions of tool loops, parallel tools and sub-agents over the chat, Responses or
// Messages API (the history kept in the chat shape, sent in the target's: lib/tool-shapes.ts). Runs in k6 (bundled).
//
// Each VU is one agent for the whole of its step (one iteration, held as a sessions step is: ramp, warm-up, hold).
// A session is drawn whole from the VU's seeded draws (lib/agentic.ts planSession), then run: each call sends the
// conversation so far with the shared system prompt and tool catalog, and its answer, as the server returned it
// (the agent's keepText), goes into the next request with the calls it asked for and their results. Sub-agents are
// concurrent requests of the same VU. After the hold no call starts; a failed call ends its session.

import exec from 'k6/execution';
import {
  contextClass, idealCachedTokens, needsCompaction, planSession, toolWaitMs, type AgentLoopPlan, type CountedCall,
  type ToolCallPlan,
} from '../agentic';
import {
  agentText, systemMessage, toolCallMessage, toolCatalog, toolResultMessage, type AgentText,
} from '../agentic-messages';
import { cellSalt, createBlockPrompter, type BlockVocabulary } from '../block-prompt';
import type { ApiMessage, ToolSpec } from '../chat-template';
import { AGENT_METRICS, SAMPLE_TAGS } from '../metrics';
import type { Cell, Plan } from '../plan';
import { mulberry32 } from '../random';
import { buildStreamingRequest } from '../request';
import { turnPhase, turnTag, type Window } from '../sessions';
import { spanUnionMs, type Span } from '../span-union';
import type { AgentModel } from '../../thresholds/agentic';
import { nowMs, pause } from './clock';
import { sendRequest } from './llm-request';
import { createMetric } from './metric-object';

/** Created in the init context, as k6 requires; the trace replay (lib/k6/agentic-replay.ts) pushes them too. */
export const agentMetrics = {
  ideal: createMetric(AGENT_METRICS.idealCachedTokens),
  step: createMetric(AGENT_METRICS.agentStepTime),
  sessionTime: createMetric(AGENT_METRICS.agentSessionTime),
  sessionTokens: createMetric(AGENT_METRICS.agentSessionTokens),
  modelShare: createMetric(AGENT_METRICS.agentModelShare),
};

export interface AgentDeps {
  readonly plan: Plan;
  readonly apiKey: string | null;
  /** One-token words and the chat template's tokens around one message (prepare-prompts, or approximate). */
  readonly vocabulary: BlockVocabulary;
}

/** One conversation: the messages so far, what its last call counted, and the new message that opened it. */
interface Conversation {
  messages: ApiMessage[];
  last: CountedCall | null;
  /** Content tokens of the one message after the system prompt, while the conversation has had no call. */
  freshTokens: number;
}

/** What a step's calls share: the texts, the window, the session's tallies. */
interface SessionRun {
  readonly cell: Pick<Cell, 'id'>;
  readonly text: AgentText;
  readonly tools: readonly ToolSpec[];
  readonly system: ApiMessage;
  readonly window: Window;
  /** The agent and session, for unique texts and call ids. */
  readonly key: string;
  spans: Span[];
  tokens: number;
  calls: number;
  turn: number;
}

/** One agent: its deps and model, and whether its next call is the cell's very first (nothing cached yet). */
interface Agent {
  readonly deps: AgentDeps;
  readonly m: AgentModel;
  cold: boolean;
}

type CallKind = 'main' | 'sub' | 'compact';

/** One model call on a conversation; its answer as returned, or null when it failed or the hold is over. */
async function call(a: Agent, s: SessionRun, c: Conversation, kind: CallKind): Promise<string | null> {
  const { deps, m } = a;
  if (nowMs() >= s.window.endMs) return null;
  const maxTokens = kind === 'compact' ? m.compaction!.summaryTokens : m.outputTokens;
  const spec = buildStreamingRequest(
    deps.plan.target, { prompt: '', maxTokens, messages: c.messages, tools: s.tools }, deps.apiKey,
  );
  // Only a fallback when the server sends no usage: the template around the tools is the server's to count.
  const requested = c.last ? c.last.inputTokens + c.last.outputTokens : m.systemPromptTokens + c.freshTokens;
  const lengths = { requestedInputTokens: requested, requestedOutputTokens: maxTokens };
  const sent = await sendRequest(spec, lengths, deps.plan.target, {}, true, null, false, true);
  const r = sent.record;
  const phase = turnPhase(r.startMs, r.endMs, s.window);
  const counted = r.outcome === 'completed' ? r.inputTokens : requested;
  sent.pushMetrics({
    [SAMPLE_TAGS.phase]: phase, [SAMPLE_TAGS.turn]: turnTag(s.turn), [SAMPLE_TAGS.agentCall]: kind,
    [SAMPLE_TAGS.contextClass]: contextClass(counted),
  });
  s.spans.push([r.startMs, r.endMs]);
  s.calls++;
  if (r.outcome !== 'completed') return null;
  const fresh = { freshTokens: c.freshTokens, messageTokens: deps.vocabulary.fixedTokens, cold: a.cold };
  a.cold = false;
  agentMetrics.ideal.add(idealCachedTokens(r.inputTokens, c.last, fresh), { [SAMPLE_TAGS.phase]: phase });
  s.tokens += r.inputTokens + r.outputTokens;
  c.last = { inputTokens: r.inputTokens, outputTokens: r.outputTokens };
  return sent.text ?? '';
}

/** A sub-agent's conversation: the shared prefix and its task. */
function openTask(s: SessionRun, key: string, tokens: number): Conversation {
  return { messages: [s.system, { role: 'user', content: s.text(key, tokens) }], last: null, freshTokens: tokens };
}

/** An agent step's time, from its call's start to when the next call can go. */
function addStep(s: SessionRun, startMs: number): void {
  agentMetrics.step.add(nowMs() - startMs, { [SAMPLE_TAGS.phase]: turnPhase(startMs, nowMs(), s.window) });
}

/** The results of one step's calls: each tool's after the slowest ends, or each sub-agent's answer once all end. */
function runTools(
  a: Agent, s: SessionRun, calls: readonly ToolCallPlan[], stepId: string,
): Promise<(string | null)[]> {
  const result = (j: number) => s.text(`${stepId}.${j}:result`, a.m.toolResultTokens);
  if (!calls.some((t) => t.subAgent)) return pause(toolWaitMs(calls)).then(() => calls.map((_, j) => result(j)));
  return Promise.all(calls.map((t, j) => t.subAgent
    ? runLoop(a, s, openTask(s, `${stepId}.${j}:task`, a.m.userTokens), t.subAgent, 'sub', `${stepId}.${j}`)
    : Promise.resolve(result(j))));
}

/** A tool loop on a conversation: its tool steps, then the answer; the answer, or null when a call failed. */
async function runLoop(
  a: Agent, s: SessionRun, c: Conversation, loop: AgentLoopPlan, kind: 'main' | 'sub', id: string,
): Promise<string | null> {
  for (let i = 0; i < loop.steps.length; i++) {
    const calls = loop.steps[i]!;
    const stepId = `${id}.${i}`;
    const startMs = nowMs();
    const answer = await call(a, s, c, kind);
    if (answer === null) return null;
    c.messages.push(toolCallMessage(a.m, answer, calls, stepId));
    const results = await runTools(a, s, calls, stepId);
    if (results.some((r) => r === null)) return null;
    results.forEach((r, j) => c.messages.push(toolResultMessage(stepId, j, r!)));
    if (kind === 'main') addStep(s, startMs);
  }
  const startMs = nowMs();
  const answer = await call(a, s, c, kind);
  if (answer !== null && kind === 'main') addStep(s, startMs);
  return answer;
}

/**
 * Compaction: the model summarises the history; the conversation goes on from the system prompt, and the summary
 * opens the next user message. The summary, or null when its call failed.
 */
async function compact(a: Agent, s: SessionRun, c: Conversation): Promise<string | null> {
  c.messages.push({ role: 'user', content: s.text(`${s.key}.${s.turn}:compact`, a.m.userTokens) });
  const summary = await call(a, s, c, 'compact');
  if (summary === null) return null;
  c.freshTokens = c.last!.outputTokens;
  c.messages = [s.system];
  c.last = null;
  return summary;
}

/**
 * A session's phase: measured when it ran every turn and ended within the hold, whenever it began (sessions last
 * longer than a short hold, and one begun in the warm-up ran most of its time under the step's load); warm-up when it
 * ended before the hold, else transition (cut by the hold's end, or ended by a failed call).
 */
export function sessionPhase(completed: boolean, endMs: number, w: Window): string {
  if (endMs < w.startMs) return 'warmup';
  return completed && endMs <= w.endMs ? 'measured' : 'transition';
}

/** One session, drawn then run; its time, tokens and model share pushed when it ends. */
async function runSession(a: Agent, s: SessionRun, random: () => number): Promise<void> {
  const plan = planSession(a.m, random);
  const startMs = nowMs();
  const c: Conversation = { messages: [s.system], last: null, freshTokens: 0 };
  let completed = true;
  for (const [t, turn] of plan.turns.entries()) {
    s.turn = t + 1;
    // The words of a summary and of a message begin with a space each: joined, their tokens add up.
    const summary = needsCompaction(a.m, c.last) ? await compact(a, s, c) : '';
    if (summary === null) {
      completed = false;
      break;
    }
    c.messages.push({ role: 'user', content: summary + s.text(`${s.key}.${t}:user`, a.m.userTokens) });
    if (c.last === null) c.freshTokens = (summary ? c.freshTokens : 0) + a.m.userTokens;
    const answer = await runLoop(a, s, c, turn.loop, 'main', `${s.key}.${t}`);
    if (answer === null) {
      completed = false;
      break;
    }
    c.messages.push({ role: 'assistant', content: answer });
    if (t < plan.turns.length - 1) await pause(Math.min(turn.thinkMs, s.window.endMs - nowMs()));
  }
  pushSession(startMs, nowMs(), s, completed);
}

export interface AgentUser {
  /** This VU's agent for the whole of its step, arriving at its place on the ramp. */
  runStep(cell: Cell, runNonce: number): Promise<void>;
}

/** A step's timing: when its slot starts, its ramp, and its measured window (ms on k6's clock). */
export function stepTiming(
  cell: Cell, cfg: NonNullable<Plan['agentic']>,
): { startMs: number; rampMs: number; window: Window } {
  const startMs = cell.startSeconds * 1000;
  const rampMs = cfg.rampSeconds * 1000;
  const windowStart = startMs + rampMs + cfg.warmupSeconds * 1000;
  return { startMs, rampMs, window: { startMs: windowStart, endMs: windowStart + cfg.holdSeconds * 1000 } };
}

/** Pushes a session's time, tokens and model share, when it made a call. */
export function pushSession(
  startMs: number, endMs: number, s: Pick<SessionRun, 'spans' | 'tokens' | 'calls' | 'window'>, completed: boolean,
): void {
  if (s.calls === 0) return;
  const tags = { [SAMPLE_TAGS.phase]: sessionPhase(completed, endMs, s.window) };
  agentMetrics.sessionTime.add(endMs - startMs, tags);
  agentMetrics.sessionTokens.add(s.tokens, tags);
  if (endMs > startMs) agentMetrics.modelShare.add(spanUnionMs(s.spans) / (endMs - startMs), tags);
}

export function agentUser(deps: AgentDeps): AgentUser {
  const cfg = deps.plan.agentic!;
  const m = cfg.model as AgentModel;
  return {
    async runStep(cell, runNonce) {
      const n = cell.concurrency;
      const place = exec.scenario.iterationInTest;
      const { startMs, rampMs, window } = stepTiming(cell, cfg);
      const text = agentText(createBlockPrompter, deps.vocabulary, cellSalt(runNonce, cell.id));
      const shared = { cell, text, tools: toolCatalog(m, text), system: systemMessage(m, text), window };
      // Seeded by the plan and the agent's place in the step, so a rerun draws the same sessions.
      const random = mulberry32((cfg.seed ^ Math.imul(place + 1, 0x9e3779b1)) >>> 0);
      // The cell's very first call finds nothing cached, not even the shared prefix (lib/agentic.ts).
      const agent: Agent = { deps, m, cold: place === 0 };
      await pause(startMs + (rampMs * place) / n - nowMs());
      for (let session = 0; nowMs() < window.endMs; session++) {
        const run = { ...shared, key: `${place}.${session}`, spans: [], tokens: 0, calls: 0, turn: 0 };
        await runSession(agent, run, random);
      }
    },
  };
}
