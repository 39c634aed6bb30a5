// The sessions script's users: conversations of several turns with think time between them. Runs in k6 (bundled).
//
// Each VU is one user. A turn sends the whole history (the model's answers as returned, the agent's keepText) plus a
// new message, tagged with its turn and the user's session; then the user thinks. A failed turn ends its conversation:
// the next turn starts a new one. Under plain `k6 run` a VU holds its step's window itself (runStep); when the bench
// drives, every turn is a ticket and the bench decides the phase (turn, think).

import exec from 'k6/execution';
import { Gauge } from 'k6/metrics';
import type { ChatMessage } from '../chat-template';
import { SAMPLE_TAGS, SESSION_METRICS } from '../metrics';
import type { Cell, Plan } from '../plan';
import type { PreparedPrompt } from '../prompt-set';
import { requestPrefix } from '../prompt-text';
import { mulberry32 } from '../random';
import { buildStreamingRequest } from '../request';
import {
  drawThinkSeconds, nextTurnMessages, nextTurnTokens, sessionTag, turnPhase, turnTag, usersArrived, type TurnOutcome,
} from '../sessions';
import type { SessionModel } from '../../thresholds/sessions';
import type { UseCaseLimit } from '../../thresholds/use-cases';
import { nowMs, pause } from './clock';
import { sendRequest, type SentRequest } from './llm-request';

/** Created in the init context, as k6 requires. */
const activeUsers = new Gauge(SESSION_METRICS.activeUsers.name);

export interface SessionDeps {
  readonly plan: Plan;
  /** The prepared first-turn prompt of a length, and the follow-up message of a length. */
  firstPrompt(contextTokens: number): PreparedPrompt;
  followUp(tokens: number): PreparedPrompt;
  readonly apiKey: string | null;
  /** A use case's limits, for goodput. */
  slo(useCase: string): readonly UseCaseLimit[] | null;
}

type SessionCell = Pick<Cell, 'id' | 'contextTokens' | 'outputTokens' | 'concurrency' | 'useCase'>;

/** One user's conversation in progress. */
interface Conversation {
  readonly useCase: string;
  readonly model: SessionModel;
  /** The user's n-th conversation (1-based), for the session tag. */
  readonly ordinal: number;
  /** Turns sent so far. */
  turns: number;
  messages: ChatMessage[];
  /** What the last turn left, or null before the first and after a failure (which ends the conversation). */
  last: { readonly outcome: TurnOutcome } | null;
}

export interface SessionUser {
  /** Plain k6: this VU's user for the whole of its step (one iteration), arriving at its place on the ramp. */
  runStep(cell: Cell, runNonce: number): Promise<void>;
  /** Bench-driven: one turn of the ticket's cell, its llm_* samples deferred; a joined user first arrives. */
  turn(cell: SessionCell, joined: boolean, runNonce: number): Promise<SentRequest>;
  /** Bench-driven: the pause after a turn. */
  think(): Promise<void>;
}

/** The user of this VU. Its think times come from its own seeded draws, so a rerun of a plan pauses alike. */
export function sessionUser(deps: SessionDeps): SessionUser {
  const sessions = deps.plan.sessions!;
  let conversation: Conversation | null = null;
  let started = 0;
  let draws: (() => number) | null = null;
  const rng = (): number => (draws ??= mulberry32((exec.vu.idInTest * 7919) ^ 0x5e55))();
  const modelOf = (useCase: string): SessionModel => sessions.models[useCase]!;

  const begin = (cell: SessionCell, runNonce: number): Conversation => {
    const model = modelOf(cell.useCase!);
    started++;
    // Unique per user and conversation in its first block, so no conversation hits another's cache (prompts.mode
    // unique).
    const prefix = requestPrefix(deps.plan.prompts.mode, runNonce, exec.vu.idInTest, started);
    const first: ChatMessage = { role: 'user', content: prefix + deps.firstPrompt(model.firstTurnTokens).body };
    return { useCase: cell.useCase!, model, ordinal: started, turns: 0, messages: [first], last: null };
  };

  const send = async (cell: SessionCell, runNonce: number): Promise<SentRequest> => {
    let c = conversation;
    if (!c || c.useCase !== cell.useCase || c.turns >= c.model.turns || (c.turns > 0 && c.last === null)) {
      c = begin(cell, runNonce);
    }
    conversation = c;
    let requested = c.model.firstTurnTokens;
    if (c.last) {
      const growth = c.model.growthTokens;
      c.messages = nextTurnMessages(c.messages, c.last.outcome.text, deps.followUp(growth).body);
      requested = nextTurnTokens(c.last.outcome, growth);
    }
    const messages = c.messages;
    const spec = buildStreamingRequest(
      deps.plan.target, { prompt: '', maxTokens: c.model.outputTokens, messages }, deps.apiKey,
    );
    const tags = { [SAMPLE_TAGS.turn]: turnTag(c.turns + 1), [SAMPLE_TAGS.session]: sessionTag(c.ordinal) };
    const sent = await sendRequest(
      spec, { requestedInputTokens: requested, requestedOutputTokens: c.model.outputTokens }, deps.plan.target,
      tags, true, deps.slo(c.useCase), false, true,
    );
    c.turns++;
    const r = sent.record;
    c.last = r.outcome === 'completed'
      ? { outcome: { inputTokens: r.inputTokens, outputTokens: r.outputTokens, text: sent.text ?? '' } }
      : null;
    return sent;
  };

  const thinkMs = (): number => 1000 * drawThinkSeconds(modelOf(conversation!.useCase).thinkTime, rng);

  return {
    async runStep(cell, runNonce) {
      const n = cell.concurrency;
      const startMs = cell.startSeconds * 1000;
      const rampMs = sessions.rampSeconds * 1000;
      const windowStart = startMs + rampMs + sessions.warmupSeconds * 1000;
      const window = { startMs: windowStart, endMs: windowStart + sessions.holdSeconds * 1000 };
      // Users arrive evenly over the ramp, in the order k6 starts their iterations.
      await pause(startMs + (rampMs * exec.scenario.iterationInTest) / n - nowMs());
      while (nowMs() < window.endMs) {
        activeUsers.add(usersArrived(n, rampMs, nowMs() - startMs));
        const sent = await send(cell, runNonce);
        sent.pushMetrics({ [SAMPLE_TAGS.phase]: turnPhase(sent.record.startMs, sent.record.endMs, window) });
        await pause(Math.min(thinkMs(), window.endMs - nowMs()));
      }
    },
    async turn(cell, joined, runNonce) {
      if (joined) {
        // A new user arrives at a random point of a think time, as users in service are spread over theirs.
        conversation = begin(cell, runNonce);
        await pause(rng() * thinkMs());
      }
      activeUsers.add(cell.concurrency);
      return send(cell, runNonce);
    },
    think: () => pause(thinkMs()),
  };
}
