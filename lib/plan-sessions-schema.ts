// The plan's sessions section: conversations per use case, the plain-k6 ladder and timing, the search. Runs in k6 and
// Node. Field schemas of the input (every field optional) and of the resolved plan, for lib/plan-schema.ts.

import * as v from 'valibot';
import { THINK_DISTRIBUTIONS } from '../thresholds/sessions';
import { PLAN_DEFAULTS as D } from './plan-defaults';
import { orDefault, usersOrByUseCase } from './plan-fields';
import { int, intList, list, num, object, plainObject, record, strictObject, text } from './schema';

const opt = v.optional;
const dayOfSeconds = 86_400;
const hourOfSeconds = 3600;

/** A think time: the distribution's name and its parameters, in seconds (the agentic section's tool times too). */
export function thinkTimeSchema() {
  const seconds = num(0, hourOfSeconds);
  return v.pipe(
    plainObject,
    v.variant(
      'distribution',
      [
        strictObject({ distribution: v.literal('constant'), seconds }),
        strictObject({ distribution: v.literal('exponential'), meanSeconds: seconds }),
        strictObject({ distribution: v.literal('uniform'), minSeconds: seconds, maxSeconds: seconds }),
        strictObject({ distribution: v.literal('lognormal'), medianSeconds: seconds, sigma: num(0, 5) }),
      ],
      (issue) => `is ${JSON.stringify(issue.input)}, not one of: ${THINK_DISTRIBUTIONS.join(', ')}`,
    ),
    v.check((t) => t.distribution !== 'uniform' || t.maxSeconds >= t.minSeconds, 'must have maxSeconds >= minSeconds'),
  );
}

/** The sessions section's schemas; built on first use, not at load (see planInputSchema in lib/plan-schema.ts). */
function buildSessionsSchemas() {
  const thinkTime = thinkTimeSchema();
  const model = {
    turns: int(1, 1000),
    firstTurnTokens: int(1, 10_000_000),
    growthTokens: int(1, 10_000_000),
    outputTokens: int(1, 1_000_000),
    thinkTime,
  };

  /** A use case's conversation in the resolved plan: every field. */
  const sessionModel = object(model);

  /** What a plan may say of a use case's conversation: any of its fields, the rest from thresholds/sessions.ts. */
  const modelOverrides = object({
    turns: opt(model.turns), firstTurnTokens: opt(model.firstTurnTokens), growthTokens: opt(model.growthTokens),
    outputTokens: opt(model.outputTokens), thinkTime: opt(model.thinkTime),
  });

  /**
   * How a plain `k6 run` holds each step (the bench searches instead): arrivals over a ramp, a warm-up, then measured.
   */
  const timing = {
    /** Users of a step arrive evenly over this many seconds. */
    rampSeconds: num(0, dayOfSeconds),
    /** After the ramp, turns that start within this many seconds are warm-up (tag phase=warmup). */
    warmupSeconds: num(0, dayOfSeconds),
    /** Then turns that start and end within this many seconds are measured; none starts after. */
    holdSeconds: num(1, dayOfSeconds),
  };

  const users = int(1, 4096);
  const S = D.sessions;

  /** The sessions section a user writes; the search fields mean what the capacity section's do, counted in turns. */
  const sessionsInput = orDefault(
    object({
      useCases: opt(list(text)),
      models: orDefault(record(modelOverrides), {}),
      /** The plain-k6 ladder of active users per use case. */
      users: orDefault(record(intList(1, 4096)), {}),
      rampSeconds: orDefault(timing.rampSeconds, S.rampSeconds),
      warmupSeconds: orDefault(timing.warmupSeconds, S.warmupSeconds),
      holdSeconds: orDefault(timing.holdSeconds, S.holdSeconds),
      rounds: orDefault(int(1, 10_000), S.rounds),
      warmupRequests: orDefault(int(0, 100), S.warmupRequests),
      minMeasuredSeconds: orDefault(num(0, dayOfSeconds), S.minMeasuredSeconds),
      startUsers: orDefault(users, S.startUsers),
      maxUsers: orDefault(usersOrByUseCase(users), S.maxUsers),
      exactBelow: orDefault(users, S.exactBelow),
      resolutionPercent: orDefault(num(0.1, 100), S.resolutionPercent),
    }),
    {},
  );

  /** The resolved plan's sessions: each measured use case's conversation, and how plain k6 holds a step. */
  const resolvedSessions = object({ models: record(sessionModel), ...timing });
  return { sessionModel, sessionsInput, resolvedSessions };
}

let built: ReturnType<typeof buildSessionsSchemas> | null = null;

/** The sessions section's schemas, built once per JavaScript runtime. */
export function sessionsSchemas(): ReturnType<typeof buildSessionsSchemas> {
  if (built === null) built = buildSessionsSchemas();
  return built;
}
