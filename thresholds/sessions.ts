// How people use each use case over time: conversations of several turns with think time between them.
// Runs in k6 and Node.
//
// The `sessions` script sends each use case's turns as a user would: the whole history plus a new message, then a
// pause. These are the defaults a plan overrides per use case (plan field sessions.models); docs/guides/sessions.md
// gives the why.

import type { UseCase } from './use-cases';

/** How long a user pauses after a turn before the next (reading, thinking, typing, or a tool running), in seconds. */
export type ThinkTime =
  | { readonly distribution: 'constant'; readonly seconds: number }
  | { readonly distribution: 'exponential'; readonly meanSeconds: number }
  | { readonly distribution: 'uniform'; readonly minSeconds: number; readonly maxSeconds: number }
  /** exp(N(ln median, sigma^2)): heavy-tailed, as measured pauses of people are. */
  | { readonly distribution: 'lognormal'; readonly medianSeconds: number; readonly sigma: number };

export const THINK_DISTRIBUTIONS = ['constant', 'exponential', 'uniform', 'lognormal'] as const;

/** One conversation: turn 1 sends firstTurnTokens; every later turn sends the history plus growthTokens more. */
export interface SessionModel {
  /** Turns of one conversation; a user starts a new one after the last. */
  readonly turns: number;
  /** Prompt tokens of the first turn (system prompt, documents, first question; chat template included). */
  readonly firstTurnTokens: number;
  /**
   * Tokens each later turn adds besides the previous answer: the new user message with the chat template around it
   * (a question, typed code, a tool's result). Turn t sends about firstTurnTokens + (t - 1) x (growth + output).
   */
  readonly growthTokens: number;
  /** max_tokens of every turn (forced with ignore_eos, as the other scripts force theirs). */
  readonly outputTokens: number;
  readonly thinkTime: ThinkTime;
}

const exponential = (meanSeconds: number): ThinkTime => ({ distribution: 'exponential', meanSeconds });

/**
 * The built-in use cases' conversations. Code completion: a developer types for a few seconds between completions
 * of the same file, which grows by what was typed and accepted. Chats: a reply of 1024 tokens takes tens of seconds
 * to read before the next question. Long documents: fewer, slower follow-ups on one document. Agentic coding: the
 * agent's next call waits only for a tool to run (about a second) and adds its output to the context.
 * Exponential pauses: arrivals of many independent users, the usual model of think time.
 */
export const SESSION_DEFAULTS: Readonly<Record<string, SessionModel>> = {
  code_completion: {
    turns: 10, firstTurnTokens: 1024, growthTokens: 64, outputTokens: 128, thinkTime: exponential(4),
  },
  short_chatbot: {
    turns: 6, firstTurnTokens: 8192, growthTokens: 128, outputTokens: 1024, thinkTime: exponential(20),
  },
  general_chatbot: {
    turns: 6, firstTurnTokens: 32_768, growthTokens: 256, outputTokens: 1024, thinkTime: exponential(30),
  },
  long_document: {
    turns: 3, firstTurnTokens: 65_536, growthTokens: 128, outputTokens: 1024, thinkTime: exponential(45),
  },
  coding_assistant: {
    turns: 10, firstTurnTokens: 98_304, growthTokens: 1024, outputTokens: 1024, thinkTime: exponential(1),
  },
};

/** The conversation of a use case: its built-in one, else four turns on its own lengths with 10 s pauses. */
export function defaultSession(useCase: Pick<UseCase, 'id' | 'contextTokens' | 'outputTokens'>): SessionModel {
  return (
    SESSION_DEFAULTS[useCase.id] ?? {
      turns: 4, firstTurnTokens: useCase.contextTokens, growthTokens: 256, outputTokens: useCase.outputTokens,
      thinkTime: exponential(10),
    }
  );
}
