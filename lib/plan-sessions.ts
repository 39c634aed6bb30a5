// Resolves a plan's sessions section: each use case's conversation, its cells (steps of active users) and their slots.
// Runs in k6 and Node.
//
// A sessions cell is one step of N active users of a use case, each running conversations back to back. Under plain
// `k6 run` a step is one scenario of N VUs, one iteration each, held for rampSeconds + warmupSeconds + holdSeconds;
// under `npm run bench` the bench searches the steps instead (orchestrator/capacity-search.ts).

import type * as v from 'valibot';
import { defaultSession, type SessionModel } from '../thresholds/sessions';
import type { UseCase } from '../thresholds/use-cases';
import { PLAN_DEFAULTS } from './plan-defaults';
import type { ParsedPlanInput } from './plan-schema';
import type { sessionsSchemas } from './plan-sessions-schema';
import { thinkMeanSeconds } from './sessions';

/** The sessions of a resolved plan (plan.json's `sessions`). */
export type SessionsConfig = v.InferOutput<ReturnType<typeof sessionsSchemas>['resolvedSessions']>;

type Input = ParsedPlanInput['sessions'];

/** The use cases a sessions part measures, in order: the section's list, else every use case of the plan. */
export function sessionUseCases(input: Input, useCases: readonly UseCase[]): UseCase[] {
  const ids = input.useCases ?? useCases.map((u) => u.id);
  return ids.map((id) => useCases.find((u) => u.id === id)!);
}

/**
 * Each measured use case's conversation (defaults of thresholds/sessions.ts with the plan's overrides) and the timing.
 */
export function resolveSessions(input: Input, useCases: readonly UseCase[]): SessionsConfig {
  const models: Record<string, SessionModel> = {};
  for (const u of sessionUseCases(input, useCases)) {
    const own = input.models[u.id] ?? {};
    const base = defaultSession(u);
    models[u.id] = {
      turns: own.turns ?? base.turns,
      firstTurnTokens: own.firstTurnTokens ?? base.firstTurnTokens,
      growthTokens: own.growthTokens ?? base.growthTokens,
      outputTokens: own.outputTokens ?? base.outputTokens,
      thinkTime: own.thinkTime ?? base.thinkTime,
    };
  }
  return { models, rampSeconds: input.rampSeconds, warmupSeconds: input.warmupSeconds, holdSeconds: input.holdSeconds };
}

/** The bench's search over active users: the capacity search's settings, from the sessions section. */
export function sessionSearchConfig(input: Input, useCases: readonly UseCase[]) {
  const maxUsers = Object.fromEntries(sessionUseCases(input, useCases).map((u) => [
    u.id,
    typeof input.maxUsers === 'number' ? input.maxUsers : (input.maxUsers[u.id] ?? PLAN_DEFAULTS.sessions.maxUsers),
  ]));
  return {
    warmupRequests: input.warmupRequests, minRequestsPerUser: input.rounds,
    minMeasuredSeconds: input.minMeasuredSeconds, startUsers: input.startUsers, maxUsers,
    exactBelow: input.exactBelow, resolutionPercent: input.resolutionPercent,
    // Unclear steps are measured again as in the capacity search (plan capacity.maxRepeats' default).
    maxRepeats: PLAN_DEFAULTS.capacity.maxRepeats,
  };
}

/** Prompt tokens of a conversation's last turn: the first turn's, plus (growth + output) per turn after it. */
export function lastTurnTokens(m: SessionModel): number {
  return m.firstTurnTokens + (m.turns - 1) * (m.growthTokens + m.outputTokens);
}

/** A sessions cell before its slot: one step of `users` active users of a use case. */
export interface SessionCellDraft {
  readonly id: string;
  readonly script: 'sessions';
  readonly contextTokens: number;
  readonly outputTokens: number;
  readonly concurrency: number;
  readonly rounds: number;
  readonly useCase: string;
  readonly profile: null;
}

/** The cell of `users` active users of a use case: its id and lengths (turn 1's prompt, every turn's output). */
export function sessionCell(useCase: string, model: SessionModel, users: number): SessionCellDraft {
  return {
    id: `sessions_${useCase}_n${users}`, script: 'sessions', contextTokens: model.firstTurnTokens,
    outputTokens: model.outputTokens, concurrency: users, rounds: 1, useCase, profile: null,
  };
}

/** The plain-k6 ladder: per measured use case, its steps of active users. */
export function sessionDrafts(input: Input, sessions: SessionsConfig): SessionCellDraft[] {
  return Object.entries(sessions.models).flatMap(([id, model]) =>
    (input.users[id] ?? PLAN_DEFAULTS.sessionUsers).map((users) => sessionCell(id, model, users)));
}

/**
 * The slots of sessions cells under plain k6: each holds ramp + warm-up + hold, and its users' last turns may end
 * within the graceful stop: one request of the conversation's last turn at the users' expected concurrency (N users
 * each in a request for r of every r + think seconds), times the safety factor.
 */
export function sessionSlot(
  draft: SessionCellDraft, sessions: SessionsConfig,
  requestSeconds: (context: number, output: number, concurrency: number) => number, safetyFactor: number,
): { maxDurationSeconds: number; gracefulStopSeconds: number } {
  const model = sessions.models[draft.useCase]!;
  const context = lastTurnTokens(model);
  const alone = requestSeconds(context, model.outputTokens, 1);
  const inFlight = Math.max(1, Math.ceil((draft.concurrency * alone) / (alone + thinkMeanSeconds(model.thinkTime))));
  return {
    maxDurationSeconds: sessions.rampSeconds + sessions.warmupSeconds + sessions.holdSeconds,
    gracefulStopSeconds: Math.max(1, Math.ceil(requestSeconds(context, model.outputTokens, inFlight) * safetyFactor)),
  };
}
