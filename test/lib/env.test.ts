// Tests for lib/env.ts: every environment variable as a plan override, "1k" lists, and one-line errors naming the
// variable.
// Runs in Node (vitest).

import { describe, expect, it } from 'vitest';
import { resolveAny } from './resolve-any';
import { oneLinePlanError } from './plan-error';
import { ENV_VARS, applyEnvToPlan } from '../../lib/env';
import { EXIT, UserError } from '../../lib/exit-codes';
import { parseTokenList } from '../../scripts/cli';
import { SCRIPT_NAMES, resolvePlan, type PlanInput } from '../../lib/plan';
import { NAMED_USE_CASES, USE_CASES, findUseCase } from '../../thresholds/use-cases';
import { QUICK_PLAN } from '../../orchestrator/default-plans';

function envError(env: Record<string, string>): string {
  return oneLinePlanError(() => applyEnvToPlan({}, env), 'applyEnvToPlan accepted the environment');
}

describe('applyEnvToPlan: target, number and string lists', () => {
  it('without variables returns a copy of the base (plus an empty target)', () => {
    const base: PlanInput = { name: 'x', sweep: { rounds: 2 } };
    const out = applyEnvToPlan(base, {});
    expect(out).toEqual({ name: 'x', sweep: { rounds: 2 }, target: {} });
    expect(out.sweep).not.toBe(base.sweep);
    expect(base).toEqual({ name: 'x', sweep: { rounds: 2 } });
  });

  it('sets the target: BASE_URL, MODEL, API, METRICS_URL ("none" disables)', () => {
    const env = {
      BASE_URL: 'http://gpu:8000/v1', MODEL: 'qwen', API: 'completions', METRICS_URL: 'http://gpu:8000/metrics',
    };
    expect(applyEnvToPlan({ target: { temperature: 0.5 } }, env).target).toEqual({
      temperature: 0.5, baseUrl: 'http://gpu:8000/v1', model: 'qwen', api: 'completions',
      metricsUrl: 'http://gpu:8000/metrics',
    });
    expect(applyEnvToPlan({}, { METRICS_URL: 'none' }).target).toEqual({ metricsUrl: null });
  });

  it('reads number lists with k suffixes: CONTEXTS, CONCURRENCIES, DEPTHS', () => {
    const out = applyEnvToPlan({}, { CONTEXTS: '1k, 8K,32k,1.5k,1000', CONCURRENCIES: '1,2,4', DEPTHS: '1,256' });
    expect(out.sweep).toEqual({ contexts: [1024, 8192, 32768, 1536, 1000], concurrencies: [1, 2, 4] });
    expect(out.mix).toEqual({ concurrencies: [1, 2, 4] });
    expect(out.burst).toEqual({ depths: [1, 256] });
  });

  it('ROUNDS goes to sweep, capacity and mix; OUTPUT_TOKENS to sweep', () => {
    const out = applyEnvToPlan({ sweep: { contexts: [1024] } }, { ROUNDS: '5', OUTPUT_TOKENS: '2k' });
    expect(out.sweep).toEqual({ contexts: [1024], rounds: 5, outputTokens: 2048 });
    expect(out.capacity).toEqual({ rounds: 5 });
    expect(out.mix).toEqual({ rounds: 5 });
  });

  it('string lists: USE_CASES for capacity, PROFILES for mix and burst (blanks dropped)', () => {
    const out = applyEnvToPlan({}, { USE_CASES: 'general_chatbot, long_document,', PROFILES: 'rag ,agentic' });
    expect(out.capacity).toEqual({ useCases: ['general_chatbot', 'long_document'] });
    expect(out.mix).toEqual({ profiles: ['rag', 'agentic'] });
    expect(out.burst).toEqual({ profiles: ['rag', 'agentic'] });
  });
});

describe('applyEnvToPlan: the use cases measured (USE_CASES, SESSION_USERS)', () => {
  it('USE_CASES and SESSION_USERS for sessions: the ladder of every use case the part measures', () => {
    expect(applyEnvToPlan({}, { USE_CASES: 'code_completion', SESSION_USERS: '4,8k' }).sessions).toEqual({
      useCases: ['code_completion'], users: { code_completion: [4, 8192] },
    });
    const all = applyEnvToPlan({ sessions: { useCases: ['general_chatbot'] } }, { SESSION_USERS: '2' }).sessions;
    expect(all).toEqual({ useCases: ['general_chatbot'], users: { general_chatbot: [2] } });
    expect(Object.keys(applyEnvToPlan({}, { SESSION_USERS: '2' }).sessions!.users!)).toHaveLength(5);
  });

  it('USE_CASES of the default five leaves the plan\'s use cases alone', () => {
    const out = applyEnvToPlan({}, { USE_CASES: 'code_completion,short_chatbot' });
    expect(out.useCases).toBeUndefined();
    expect(resolvePlan(out, 'rate').useCases).toEqual(USE_CASES);
  });

  it('USE_CASES adds a catalogue use case the plan lacks (the default five, or its own list) and measures it', () => {
    const out = applyEnvToPlan({}, { USE_CASES: 'mlperf_llama3_1_8b' });
    expect(out.useCases).toEqual([...USE_CASES.map((u) => u.id), 'mlperf_llama3_1_8b']);
    expect(out.rate!.useCases).toEqual(['mlperf_llama3_1_8b']);
    const plan = resolvePlan(out, 'rate');
    expect(plan.useCases.at(-1)).toEqual(findUseCase('mlperf_llama3_1_8b'));
    expect(plan.cells.map((c) => c.id)).toEqual(
      ['0_5', '1', '2', '4'].map((r) => `rate_mlperf_llama3_1_8b_r${r}`),
    );
    const own: PlanInput = { useCases: [{ id: 'mine', contextTokens: 8, outputTokens: 4, limits: [] }] };
    const both = applyEnvToPlan(own, { USE_CASES: 'mine,mlperf_llama2_70b' });
    expect(both.useCases).toEqual([own.useCases![0], 'mlperf_llama2_70b']);
    // k6 applies the environment again over the plan the bench wrote with it: nothing is added twice.
    expect(applyEnvToPlan(both, { USE_CASES: 'mine,mlperf_llama2_70b' })).toEqual(both);
  });

  it('USE_CASES drops the plan\'s per-use-case settings of the use cases it leaves out, ' +
    'so the rest still apply', () => {
    const input = applyEnvToPlan(QUICK_PLAN, { USE_CASES: 'mlperf_llama3_1_8b,short_chatbot' });
    expect(input.rate!.rates).toEqual({});
    expect(input.capacity!.concurrencies).toEqual({ short_chatbot: [1, 50, 100] });
    expect(input.capacity!.outputTokens).toEqual({ short_chatbot: 128 });
    expect(input.sessions!.users).toEqual({});
    for (const script of ['capacity', 'sessions', 'rate'] as const)
      expect(new Set(resolvePlan(input, script).cells.map((c) => c.useCase))).toEqual(
        new Set(['mlperf_llama3_1_8b', 'short_chatbot']),
      );
    // A key that names no use case at all stays, for the plan to report.
    const typo = applyEnvToPlan({ rate: { rates: { code_complet: [1] } } }, { USE_CASES: 'code_completion' });
    expect(() => resolvePlan(typo, 'rate')).toThrow('plan field "rate.rates.code_complet" is not a known field');
  });

  it('USE_CASES naming no use case of the plan nor of the catalogue: one line naming the known ids', () => {
    const known = NAMED_USE_CASES.map((u) => u.id).join(', ');
    expect(envError({ USE_CASES: 'code_completion,mlperf_llama3_1_405b' })).toBe(
      `USE_CASES "code_completion,mlperf_llama3_1_405b": "mlperf_llama3_1_405b" is not one of: ${known}`,
    );
  });
});

describe('applyEnvToPlan: gate, prompts, prefix groups and precedence', () => {
  it('GATE_USE_CASE and GATE_CONCURRENCY, PROMPTS and PROMPT_MODE, CELL_SECONDS', () => {
    const out = applyEnvToPlan(
      { gate: { rounds: 3 }, schedule: { gapSeconds: 1 } },
      {
        GATE_USE_CASE: 'code_completion', GATE_CONCURRENCY: '16', PROMPTS: 'prompts.json', PROMPT_MODE: 'shared-prefix',
        CELL_SECONDS: '90',
      },
    );
    expect(out.gate).toEqual({ rounds: 3, useCase: 'code_completion', concurrency: 16 });
    expect(out.prompts).toEqual({ mode: 'shared-prefix', file: 'prompts.json' });
    expect(out.schedule).toEqual({ gapSeconds: 1, cellSeconds: 90 });
  });

  it('PREFIX_GROUPS: groups and prefix tokens (k allowed), or none over the plan\'s', () => {
    expect(applyEnvToPlan({}, { PREFIX_GROUPS: '8:2k' }).prompts).toEqual({
      prefixGroups: { groups: 8, prefixTokens: 2048 },
    });
    const plan: PlanInput = { prompts: { file: 'p.json', prefixGroups: { groups: 2, prefixTokens: 100 } } };
    expect(applyEnvToPlan(plan, { PREFIX_GROUPS: 'none' }).prompts).toEqual({ file: 'p.json', prefixGroups: null });
    expect(applyEnvToPlan(plan, { PREFIX_GROUPS: '' }).prompts).toEqual(plan.prompts);
  });

  it('the environment wins over the plan file, and empty values are ignored', () => {
    const base: PlanInput = { target: { model: 'file-model' }, sweep: { contexts: [4096] } };
    expect(applyEnvToPlan(base, { MODEL: 'env-model', CONTEXTS: '1k' })).toMatchObject({
      target: { model: 'env-model' }, sweep: { contexts: [1024] },
    });
    expect(applyEnvToPlan(base, { MODEL: '', CONTEXTS: ' ', API: '' })).toEqual({
      target: { model: 'file-model' }, sweep: { contexts: [4096] },
    });
  });
});

describe('applyEnvToPlan: every override together, the trace, and ENV_VARS', () => {
  it.each(SCRIPT_NAMES)('%s: a plan from every override resolves', (script) => {
    const env = {
      BASE_URL: 'http://h:1/v1', CONTEXTS: '1k', CONCURRENCIES: '1', ROUNDS: '1', OUTPUT_TOKENS: '16',
      USE_CASES: 'code_completion', PROFILES: 'chatbot', DEPTHS: '2', GATE_USE_CASE: 'code_completion',
      GATE_CONCURRENCY: '2', PROMPT_MODE: 'unique', CELL_SECONDS: '5', RATES: '2',
    };
    const plan = resolveAny(applyEnvToPlan({}, env), script);
    // capacity keeps the use case's own concurrency ladder (CONCURRENCIES is for sweep and mix); sessions its default
    // ladder of active users (SESSION_USERS), each step held its own ramp + warm-up + hold, not a slot.
    // embed its own ladder of batches and users (docs/guides/embeddings.md): 2 batch sizes x 4 user counts; agentic
    // its default ladder of agents (1, 2, 4, 8), each step held 5 + 10 + 60 s.
    const cells: Partial<Record<string, number>> = { capacity: 10, sessions: 7, embed: 8, agentic: 4 };
    expect(plan.cells.length).toBe(cells[script] ?? 1);
    if (script === 'trace')
      expect(plan.cells[0]!.maxDurationSeconds).toBeGreaterThan(plan.cells[0]!.arrivals!.durationSeconds);
    // A rate cell lasts its schedule (a minute) and the time its last request takes, whatever CELL_SECONDS says; a
    // trace cell its trace and the same tail (test/trace/replay.test.ts).
    const slot = script === 'sessions' ? 80 : script === 'rate' ? 66 : script === 'agentic' ? 75 : 5;
    if (script !== 'trace') for (const c of plan.cells) expect(c.maxDurationSeconds).toBe(slot);
    expect(plan.target.baseUrl).toBe('http://h:1/v1');
  });

  it('TRACE and TRACE_SPEEDS fill the trace section; speeds need a trace; a bad speed is one line', () => {
    expect(applyEnvToPlan({}, { TRACE: '/t/m.jsonl', TRACE_SPEEDS: '1,2.5' }).trace).toEqual({
      file: '/t/m.jsonl', speeds: [1, 2.5],
    });
    const plan = applyEnvToPlan({ trace: { file: '/a.jsonl', useCase: 'code_completion' } }, { TRACE_SPEEDS: '3' });
    expect(plan.trace).toEqual({ file: '/a.jsonl', useCase: 'code_completion', speeds: [3] });
    expect(() => applyEnvToPlan({}, { TRACE_SPEEDS: '2' })).toThrow(
      'TRACE_SPEEDS needs a trace: set TRACE to its absolute path',
    );
    expect(() => applyEnvToPlan({}, { TRACE: '/t', TRACE_SPEEDS: '0' }))
      .toThrow('TRACE_SPEEDS "0": "0" is not a replay speed (e.g. 1.5: one and a half times as fast)');
  });

  it('reads only variables that ENV_VARS documents', () => {
    const read = new Set<string>();
    const env = new Proxy({} as Record<string, string | undefined>, {
      get(_t, key) {
        if (typeof key === 'string') read.add(key);
        return undefined;
      },
    });
    applyEnvToPlan({}, env);
    for (const name of read) expect(Object.keys(ENV_VARS), name).toContain(name);
    expect([...read].sort()).toEqual([
      'API', 'BASE_URL', 'CELL_SECONDS', 'CONCURRENCIES', 'CONTEXTS', 'DEPTHS', 'GATE_CONCURRENCY', 'GATE_USE_CASE',
      'METRICS_URL', 'MODEL', 'OUTPUT_TOKENS', 'PREFIX_GROUPS', 'PROFILES', 'PROMPTS', 'PROMPT_MODE', 'RATES', 'ROUNDS',
      'SESSION_USERS', 'TRACE', 'TRACE_SPEEDS', 'USE_CASES',
    ]);
    // The others are read by the k6 side, not as plan overrides.
    expect(Object.keys(ENV_VARS).filter((k) => !read.has(k)).sort()).toEqual(['API_KEY', 'PLAN', 'RESULTS_DIR']);
  });
});

describe('applyEnvToPlan errors', () => {
  it('names the variable, its value and the bad part', () => {
    expect(envError({ CONTEXTS: '1k,abc' })).toBe('CONTEXTS "1k,abc": "abc" is not a whole number (1024 or 1k)');
    expect(envError({ CONCURRENCIES: '1,-2' })).toBe('CONCURRENCIES "1,-2": "-2" is not a whole number (1024 or 1k)');
    expect(envError({ DEPTHS: '0' })).toBe('DEPTHS "0": "0" must be a whole number of at least 1');
    expect(envError({ CONTEXTS: '0.5' })).toBe('CONTEXTS "0.5": "0.5" must be a whole number of at least 1');
    expect(envError({ CONTEXTS: '1.1k' })).toBe('CONTEXTS "1.1k": "1.1k" must be a whole number of at least 1');
    expect(envError({ CONTEXTS: '1k,,2k' })).toBe('CONTEXTS "1k,,2k": "" is not a whole number (1024 or 1k)');
  });

  it('single numbers must be single', () => {
    expect(envError({ ROUNDS: '2,3' })).toBe('ROUNDS "2,3" must be a single whole number');
    expect(envError({ CELL_SECONDS: 'ten' })).toBe('CELL_SECONDS "ten": "ten" is not a whole number (1024 or 1k)');
    expect(envError({ GATE_CONCURRENCY: '1,2' })).toBe('GATE_CONCURRENCY "1,2" must be a single whole number');
    expect(envError({ OUTPUT_TOKENS: '1m' })).toContain('OUTPUT_TOKENS "1m"');
  });

  it('enums list the allowed values', () => {
    expect(envError({ API: 'grpc' })).toBe('API "grpc" is not one of: chat, completions, responses, messages');
    expect(envError({ PROMPT_MODE: 'cached' })).toBe('PROMPT_MODE "cached" is not one of: unique, shared-prefix');
  });

  it('PREFIX_GROUPS must be two whole numbers', () => {
    expect(envError({ PREFIX_GROUPS: '8' })).toBe(
      'PREFIX_GROUPS "8" must be groups:prefix tokens, such as 8:2k, or none',
    );
    expect(envError({ PREFIX_GROUPS: '8:0' })).toBe('PREFIX_GROUPS "0": "0" must be a whole number of at least 1');
  });
});

describe('applyEnvToPlan edge cases', () => {
  it('names BASE_URL when it is not a URL', () => {
    expect(() => applyEnvToPlan({}, { BASE_URL: 'localhost:8000' })).toThrow(
      /^BASE_URL "localhost:8000" is not an http\(s\) URL/,
    );
  });

  it('applies ROUNDS to a plan that has a gate', () => {
    const plan = resolvePlan(applyEnvToPlan({ gate: { useCase: 'general_chatbot' } }, { ROUNDS: '5' }), 'gate');
    expect(plan.cells[0]!.rounds).toBe(5);
  });
});

describe('token lists on the command line', () => {
  it('parse as CONTEXTS does (1.5k included), and fail with the same one-line message as a usage error', () => {
    expect(parseTokenList('1024, 8k,1.5k', '--contexts')).toEqual([1024, 8192, 1536]);
    expect(applyEnvToPlan({}, { CONTEXTS: '1024, 8k,1.5k' }).sweep!.contexts).toEqual([1024, 8192, 1536]);
    const failure = (text: string): UserError | null => {
      try {
        parseTokenList(text, '--contexts');
        return null;
      } catch (e) {
        return e as UserError;
      }
    };
    expect(failure('1k,abc')).toMatchObject({
      message: '--contexts "1k,abc": "abc" is not a whole number (1024 or 1k)', exitCode: EXIT.usage,
    });
    expect(failure('1.3k')).toMatchObject({
      message: '--contexts "1.3k": "1.3k" must be a whole number of at least 1', exitCode: EXIT.usage,
    });
  });
});
