// The plan's sessions section: defaults per use case, overrides, the plain-k6 steps and slots, errors. Runs in Node
// (vitest).
import { describe, expect, it } from 'vitest';
import { PlanError, readResolvedPlan, resolvePlan } from '../../lib/plan';
import { lastTurnTokens } from '../../lib/plan-sessions';
import { SESSION_DEFAULTS } from '../../thresholds/sessions';

function planError(raw: unknown): string {
  try {
    resolvePlan(raw, 'sessions');
  } catch (e) {
    expect(e).toBeInstanceOf(PlanError);
    return (e as Error).message;
  }
  throw new Error('no error');
}

describe('sessions plans: defaults, overrides and custom use cases', () => {
  it('default: every use case with its own conversation, a ladder of 1..64 active users, ' +
    '10 + 10 + 60 s per step', () => {
    const plan = resolvePlan({}, 'sessions');
    expect(plan.sessions!.models).toEqual(SESSION_DEFAULTS);
    expect(plan.sessions).toMatchObject({ rampSeconds: 10, warmupSeconds: 10, holdSeconds: 60 });
    expect(plan.cells.filter((c) => c.useCase === 'code_completion').map((c) => [c.id, c.concurrency])).toEqual(
      [1, 2, 4, 8, 16, 32, 64].map((n) => [`sessions_code_completion_n${n}`, n]),
    );
    const chat = plan.cells.find((c) => c.id === 'sessions_general_chatbot_n8')!;
    expect(chat).toMatchObject({
      script: 'sessions', contextTokens: 32_768, outputTokens: 1024, rounds: 1, warmupRounds: 0,
    });
    expect(chat.maxDurationSeconds).toBe(80);
    expect(plan.search).toMatchObject({ warmupRequests: 1, minRequestsPerUser: 2, startUsers: 1, exactBelow: 16 });
    expect(plan.search!.maxUsers).toEqual(Object.fromEntries(Object.keys(SESSION_DEFAULTS).map((id) => [id, 256])));
  });

  it('takes a use case list, overrides of any conversation field, ladders, timing and search fields', () => {
    const plan = resolvePlan(
      {
        sessions: {
          useCases: ['code_completion'], users: { code_completion: [3, 6] }, rampSeconds: 2, warmupSeconds: 0,
          holdSeconds: 5,
          models: { code_completion: { turns: 1, thinkTime: { distribution: 'constant', seconds: 0 } } },
          rounds: 3, maxUsers: { code_completion: 40 },
        },
      },
      'sessions',
    );
    expect(plan.sessions!.models).toEqual({
      code_completion: {
        ...SESSION_DEFAULTS.code_completion, turns: 1, thinkTime: { distribution: 'constant', seconds: 0 },
      },
    });
    expect(plan.cells.map((c) => c.id)).toEqual(['sessions_code_completion_n3', 'sessions_code_completion_n6']);
    expect(plan.cells.map((c) => c.maxDurationSeconds)).toEqual([7, 7]);
    // Back to back: each step after the previous one's slot, graceful stop and gap.
    const [a, b] = plan.cells;
    expect(b!.startSeconds).toBe(
      a!.startSeconds + a!.maxDurationSeconds + a!.gracefulStopSeconds + plan.schedule.gapSeconds,
    );
    expect(plan.search).toMatchObject({ minRequestsPerUser: 3, maxUsers: { code_completion: 40 } });
  });

  it('reads a custom use case a conversation of four turns on its own lengths', () => {
    const useCases = [{
      id: 'tiny', contextTokens: 2000, outputTokens: 50, limits: [{ metric: 'ttft', operator: '<', value: 1000 }],
    }];
    const plan = resolvePlan({ useCases }, 'sessions');
    expect(plan.sessions!.models.tiny).toEqual({
      turns: 4, firstTurnTokens: 2000, growthTokens: 256, outputTokens: 50,
      thinkTime: { distribution: 'exponential', meanSeconds: 10 },
    });
    expect(lastTurnTokens(plan.sessions!.models.tiny!)).toBe(2000 + 3 * (256 + 50));
  });
});

describe('sessions plans: read back from plan.json, and errors', () => {
  it('reads back from plan.json, and a plan.json from before sessions has none', () => {
    const plan = resolvePlan({ sessions: { useCases: ['long_document'] } }, 'sessions');
    expect(readResolvedPlan(JSON.parse(JSON.stringify(plan)))).toEqual(plan);
    const old = JSON.parse(JSON.stringify(resolvePlan({}, 'sweep'))) as Record<string, unknown>;
    delete old.sessions;
    expect(readResolvedPlan(old).sessions).toBeNull();
  });

  it('says which field is wrong, in one line', () => {
    const think = (t: unknown) => planError({ sessions: { models: { code_completion: { thinkTime: t } } } });
    expect(think({ distribution: 'gaussian', meanSeconds: 1 })).toBe(
      'plan field "sessions.models.code_completion.thinkTime.distribution" is "gaussian", ' +
      'not one of: constant, exponential, uniform, lognormal',
    );
    expect(think({ distribution: 'uniform', minSeconds: 3, maxSeconds: 1 })).toBe(
      'plan field "sessions.models.code_completion.thinkTime" must have maxSeconds >= minSeconds',
    );
    expect(think({ distribution: 'lognormal', medianSeconds: 2 })).toBe(
      'plan field "sessions.models.code_completion.thinkTime.sigma" is required',
    );
    expect(think({ distribution: 'constant', seconds: -1 })).toMatch(
      /thinkTime.seconds" must be between 0 and 3600, got -1/,
    );
    expect(planError({ sessions: { models: { nope: { turns: 2 } } } })).toMatch(
      /^plan field "sessions.models.nope" is not a known field/,
    );
    expect(planError({ sessions: { useCases: ['nope'] } })).toMatch(
      /^plan field "sessions.useCases\[0\]" is "nope", not one of/,
    );
    expect(planError({ sessions: { models: { code_completion: { turns: 0 } } } })).toMatch(
      /turns" must be between 1 and 1000/,
    );
    expect(planError({ target: { api: 'completions' } })).toBe(
      'plan field "target.api" must be chat, responses or messages for the sessions script: ' +
      'a conversation is a list of messages',
    );
  });
});
