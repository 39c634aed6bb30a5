// Parses environment values (k6 __ENV / process.env) once into plan overrides and run settings. Runs in k6 and Node.
// Its errors name the variable.

import * as v from 'valibot';
import { API_STYLES, PROMPT_MODES, type PlanInput, PlanError } from './plan';
import { url } from './schema';
import { NAMED_USE_CASES, USE_CASES } from '../thresholds/use-cases';

/** Every variable the entry scripts read, with what it does (printed by docs/reference/cli.md and `bench --help`). */
export const ENV_VARS: Readonly<Record<string, string>> = {
  PLAN:
    'Path of a plan JSON file, or of a run\'s resolved plan.json, which runs as it is, without the overrides below ' +
    '(absolute, or relative to the bundle as k6 open() resolves it).',
  BASE_URL: 'OpenAI-compatible base URL ending in /v1 (plan target.baseUrl).',
  MODEL: 'Model name sent in requests (plan target.model).',
  API: 'chat, completions, responses or messages (plan target.api).',
  API_KEY: 'Bearer token for the endpoint; read from the environment only, never written to any output.',
  METRICS_URL: 'Prometheus endpoint of the server, or "none" (plan target.metricsUrl).',
  CONTEXTS: 'Comma-separated context lengths in tokens for sweep (plan sweep.contexts).',
  CONCURRENCIES: 'Comma-separated concurrency levels for sweep and mix.',
  ROUNDS: 'Requests per user per cell.',
  OUTPUT_TOKENS: 'Output tokens per request for sweep (plan sweep.outputTokens).',
  USE_CASES:
    'Comma-separated use-case ids for capacity, sessions and rate (plan capacity.useCases, sessions.useCases, ' +
    'rate.useCases); a catalogue id the plan lacks, such as mlperf_llama2_70b, is added to its use cases.',
  RATES: 'Comma-separated offered rates in requests per second for the rate script (plan rate.rates), e.g. 0.5,1,2.',
  TRACE: 'Absolute path of the trace the trace script replays (plan trace.file); Mooncake, Azure, BurstGPT or Bailian.',
  TRACE_SPEEDS: 'Comma-separated replay speeds for the trace script (plan trace.speeds), e.g. 1,1.5,2.',
  SESSION_USERS: 'Comma-separated active users of each sessions step under plain k6, for every use case (plan ' +
    'sessions.users).',
  PROFILES: 'Comma-separated profile ids for mix and burst.',
  DEPTHS: 'Comma-separated queue depths for burst.',
  GATE_USE_CASE: 'Use case whose limits the gate script enforces.',
  GATE_CONCURRENCY: 'Concurrent users of the gate script.',
  PROMPTS: 'Path of a prepared prompt set (npm run prepare-prompts); without it prompts are approximate.',
  PROMPT_MODE: 'unique (default: no prefix-cache hits) or shared-prefix (measures caching).',
  PREFIX_GROUPS:
    'N:P, N prompt groups sharing a prefix of P tokens each, every request a suffix of its own (plan ' +
    'prompts.prefixGroups), e.g. 8:2k; none for unique prompts.',
  CELL_SECONDS: 'Fixed time slot per cell in seconds, instead of the estimate from the plan schedule.',
  RESULTS_DIR: 'Folder where handleSummary writes summary.json and plan.json (default results/latest).',
};

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Parses "1024,8k,1.5k" into whole numbers (k = 1024): the one parser of token counts and user
 * counts for the environment and the command line. `name` is what the error calls the input.
 */
export function parseCountList(text: string, name: string): number[] {
  return text.split(',').map((part) => {
    const t = part.trim().toLowerCase();
    const m = /^(\d+(?:\.\d+)?)(k?)$/.exec(t);
    if (!m) throw new PlanError(`${name} "${text}": "${part.trim()}" is not a whole number (1024 or 1k)`);
    const n = Number(m[1]) * (m[2] === 'k' ? 1024 : 1);
    if (!Number.isInteger(n) || n < 1) {
      throw new PlanError(`${name} "${text}": "${part.trim()}" must be a whole number of at least 1`);
    }
    return n;
  });
}

function listOfIntegers(env: Env, name: string): number[] | undefined {
  const v = env[name];
  if (v === undefined || v.trim() === '') return undefined;
  return parseCountList(v, name);
}

function integer(env: Env, name: string): number | undefined {
  const list = listOfIntegers(env, name);
  if (list === undefined) return undefined;
  if (list.length !== 1) throw new PlanError(`${name} "${env[name]}" must be a single whole number`);
  return list[0];
}

function listOfStrings(env: Env, name: string): string[] | undefined {
  const v = env[name];
  if (v === undefined || v.trim() === '') return undefined;
  return v.split(',').map((s) => s.trim()).filter((s) => s !== '');
}

function listOfRates(
  env: Env, name: string, what = 'a rate in requests per second (e.g. 0.5 or 4)',
): number[] | undefined {
  const v = env[name];
  if (v === undefined || v.trim() === '') return undefined;
  return v.split(',').map((part) => {
    const n = Number(part.trim());
    if (part.trim() === '' || !(n > 0) || !isFinite(n))
      throw new PlanError(`${name} "${v}": "${part.trim()}" is not ${what}`);
    return n;
  });
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[]): T | undefined {
  const v = env[name];
  if (v === undefined || v === '') return undefined;
  if (!(allowed as readonly string[]).includes(v)) {
    throw new PlanError(`${name} "${v}" is not one of: ${allowed.join(', ')}`);
  }
  return v as T;
}

/** The ids of a plan input's use cases (its own, else the built-in five); a catalogue id stands for its use case. */
function planUseCaseIds(plan: PlanInput): string[] {
  const idOf = (u: unknown): string | null => {
    if (typeof u === 'string') return u;
    const id = typeof u === 'object' && u !== null ? (u as { id?: unknown }).id : undefined;
    return typeof id === 'string' ? id : null;
  };
  return (plan.useCases ?? USE_CASES).map(idOf).filter((id): id is string => id !== null);
}

/**
 * USE_CASES: the use cases capacity, sessions and rate measure. An id the plan lacks but the catalogue has
 * (thresholds/use-cases.ts, e.g. mlperf_llama2_70b) is added to the plan's use cases; one neither has is an error.
 * The plan's per-use-case settings for the use cases left out are dropped (the plan schema rejects settings for a use
 * case a part does not measure); a key that names no use case at all is kept, for the schema to report.
 */
function selectUseCases(plan: PlanInput, ids: readonly string[], text: string): void {
  const own = planUseCaseIds(plan);
  const known = [...own, ...NAMED_USE_CASES.map((u) => u.id).filter((id) => !own.includes(id))];
  const unknown = ids.find((id) => !known.includes(id));
  if (unknown !== undefined)
    throw new PlanError(`USE_CASES "${text}": "${unknown}" is not one of: ${known.join(', ')}`);
  const added = ids.filter((id) => !own.includes(id));
  if (added.length > 0) plan.useCases = [...(plan.useCases ?? USE_CASES.map((u) => u.id)), ...added];
  const only = <T>(byId: T): T => {
    if (typeof byId !== 'object' || byId === null || Array.isArray(byId)) return byId;
    const kept = Object.entries(byId).filter(([id]) => ids.includes(id) || !known.includes(id));
    return Object.fromEntries(kept) as T;
  };
  const c = { ...(plan.capacity ?? {}), useCases: [...ids] };
  if (c.concurrencies) c.concurrencies = only(c.concurrencies);
  if (c.outputTokens) c.outputTokens = only(c.outputTokens);
  const se = { ...(plan.sessions ?? {}), useCases: [...ids] };
  if (se.users) se.users = only(se.users);
  const r = { ...(plan.rate ?? {}), useCases: [...ids] };
  if (r.rates) r.rates = only(r.rates);
  plan.capacity = c;
  plan.sessions = se;
  plan.rate = r;
}

/**
 * TRACE and TRACE_SPEEDS into the plan's trace section; speeds without a trace file in the plan or TRACE is an error.
 */
function applyTraceEnv(plan: PlanInput, env: Env): void {
  const file = env.TRACE?.trim() || undefined;
  const speeds = listOfRates(env, 'TRACE_SPEEDS', 'a replay speed (e.g. 1.5: one and a half times as fast)');
  if (!file && !speeds) return;
  const base = plan.trace ?? (file ? { file } : undefined);
  if (!base) throw new PlanError('TRACE_SPEEDS needs a trace: set TRACE to its absolute path');
  plan.trace = { ...base, ...(file ? { file } : {}), ...(speeds ? { speeds } : {}) };
}

/** PREFIX_GROUPS "N:P" (P may be "2k"), or "none": no groups, whatever the plan says; undefined when unset. */
function prefixGroups(env: Env): { groups: number; prefixTokens: number } | null | undefined {
  const text = env.PREFIX_GROUPS?.trim();
  if (text === undefined || text === '') return undefined;
  if (text === 'none') return null;
  const m = /^([^:]+):([^:]+)$/.exec(text);
  if (!m) throw new PlanError(`PREFIX_GROUPS "${text}" must be groups:prefix tokens, such as 8:2k, or none`);
  const [groups] = parseCountList(m[1]!, 'PREFIX_GROUPS');
  const [prefixTokens] = parseCountList(m[2]!, 'PREFIX_GROUPS');
  return { groups: groups!, prefixTokens: prefixTokens! };
}

/** PROMPT_MODE, PROMPTS and PREFIX_GROUPS into the plan's prompts section. */
function applyPromptEnv(plan: PlanInput, env: Env): void {
  const mode = oneOf(env, 'PROMPT_MODE', PROMPT_MODES);
  const groups = prefixGroups(env);
  if (!mode && !env.PROMPTS && groups === undefined) return;
  plan.prompts = { ...(plan.prompts ?? {}) };
  if (mode) plan.prompts.mode = mode;
  if (env.PROMPTS) plan.prompts.file = env.PROMPTS;
  if (groups !== undefined) plan.prompts.prefixGroups = groups;
}

/** Applies environment overrides on top of a plan file's content (env wins). */
export function applyEnvToPlan(base: PlanInput, env: Env): PlanInput {
  const plan: PlanInput = JSON.parse(JSON.stringify(base ?? {})) as PlanInput;
  const target = { ...(plan.target ?? {}) };
  if (env.BASE_URL) {
    // The plan's own URL rule, checked here so the error names the variable rather than target.baseUrl.
    if (!v.is(url, env.BASE_URL)) throw new PlanError(`BASE_URL "${env.BASE_URL}" is not an http(s) URL such as http://127.0.0.1:8000/v1`);
    target.baseUrl = env.BASE_URL;
  }
  if (env.MODEL) target.model = env.MODEL;
  const api = oneOf(env, 'API', API_STYLES);
  if (api) target.api = api;
  if (env.METRICS_URL) target.metricsUrl = env.METRICS_URL === 'none' ? null : env.METRICS_URL;
  plan.target = target;

  const rounds = integer(env, 'ROUNDS');
  const contexts = listOfIntegers(env, 'CONTEXTS');
  const concurrencies = listOfIntegers(env, 'CONCURRENCIES');
  const outputTokens = integer(env, 'OUTPUT_TOKENS');
  if (contexts || concurrencies || rounds || outputTokens) {
    plan.sweep = { ...(plan.sweep ?? {}) };
    if (contexts) plan.sweep.contexts = contexts;
    if (concurrencies) plan.sweep.concurrencies = concurrencies;
    if (rounds) plan.sweep.rounds = rounds;
    if (outputTokens) plan.sweep.outputTokens = outputTokens;
  }
  const useCases = listOfStrings(env, 'USE_CASES');
  if (useCases) selectUseCases(plan, useCases, env.USE_CASES!);
  if (rounds) plan.capacity = { ...(plan.capacity ?? {}), rounds };
  const sessionUsers = listOfIntegers(env, 'SESSION_USERS');
  if (sessionUsers) {
    plan.sessions = { ...(plan.sessions ?? {}) };
    // The ladder for every use case the part measures (named here, in the plan, or all of them).
    const ids = useCases ?? plan.sessions.useCases ?? planUseCaseIds(plan);
    plan.sessions.users = Object.fromEntries(ids.map((id) => [id, sessionUsers]));
  }
  const rates = listOfRates(env, 'RATES');
  if (rates) plan.rate = { ...(plan.rate ?? {}), rates };
  applyTraceEnv(plan, env);
  const profiles = listOfStrings(env, 'PROFILES');
  if (profiles || concurrencies || rounds) {
    plan.mix = { ...(plan.mix ?? {}) };
    if (profiles) plan.mix.profiles = profiles;
    if (concurrencies) plan.mix.concurrencies = concurrencies;
    if (rounds) plan.mix.rounds = rounds;
  }
  const depths = listOfIntegers(env, 'DEPTHS');
  if (profiles || depths) {
    plan.burst = { ...(plan.burst ?? {}) };
    if (profiles) plan.burst.profiles = profiles;
    if (depths) plan.burst.depths = depths;
  }
  const gateUseCase = env.GATE_USE_CASE;
  const gateConcurrency = integer(env, 'GATE_CONCURRENCY');
  if (gateUseCase || gateConcurrency || (rounds && plan.gate)) {
    plan.gate = { ...(plan.gate ?? {}) };
    if (rounds) plan.gate.rounds = rounds;
    if (gateUseCase) plan.gate.useCase = gateUseCase;
    if (gateConcurrency) plan.gate.concurrency = gateConcurrency;
  }
  applyPromptEnv(plan, env);
  const cellSeconds = integer(env, 'CELL_SECONDS');
  if (cellSeconds) plan.schedule = { ...(plan.schedule ?? {}), cellSeconds };
  return plan;
}
