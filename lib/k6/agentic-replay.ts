// The agentic script's replay of a recorded agent trace: each agent runs whole recorded sessions back to back, each
// call of its recorded prompt and output lengths and blocks, after the gap the recording left. Runs in k6 (bundled).
//
// Agent p of a step of N runs sessions p, p + N, p + 2N, ... in the trace's order; past the last it starts over with
// new text (another salt), so a replayed session never finds its own earlier pass cached. Calls and sessions are
// tagged and measured as the generator's are (lib/k6/agentic.ts), so the per-agent figures and SLO tiers follow.

import exec from 'k6/execution';
import { SharedArray } from 'k6/data';
import { contextClass } from '../agentic';
import { loadAgentTrace, type AgentTraceCall, type AgentTraceSession } from '../agent-trace';
import { cellSalt, createBlockPrompter, type BlockPrompter } from '../block-prompt';
import { SAMPLE_TAGS } from '../metrics';
import type { Cell } from '../plan';
import { buildStreamingRequest } from '../request';
import { turnPhase, turnTag, type Window } from '../sessions';
import type { Span } from '../span-union';
import { nowMs, pause } from './clock';
import { sendRequest } from './llm-request';
import { agentMetrics, pushSession, stepTiming, type AgentDeps, type AgentUser } from './agentic';

/** What one replayed session's calls share. */
interface ReplayRun {
  readonly cell: Pick<Cell, 'id'>;
  readonly salt: number;
  readonly window: Window;
  spans: Span[];
  tokens: number;
  calls: number;
}

/** One recorded call; its end time, or null when it failed or the hold is over. */
async function replayCall(
  deps: AgentDeps, prompter: BlockPrompter, r: ReplayRun, call: AgentTraceCall, turn: number,
): Promise<number | null> {
  if (nowMs() >= r.window.endMs) return null;
  const { keys, blockTokens, inputTokens, outputTokens } = call;
  const prompt = prompter({ keys, blockTokens, inputTokens, salt: r.salt, uniqueId: call.traceIndex });
  const spec = buildStreamingRequest(deps.plan.target, { prompt, maxTokens: outputTokens }, deps.apiKey);
  const lengths = { requestedInputTokens: inputTokens, requestedOutputTokens: outputTokens };
  const sent = await sendRequest(spec, lengths, deps.plan.target, {}, true, null);
  const rec = sent.record;
  const phase = turnPhase(rec.startMs, rec.endMs, r.window);
  sent.pushMetrics({
    [SAMPLE_TAGS.phase]: phase, [SAMPLE_TAGS.turn]: turnTag(turn), [SAMPLE_TAGS.agentCall]: 'main',
    [SAMPLE_TAGS.contextClass]: contextClass(rec.outcome === 'completed' ? rec.inputTokens : inputTokens),
  });
  r.spans.push([rec.startMs, rec.endMs]);
  r.calls++;
  if (rec.outcome !== 'completed') return null;
  agentMetrics.ideal.add(call.idealCachedTokens, { [SAMPLE_TAGS.phase]: phase });
  r.tokens += rec.inputTokens + rec.outputTokens;
  return nowMs();
}

/** A session's calls in order, each after its recorded gap; its metrics pushed when it ends. */
async function replaySession(
  deps: AgentDeps, prompter: BlockPrompter, r: ReplayRun, session: AgentTraceSession,
): Promise<void> {
  const startMs = nowMs();
  let completed = true;
  let stepStart = startMs;
  let lastStart = startMs;
  for (const [i, call] of session.calls.entries()) {
    if (i > 0) {
      // The recorded gap from the last answer, or from the last send (the call still waits for its answer).
      const due = call.gapFrom === 'end' ? nowMs() + call.gapMs : Math.max(nowMs(), lastStart + call.gapMs);
      await pause(Math.min(due, r.window.endMs) - nowMs());
      // A step: a call and the tools and thinking after it, up to when the next call goes.
      agentMetrics.step.add(nowMs() - stepStart, { [SAMPLE_TAGS.phase]: turnPhase(stepStart, nowMs(), r.window) });
    }
    stepStart = lastStart = nowMs();
    if ((await replayCall(deps, prompter, r, call, i + 1)) === null) {
      completed = false;
      break;
    }
  }
  if (completed)
    agentMetrics.step.add(nowMs() - stepStart, { [SAMPLE_TAGS.phase]: turnPhase(stepStart, nowMs(), r.window) });
  pushSession(startMs, nowMs(), r, completed);
}

/** The agent of a VU replaying the plan's agent trace; its sessions loaded once per k6 process. Init context only. */
export function replayAgentUser(deps: AgentDeps): AgentUser {
  const cfg = deps.plan.agentic!;
  const trace = cfg.trace!;
  const sessions = new SharedArray('agent-trace', () => [...loadAgentTrace(open(trace.file), trace).sessions]);
  let prompter: BlockPrompter | null = null;
  return {
    async runStep(cell, runNonce) {
      const n = cell.concurrency;
      const place = exec.scenario.iterationInTest;
      const { startMs, rampMs, window } = stepTiming(cell, cfg);
      // Built on the first step, not in init: its pool takes about 0.1 s, and every VU runs init.
      prompter ??= createBlockPrompter(deps.vocabulary);
      await pause(startMs + (rampMs * place) / n - nowMs());
      for (let k = 0; nowMs() < window.endMs; k++) {
        const index = place + k * n;
        const lap = Math.floor(index / sessions.length);
        const salt = cellSalt(runNonce, lap === 0 ? cell.id : `${cell.id}#${lap}`);
        const run: ReplayRun = { cell, salt, window, spans: [], tokens: 0, calls: 0 };
        await replaySession(deps, prompter, run, sessions[index % sessions.length]!);
      }
    },
  };
}
