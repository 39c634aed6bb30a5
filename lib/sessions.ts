// The arithmetic of a conversation: think-time draws, the next turn's messages and length, bounded tags. Runs in k6 and
// Node. Pure: the k6 side (lib/k6/sessions.ts) does the sending and the waiting.

import { standardNormal } from './random';
import type { ChatMessage } from './chat-template';
import type { ThinkTime } from '../thresholds/sessions';

/** The mean of a think-time distribution, seconds. */
export function thinkMeanSeconds(t: ThinkTime): number {
  switch (t.distribution) {
    case 'constant':
      return t.seconds;
    case 'exponential':
      return t.meanSeconds;
    case 'uniform':
      return (t.minSeconds + t.maxSeconds) / 2;
    case 'lognormal':
      return t.medianSeconds * Math.exp((t.sigma * t.sigma) / 2);
  }
}

/** One think time drawn from its distribution, seconds; `random` gives uniform floats in [0, 1). */
export function drawThinkSeconds(t: ThinkTime, random: () => number): number {
  switch (t.distribution) {
    case 'constant':
      return t.seconds;
    case 'exponential':
      // Inverse CDF; 1 - u is in (0, 1], so the log is finite.
      return -t.meanSeconds * Math.log(1 - random());
    case 'uniform':
      return t.minSeconds + (t.maxSeconds - t.minSeconds) * random();
    case 'lognormal': {
      return t.medianSeconds * Math.exp(t.sigma * standardNormal(random));
    }
  }
}

/**
 * Turns up to this one get their own `turn` tag value; later ones share `${TURN_TAG_CAP}+`, so a long conversation
 * adds at most TURN_TAG_CAP series per cell and metric (tags become Prometheus labels).
 */
export const TURN_TAG_CAP = 16;
/** A user's sessions up to this one get their own `session` tag value; later ones share `${SESSION_TAG_CAP}+`. */
export const SESSION_TAG_CAP = 3;

/** The `turn` tag of a conversation's turn (1-based). */
export function turnTag(turn: number): string {
  return turn < TURN_TAG_CAP ? String(turn) : `${TURN_TAG_CAP}+`;
}

/** The `session` tag of a user's n-th conversation (1-based): the first shows the user's arrival. */
export function sessionTag(ordinal: number): string {
  return ordinal < SESSION_TAG_CAP ? String(ordinal) : `${SESSION_TAG_CAP}+`;
}

/** The turn number a `turn` tag stands for (the cap for the shared last value), for ordering. */
export function turnOfTag(tag: string): number {
  return Number.parseInt(tag, 10);
}

/** What a finished turn left for the next: its prompt and output lengths as the server counted them, and its text. */
export interface TurnOutcome {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly text: string;
}

/** The next turn's messages: the history, the model's answer as returned, and the new user message. */
export function nextTurnMessages(history: readonly ChatMessage[], answer: string, followUp: string): ChatMessage[] {
  return [...history, { role: 'assistant', content: answer }, { role: 'user', content: followUp }];
}

/**
 * The next turn's prompt length: the previous prompt and answer as the server counted them (usage), plus the new
 * message's growthTokens (the message and the chat template around it, prepared to that exact length). Exact where
 * the answer tokenizes in the history as it was generated, as the simulator's words do.
 */
export function nextTurnTokens(
  previous: Pick<TurnOutcome, 'inputTokens' | 'outputTokens'>, growthTokens: number,
): number {
  return previous.inputTokens + previous.outputTokens + growthTokens;
}

/** A plain-k6 step's measuring window on the run clock, ms: turns wholly inside it are measured. */
export interface Window {
  readonly startMs: number;
  readonly endMs: number;
}

/** The phase of a turn in a window: warm-up if it started before, transition if it ended after, else measured. */
export function turnPhase(startMs: number, endMs: number, w: Window): 'warmup' | 'measured' | 'transition' {
  if (startMs < w.startMs) return 'warmup';
  return endMs > w.endMs ? 'transition' : 'measured';
}

/** Users of a step that have arrived by `elapsedMs` since its start, with N arriving evenly over the ramp. */
export function usersArrived(users: number, rampMs: number, elapsedMs: number): number {
  if (rampMs <= 0) return users;
  return Math.max(0, Math.min(users, Math.floor((elapsedMs / rampMs) * users) + 1));
}
