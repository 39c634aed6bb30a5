// What sends a cell's requests, in either way a run goes (k6's time slots or bench-driven steps): streamed LLM
// requests through the agent, a trace's rows, embed batches, a sessions user's turns, an agent's sessions. Runs in k6
// (bundled).

import exec from 'k6/execution';
import { SharedArray } from 'k6/data';
import type { Cell, Plan, TraceConfig } from '../plan';
import { preparedLength, promptText, requestPrefix } from '../prompt-set';
import { buildStreamingRequest } from '../request';
import type { RequestRecord } from '../record';
import { SAMPLE_TAGS } from '../metrics';
import { cellSalt } from '../block-prompt';
import { loadReplay, replayScheduleMs, type ReplayRow } from '../trace-replay';
import { sendRequest, type SentRequest } from './llm-request';
import { runOpenLoop, type OpenLoopSchedule } from './open-loop';
import { loadPrompts, requestPrompt, type PromptStore, type RequestIds } from './prompt-store';
import { sessionUser, type SessionUser } from './sessions';
import { agentUser, type AgentUser } from './agentic';
import { replayAgentUser } from './agentic-replay';
import { sendEmbed, type EmbedResult } from './embed';

/** A cell as a request needs it. */
type RequestCell = Pick<Cell, 'id' | 'contextTokens' | 'outputTokens' | 'useCase'>;

/** Everything a k6 process needs to send the plan's requests, loaded once in init. */
export interface CellRequests {
  readonly plan: Plan;
  readonly prompts: PromptStore;
  /** The sessions script's user of this VU: conversations with think time (lib/k6/sessions.ts). */
  readonly sessions: SessionUser | null;
  /** The agentic script's agent of this VU: sessions of tool loops and sub-agents (lib/k6/agentic.ts). */
  readonly agent: AgentUser | null;
  /**
   * Builds one request of a cell and returns what sends it: an open-loop cell builds the next request (a long
   * prompt's body takes milliseconds) before its intended time comes. `phase` tags its llm_* samples, and null
   * defers them until the bench names it.
   */
  prepare(cell: RequestCell, ids: RequestIds, phase: string | null | undefined): () => Promise<SentRequest>;
  /** Says the first failure of each cell on the console (k6 prints it with the run). */
  warnFailure(cellId: string, record: RequestRecord): void;
  /** Replays the trace at a speed, open-loop. */
  replayTrace(cell: Cell, speed: number, runNonce: number): Promise<void>;
  /** One embed request of a cell: a batch of prepared prompts. */
  embed(cell: Cell, kind: 'embeddings' | 'rerank', runNonce: number): Promise<void>;
}

/** The replayed trace's rows, loaded once per k6 process (the plan already checked the file). */
function loadTraceRows(trace: TraceConfig | null): readonly ReplayRow[] {
  if (trace === null) return [];
  return new SharedArray('trace-rows', () => [...loadReplay(open(trace.file), trace).rows]);
}

/** A trace cell's schedule: the rows' times at its speed, each turn after the turn it follows. */
function traceSchedule(rows: readonly ReplayRow[], speed: number): OpenLoopSchedule {
  const atMs = replayScheduleMs(rows, speed);
  return { atMs, durationMs: Math.max(1, atMs[atMs.length - 1]!), after: (i) => rows[i]!.parent };
}

/** Loads the prompts (and the trace's rows) and returns what sends the plan's requests. Init context only. */
export function cellRequests(plan: Plan): CellRequests {
  const prompts = loadPrompts(plan);
  const traceRows = loadTraceRows(plan.trace);
  // The key is read from the environment only; it goes into a request header and nowhere else.
  const apiKey = __ENV.API_KEY || null;
  // EVENT_CALLBACK=1 hands every event to the script as well (bench/engine-overhead.ts prices that path).
  const eventCallback = __ENV.EVENT_CALLBACK === '1';
  // A cell of a use case (capacity steps, gate cells) has each request judged against its limits: goodput.
  const sloOf = new Map(plan.useCases.map((u) => [u.id, u.limits]));
  const warned = new Set<string>();
  const warnOnce = (cellId: string, message: string): void => {
    if (warned.has(cellId)) return;
    warned.add(cellId);
    console.warn(`${cellId}: ${message}`);
  };
  const sessions = plan.sessions
    ? sessionUser({
        plan, apiKey, firstPrompt: (n) => prompts.get(n), followUp: (n) => prompts.followUp(n),
        slo: (useCase) => sloOf.get(useCase) ?? null,
      })
    : null;
  const agentDeps = { plan, apiKey, vocabulary: prompts.vocabulary! };
  const agent = plan.agentic ? (plan.agentic.trace ? replayAgentUser(agentDeps) : agentUser(agentDeps)) : null;
  const requests: CellRequests = {
    plan, prompts, sessions, agent,
    prepare(cell, ids, phase) {
      const prompt = prompts.get(cell.contextTokens);
      const spec = buildStreamingRequest(
        plan.target, { prompt: requestPrompt(plan, prompts, cell, ids), maxTokens: cell.outputTokens }, apiKey,
      );
      const tags: Record<string, string> = phase ? { [SAMPLE_TAGS.phase]: phase } : {};
      const lengths = { requestedInputTokens: preparedLength(prompt), requestedOutputTokens: cell.outputTokens };
      const slo = cell.useCase ? (sloOf.get(cell.useCase) ?? null) : null;
      return () => sendRequest(spec, lengths, plan.target, tags, phase === null, slo, eventCallback);
    },
    warnFailure(cellId, record) {
      // The message is already redacted and cut to one line by the agent.
      if (record.outcome !== 'errored') return;
      warnOnce(cellId, `request failed (${record.errorKind}): ${record.errorMessage}`);
    },
    replayTrace(cell, speed, runNonce) {
      // Each row's prompt of its exact length from its blocks, salted per cell and run (a cell's prefix-cache hits
      // are its own), its output length forced.
      const salt = cellSalt(runNonce, cell.id);
      const slo = sloOf.get(cell.useCase!) ?? null;
      return runOpenLoop(traceSchedule(traceRows, speed), (i) => {
        const row = traceRows[i]!;
        const { keys, blockTokens, inputTokens } = row;
        const prompt = prompts.blockPrompt!({ keys, blockTokens, inputTokens, salt, uniqueId: row.traceIndex });
        const spec = buildStreamingRequest(plan.target, { prompt, maxTokens: row.outputTokens }, apiKey);
        const lengths = { requestedInputTokens: row.inputTokens, requestedOutputTokens: row.outputTokens };
        return () => sendRequest(spec, lengths, plan.target, {}, false, slo, eventCallback).then((sent) => {
          requests.warnFailure(cell.id, sent.record);
          return sent;
        });
      });
    },
    async embed(cell, kind, runNonce) {
      // Each input behind its own prefix line (this user's iteration times the batch, plus its place), so no cache
      // serves one input from another's work.
      const prompt = prompts.get(cell.contextTokens);
      const batch = cell.batch ?? 1;
      const { idInTest: vu, iterationInInstance: iteration } = exec.vu;
      const inputs = Array.from({ length: batch }, (_, i) =>
        promptText(prompt, requestPrefix(plan.prompts.mode, runNonce, vu, iteration * batch + i)));
      const result: EmbedResult = await sendEmbed({
        kind, target: plan.target, apiKey, inputs, requestedTokens: preparedLength(prompt) * batch,
      });
      if (!result.ok) warnOnce(cell.id, `request failed (${result.errorKind}): ${result.message}`);
    },
  };
  return requests;
}
