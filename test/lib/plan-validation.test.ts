// Tests for lib/plan.ts's validation: every bad plan is one line naming the field and what is allowed.
// Runs in Node (vitest).

import { describe, expect, it } from 'vitest';
import { SUMMARY_TREND_STATS } from '../../lib/metrics';
import { resolvePlan } from '../../lib/plan';
import { planError } from './plan-error';

const USE_CASE_IDS = 'code_completion, short_chatbot, general_chatbot, long_document, coding_assistant';

describe('validation errors: unknown fields, types, ranges and enums, each one line naming the field', () => {
  it('unknown fields, top-level and nested', () => {
    expect(planError({ foo: 1 })).toBe(
      'plan field "foo" is not a known field (known: name, target, prompts, limitStat, minGoodput, sweep, capacity, ' +
      'burst, sessions, agentic, rate, trace, mix, embed, gate, schedule, monitor, useCases, summaryTrendStats)',
    );
    expect(planError({ target: { url: 'http://x' } })).toBe(
      'plan field "target.url" is not a known field (known: baseUrl, model, api, ignoreEos, minTokens, ' +
      'temperature, seed, requestTimeoutSeconds, connectTimeoutSeconds, firstByteTimeoutSeconds, ' +
      'idleTimeoutSeconds, metricsUrl, powerMetricsUrl, insecureSkipTLSVerify)',
    );
    expect(
      planError({ capacity: { useCases: ['code_completion'], concurrencies: { general_chatbot: [1] } } }, 'capacity'),
    ).toBe('plan field "capacity.concurrencies.general_chatbot" is not a known field (known: code_completion)');
  });

  it('wrong types', () => {
    expect(planError({ target: { temperature: 'hot' } })).toBe(
      'plan field "target.temperature" must be a number, got "hot"',
    );
    expect(planError({ target: { ignoreEos: 'yes' } })).toBe('plan field "target.ignoreEos" must be true or false');
    expect(planError({ target: { insecureSkipTLSVerify: 'yes' } })).toBe(
      'plan field "target.insecureSkipTLSVerify" must be true or false',
    );
    expect(planError({ target: { model: '' } })).toBe('plan field "target.model" must be a non-empty string');
    expect(planError({ target: 'http://x' })).toBe('plan field "target" must be an object');
    expect(planError({ sweep: { contexts: 1024 } })).toBe(
      'plan field "sweep.contexts" must be a non-empty list of whole numbers',
    );
    expect(planError({ target: { baseUrl: 'localhost:8000/v1' } })).toBe(
      'plan field "target.baseUrl" must be an http(s) URL, got "localhost:8000/v1"',
    );
    expect(planError({ name: 'my run' })).toBe(
      'plan field "name" must use only letters, digits, "_" and "-", got "my run"',
    );
  });

  it('out of range and not whole', () => {
    expect(planError({ target: { temperature: 3 } })).toBe(
      'plan field "target.temperature" must be between 0 and 2, got 3',
    );
    expect(planError({ sweep: { concurrencies: [1, 0] } })).toBe(
      'plan field "sweep.concurrencies[1]" must be between 1 and 4096, got 0',
    );
    expect(planError({ sweep: { rounds: 1.5 } })).toBe('plan field "sweep.rounds" must be a whole number, got 1.5');
    expect(planError({ gate: { minSuccessRate: 1.5 } }, 'gate')).toBe(
      'plan field "gate.minSuccessRate" must be between 0 and 1, got 1.5',
    );
    expect(planError({ schedule: { safetyFactor: 0.5 } })).toContain(
      'plan field "schedule.safetyFactor" must be between 1 and 100',
    );
  });

  it('bad enums list the allowed values', () => {
    expect(planError({ target: { api: 'grpc' } })).toBe(
      'plan field "target.api" is "grpc", not one of: chat, completions, responses, messages',
    );
    expect(planError({ limitStat: 'p(50)' })).toBe(
      'plan field "limitStat" is "p(50)", not one of: avg, med, p(90), p(95), p(99)',
    );
    expect(planError({ prompts: { mode: 'cached' } })).toBe(
      'plan field "prompts.mode" is "cached", not one of: unique, shared-prefix',
    );
    expect(planError({ mix: { profiles: ['chat'] } }, 'mix')).toContain(
      'plan field "mix.profiles[0]" is "chat", not one of: chatbot, rag, agentic, tool_calling, chatbot_short',
    );
  });
});

describe('validation errors: use cases, trend stats, maxUsers and the plan itself', () => {
  it('a bad use case in capacity.useCases or gate.useCase', () => {
    expect(planError({ capacity: { useCases: ['general_chatbot', 'chat'] } }, 'capacity')).toBe(
      `plan field "capacity.useCases[1]" is "chat", not one of: ${USE_CASE_IDS}`,
    );
    expect(planError({ gate: { useCase: 'chat' } }, 'gate')).toBe(
      `plan field "gate.useCase" is "chat", not one of: ${USE_CASE_IDS}`,
    );
  });

  it('summaryTrendStats must keep what the report reads', () => {
    expect(planError({ summaryTrendStats: ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'count'] })).toBe(
      'plan field "summaryTrendStats" must include "p(99)" (the report reads it)',
    );
    expect(
      resolvePlan({ summaryTrendStats: [...SUMMARY_TREND_STATS, 'p(99.9)'] }, 'sweep').summaryTrendStats,
    ).toContain('p(99.9)');
  });

  it('custom use cases are checked field by field', () => {
    expect(planError({ useCases: [{ id: 'x', contextTokens: 1, outputTokens: 1, limits: [] }] })).toBe(
      'plan field "useCases[0].limits" must be a non-empty list',
    );
    expect(planError({
      useCases: [
        { id: 'x', contextTokens: 1, outputTokens: 1, limits: [{ metric: 'latency', operator: '<', value: 1 }] },
      ],
    })).toBe(
      'plan field "useCases[0].limits[0].metric" is "latency", not one of: ttft, ttfc, e2e, decodeSpeed, itl, tpot',
    );
  });

  it('the capacity search\'s maxUsers, as a number or one per use case', () => {
    expect(planError({ capacity: { maxUsers: 'x' } }, 'capacity')).toBe(
      'plan field "capacity.maxUsers" must be a whole number between 1 and 4096, ' +
      'or an object of them by use case id, got "x"',
    );
    expect(planError({ capacity: { maxUsers: 0 } }, 'capacity')).toBe(
      'plan field "capacity.maxUsers" must be between 1 and 4096, got 0',
    );
    expect(planError({ capacity: { maxUsers: { general_chatbot: 5000 } } }, 'capacity')).toBe(
      'plan field "capacity.maxUsers.general_chatbot" must be between 1 and 4096, got 5000',
    );
    expect(planError({ capacity: { maxUsers: { chat: 8 } } }, 'capacity')).toBe(
      `plan field "capacity.maxUsers.chat" is not a known field (known: ${USE_CASE_IDS})`,
    );
  });

  it('a missing field a custom use case needs is named', () => {
    expect(planError({
      useCases: [{ contextTokens: 1, outputTokens: 1, limits: [{ metric: 'ttft', operator: '<', value: 1 }] }],
    })).toBe('plan field "useCases[0].id" is required');
    expect(planError({
      useCases: [{ id: 'x', contextTokens: 1, outputTokens: 1, limits: [{ metric: 'ttft', operator: '<' }] }],
    })).toBe('plan field "useCases[0].limits[0].value" is required');
  });

  it('a plan that is not an object', () => {
    expect(planError(5)).toContain('must be an object');
    expect(planError(['sweep'])).toContain('must be an object');
  });
});
