// The plan: what a run measures (target, cells, limits, schedule), validated once and resolved into sequential cells. Runs in k6 and Node.
//
// The plan is the single source of truth: the k6 options, the local runner and the report all read
// the same resolved plan (written as plan.json beside the results), so a report can say exactly what ran.

import { BURST_DEPTHS, BURST_TTFT_LIMIT_MS, CONTEXT_GRID, MIX_PROFILES, USE_CASES, findMixProfile, limitLabel, type UseCase } from '../thresholds/use-cases';
import { SUMMARY_TREND_STATS } from './metrics';

export const PLAN_SCHEMA_VERSION = 1;

export const SCRIPT_NAMES = ['sweep', 'capacity', 'burst', 'mix', 'gate'] as const;
export type ScriptName = (typeof SCRIPT_NAMES)[number];

export const API_STYLES = ['chat', 'completions'] as const;
export type ApiStyle = (typeof API_STYLES)[number];

export const PROMPT_MODES = ['unique', 'shared-prefix'] as const;
/** unique: every request gets a unique prefix so prefix caching cannot hide prefill; shared-prefix: identical prompts, to measure caching. */
export type PromptMode = (typeof PROMPT_MODES)[number];

export const LIMIT_STATS = ['avg', 'med', 'p(90)', 'p(95)', 'p(99)'] as const;
/** Which per-cell statistic a use-case limit is checked on. The reference reports use the average. */
export type LimitStat = (typeof LIMIT_STATS)[number];

export interface TargetConfig {
  /** OpenAI-compatible base URL ending in /v1, e.g. http://127.0.0.1:8000/v1. */
  readonly baseUrl: string;
  readonly model: string;
  readonly api: ApiStyle;
  /** Send ignore_eos: true (vLLM, SGLang) so the output length is exactly max_tokens. */
  readonly ignoreEos: boolean;
  /** Send min_tokens = max_tokens (vLLM) as a second way of forcing the length. */
  readonly minTokens: boolean;
  readonly temperature: number;
  /** Sampling seed sent with each request; null sends none. */
  readonly seed: number | null;
  /** Whole-request timeout, connect to end of stream, seconds. */
  readonly requestTimeoutSeconds: number;
  /** Until the connection is ready (TCP and TLS), seconds; 0 = only the whole-request limit. k6/x/llm only. */
  readonly connectTimeoutSeconds: number;
  /** Request written to response head, seconds; 0 = none. k6/x/llm only. */
  readonly firstByteTimeoutSeconds: number;
  /** No byte for this long while the stream is open ends the request as `stalled`, seconds; 0 = none. k6/x/llm only. */
  readonly idleTimeoutSeconds: number;
  /** Prometheus endpoint of the server (vLLM/SGLang /metrics); null disables server metrics. */
  readonly metricsUrl: string | null;
  /** Extra Prometheus endpoint for GPU power (a DCGM exporter); null when the server's own endpoint has it or there is none. */
  readonly powerMetricsUrl: string | null;
  /** Accept any TLS certificate of the target (k6's insecureSkipTLSVerify), e.g. a self-signed one; default false. */
  readonly insecureSkipTLSVerify: boolean;
}

/** One measurement cell: one k6 scenario, N concurrent closed-loop users for `rounds` requests each. */
export interface Cell {
  /** Scenario name and `cell` tag; matches ^[0-9a-zA-Z_-]+$. */
  readonly id: string;
  readonly script: ScriptName;
  readonly contextTokens: number;
  readonly outputTokens: number;
  readonly concurrency: number;
  /** Requests per user (k6 per-vu-iterations `iterations`), warm-up included. */
  readonly rounds: number;
  /**
   * The first requests of each user that are warm-up (tag phase=warmup, left out of the cell's
   * statistics): a capacity step measures users in service, not their all-at-once arrival. 0 elsewhere.
   */
  readonly warmupRounds: number;
  readonly useCase: string | null;
  readonly profile: string | null;
  /** Scenario startTime, seconds from test start. */
  readonly startSeconds: number;
  /** Scenario maxDuration, seconds. */
  readonly maxDurationSeconds: number;
  /** Scenario gracefulStop, seconds: how long in-flight requests may finish after maxDuration. */
  readonly gracefulStopSeconds: number;
  /** Written by the bench for a step it drove (lib/drive.ts); absent for a cell run in k6's time slots. */
  readonly driven?: DrivenStepInfo;
}

/** How the bench ran a step (the report says how each figure was measured). */
export interface DrivenStepInfo {
  /** rounds: each user sent `rounds` requests; steady: users held in steady state (warm-up excluded). */
  readonly mode: 'rounds' | 'steady';
  /** A step the capacity search chose. */
  readonly search: boolean;
  /** When the step began, seconds from the part's first step, and how long it lasted. */
  readonly startSeconds: number;
  readonly seconds: number;
  readonly requests: { readonly measured: number; readonly warmup: number; readonly transition: number; readonly cut: number };
}

export interface ScheduleConfig {
  /** Idle seconds between cells, so one cell's tail never overlaps the next. */
  readonly gapSeconds: number;
  /** Expected prefill speed of the target (tokens/s, one request alone), used only to size cell time slots. */
  readonly prefillTokensPerSecond: number;
  /** Expected single-user decode speed (tokens/s), used only to size cell time slots. */
  readonly decodeTokensPerSecond: number;
  /** Multiplier on the estimate, so a slower server still finishes inside its slot. */
  readonly safetyFactor: number;
  readonly minCellSeconds: number;
  /** Fixed slot for every cell, overriding the estimate; null to estimate. */
  readonly cellSeconds: number | null;
  /**
   * Predicted seconds for all of a cell's requests, by cell id, from a model of the target (the bench
   * fills it from the simulator's own engine when it targets the simulator); replaces the estimate.
   */
  readonly predictedCellSeconds: Readonly<Record<string, number>> | null;
}

export interface MonitorConfig {
  readonly enabled: boolean;
  readonly intervalSeconds: number;
}

/**
 * How `npm run bench` searches each use case's capacity (docs/architecture.md, "Bench-driven runs"): steps of
 * N closed-loop users held in steady state, climbing until a limit breaks, then bisecting.
 */
export interface CapacitySearchConfig {
  /** Warm-up requests of each user a step adds (carried-over users need none). */
  readonly warmupRequests: number;
  /** A step measures at least this many requests per user on average... */
  readonly minRequestsPerUser: number;
  /** ...and for at least this many seconds. */
  readonly minMeasuredSeconds: number;
  /** Users of the first step. */
  readonly startUsers: number;
  /** The search stops climbing here: a use case within its limits at this many users has "more than" this capacity. */
  readonly maxUsers: Readonly<Record<string, number>>;
  /** Below this many users the capacity is found to 1 user... */
  readonly exactBelow: number;
  /** ...above, to this share of the capacity (percent). */
  readonly resolutionPercent: number;
}

export interface GateConfig {
  readonly useCase: string;
  readonly concurrency: number;
  readonly rounds: number;
  /** Minimum fraction of successful requests. */
  readonly minSuccessRate: number;
}

export interface Plan {
  readonly schemaVersion: typeof PLAN_SCHEMA_VERSION;
  readonly name: string;
  readonly script: ScriptName;
  readonly target: TargetConfig;
  readonly prompts: { readonly mode: PromptMode; readonly file: string | null };
  readonly limitStat: LimitStat;
  /** The use cases this plan refers to, copied in full so a report never depends on code defaults. */
  readonly useCases: readonly UseCase[];
  readonly burstTtftLimitMs: number;
  readonly gate: GateConfig | null;
  /** For the capacity script: how the bench searches; null for the other scripts. */
  readonly search: CapacitySearchConfig | null;
  readonly schedule: ScheduleConfig;
  readonly monitor: MonitorConfig;
  readonly summaryTrendStats: readonly string[];
  readonly cells: readonly Cell[];
  /** End of the last cell's slot, seconds from test start. */
  readonly totalSeconds: number;
}

/** The part of a plan a user writes (JSON file or env); everything is optional and has a default. */
export interface PlanInput {
  name?: string;
  target?: { -readonly [K in keyof TargetConfig]?: TargetConfig[K] };
  prompts?: { mode?: PromptMode; file?: string | null };
  limitStat?: LimitStat;
  sweep?: { contexts?: number[]; concurrencies?: number[]; rounds?: number; outputTokens?: number };
  capacity?: {
    useCases?: string[];
    concurrencies?: Record<string, number[]>;
    /** Measured requests per user of a step (after warm-up). */
    rounds?: number;
    outputTokens?: Record<string, number>;
    warmupRequests?: number;
    minMeasuredSeconds?: number;
    startUsers?: number;
    maxUsers?: number | Record<string, number>;
    exactBelow?: number;
    resolutionPercent?: number;
  };
  burst?: { profiles?: string[]; depths?: number[]; ttftLimitMs?: number };
  mix?: { profiles?: string[]; concurrencies?: number[]; rounds?: number };
  gate?: { useCase?: string; concurrency?: number; rounds?: number; minSuccessRate?: number };
  schedule?: { -readonly [K in keyof ScheduleConfig]?: ScheduleConfig[K] | null };
  monitor?: { enabled?: boolean; intervalSeconds?: number };
  useCases?: UseCase[];
}

export class PlanError extends Error {
  override name = 'PlanError';
}

// ---------------------------------------------------------------------------------------------
// Validation: each reader names the field it rejects, so the one-line error says what to fix.

type Json = unknown;

function isObject(v: Json): v is Record<string, Json> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function fail(field: string, message: string): never {
  throw new PlanError(`plan field "${field}" ${message}`);
}

function readObject(v: Json, field: string, allowed: readonly string[]): Record<string, Json> {
  if (v === undefined) return {};
  if (!isObject(v)) fail(field, 'must be an object');
  for (const key of Object.keys(v)) {
    if (!allowed.includes(key)) fail(field ? `${field}.${key}` : key, `is not a known field (known: ${allowed.join(', ')})`);
  }
  return v;
}

function readString(v: Json, field: string, fallback: string): string {
  if (v === undefined) return fallback;
  if (typeof v !== 'string' || v.trim() === '') fail(field, 'must be a non-empty string');
  return v;
}

function readNullableString(v: Json, field: string, fallback: string | null): string | null {
  if (v === undefined) return fallback;
  if (v === null) return null;
  return readString(v, field, '');
}

function readNumber(v: Json, field: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (v === undefined) return fallback;
  if (typeof v !== 'number' || !isFinite(v)) fail(field, `must be a number, got ${JSON.stringify(v)}`);
  if (v < min || v > max) fail(field, `must be between ${min} and ${max}, got ${v}`);
  return v;
}

function readInteger(v: Json, field: string, fallback: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = readNumber(v, field, fallback, min, max);
  if (!Number.isInteger(n)) fail(field, `must be a whole number, got ${n}`);
  return n;
}

function readBoolean(v: Json, field: string, fallback: boolean): boolean {
  if (v === undefined) return fallback;
  if (typeof v !== 'boolean') fail(field, 'must be true or false');
  return v;
}

function readEnum<T extends string>(v: Json, field: string, allowed: readonly T[], fallback: T): T {
  if (v === undefined) return fallback;
  if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
    fail(field, `is ${JSON.stringify(v)}, not one of: ${allowed.join(', ')}`);
  }
  return v as T;
}

function readIntegerList(v: Json, field: string, fallback: readonly number[], min: number, max: number): number[] {
  if (v === undefined) return [...fallback];
  if (!Array.isArray(v) || v.length === 0) fail(field, 'must be a non-empty list of whole numbers');
  return v.map((item, i) => readInteger(item, `${field}[${i}]`, 0, min, max));
}

function readStringList(v: Json, field: string, fallback: readonly string[], allowed: readonly string[]): string[] {
  if (v === undefined) return [...fallback];
  if (!Array.isArray(v) || v.length === 0) fail(field, 'must be a non-empty list');
  return v.map((item, i) => readEnum(item, `${field}[${i}]`, allowed, allowed[0] as string));
}

function readUrl(v: Json, field: string, fallback: string): string {
  const s = readString(v, field, fallback);
  if (!/^https?:\/\/[^\s/]+/.test(s)) fail(field, `must be an http(s) URL, got "${s}"`);
  return s.replace(/\/+$/, '');
}

function readUseCases(v: Json): UseCase[] {
  if (v === undefined) return [...USE_CASES];
  if (!Array.isArray(v) || v.length === 0) fail('useCases', 'must be a non-empty list');
  return v.map((raw, i) => {
    const f = `useCases[${i}]`;
    const o = readObject(raw, f, ['id', 'title', 'description', 'contextTokens', 'outputTokens', 'limits', 'concurrencies']);
    if (!Array.isArray(o.limits) || o.limits.length === 0) fail(`${f}.limits`, 'must be a non-empty list');
    return {
      id: readName(o.id, `${f}.id`),
      title: readString(o.title, `${f}.title`, String(o.id)),
      description: readString(o.description, `${f}.description`, ''),
      contextTokens: readInteger(o.contextTokens, `${f}.contextTokens`, 0, 1, 10_000_000),
      outputTokens: readInteger(o.outputTokens, `${f}.outputTokens`, 0, 1, 1_000_000),
      concurrencies: readIntegerList(o.concurrencies, `${f}.concurrencies`, [1, 2, 4, 8], 1, 4096),
      limits: o.limits.map((lr, j) => {
        const lf = `${f}.limits[${j}]`;
        const l = readObject(lr, lf, ['metric', 'operator', 'value', 'label']);
        const metric = readEnum(l.metric, `${lf}.metric`, ['ttft', 'e2e', 'decodeSpeed', 'itl', 'tpot'] as const, 'ttft');
        const operator = readEnum(l.operator, `${lf}.operator`, ['<', '<=', '>', '>='] as const, '<');
        const value = readNumber(l.value, `${lf}.value`, 0, 0);
        return { metric, operator, value, label: readString(l.label, `${lf}.label`, limitLabel(metric, operator, value)) };
      }),
    };
  });
}

function readName(v: Json, field: string): string {
  const s = readString(v, field, '');
  if (!/^[0-9a-zA-Z_-]+$/.test(s)) fail(field, `must use only letters, digits, "_" and "-", got "${s}"`);
  return s;
}

// ---------------------------------------------------------------------------------------------
// Cells and schedule.

/** "1k", "32k", "1.5k" for token counts in cell ids and labels. */
export function formatTokens(tokens: number): string {
  if (tokens >= 1024 && tokens % 1024 === 0) return `${tokens / 1024}k`;
  if (tokens >= 1000) return `${Math.round(tokens / 100) / 10}k`.replace('.', '_');
  return String(tokens);
}

type CellDraft = Omit<Cell, 'startSeconds' | 'maxDurationSeconds' | 'gracefulStopSeconds' | 'warmupRounds'> & { warmupRounds?: number };

/**
 * How per-user decode speed falls with concurrency N: speed(N) = speed(1) / N^0.4. Fitted to the
 * published Qwen3-Coder-30B-A3B / H200 points (165 tok/s alone, 100 at 6 users, 25 at 75, 21 at 125).
 */
export const DECODE_SLOWDOWN_EXPONENT = 0.4;

/**
 * Estimated seconds for one request of a cell, from the expected single-request speeds: all N
 * prefills may run back to back (the worst case, for the last request), then decode at the
 * per-user speed of N concurrent users. Only sizes time slots; never used as a measurement.
 */
export function estimateRequestSeconds(draft: Pick<Cell, 'contextTokens' | 'outputTokens' | 'concurrency'>, s: ScheduleConfig): number {
  const prefill = (draft.contextTokens * draft.concurrency) / s.prefillTokensPerSecond;
  const decode = draft.outputTokens / (s.decodeTokensPerSecond / Math.pow(draft.concurrency, DECODE_SLOWDOWN_EXPONENT));
  return prefill + decode;
}

function scheduleCells(drafts: readonly CellDraft[], s: ScheduleConfig): { cells: Cell[]; totalSeconds: number } {
  let start = 0;
  const cells: Cell[] = [];
  for (const d of drafts) {
    const predicted = s.predictedCellSeconds?.[d.id];
    const perRequest = predicted !== undefined ? predicted / d.rounds : estimateRequestSeconds(d, s);
    const slot = s.cellSeconds ?? Math.max(s.minCellSeconds, Math.ceil(perRequest * d.rounds * s.safetyFactor));
    // In-flight requests may finish after the slot ends: for up to one more estimated request, or,
    // when a model predicted the cell, for the share of one request the safety factor allows.
    const graceful = predicted !== undefined ? Math.max(1, Math.ceil(perRequest * (s.safetyFactor - 1)) + 1) : Math.max(1, Math.ceil(perRequest * s.safetyFactor));
    cells.push({ ...d, warmupRounds: d.warmupRounds ?? 0, startSeconds: start, maxDurationSeconds: slot, gracefulStopSeconds: graceful });
    start += slot + graceful + s.gapSeconds;
  }
  return { cells, totalSeconds: Math.max(0, start - s.gapSeconds) };
}

const CAPACITY_FIELDS = ['useCases', 'concurrencies', 'rounds', 'outputTokens', 'warmupRequests', 'minMeasuredSeconds', 'startUsers', 'maxUsers', 'exactBelow', 'resolutionPercent'];

/** Defaults of the capacity search (README, "Capacity search"). */
export const CAPACITY_SEARCH_DEFAULTS = { warmupRequests: 1, minRequestsPerUser: 2, minMeasuredSeconds: 10, startUsers: 1, maxUsers: 256, exactBelow: 16, resolutionPercent: 5 } as const;

function readSearch(raw: Json, useCases: readonly UseCase[]): CapacitySearchConfig {
  const o = readObject(raw, 'capacity', CAPACITY_FIELDS);
  const d = CAPACITY_SEARCH_DEFAULTS;
  const ids = useCases.map((u) => u.id);
  let maxUsers: Record<string, number>;
  if (o.maxUsers === undefined || typeof o.maxUsers === 'number') {
    const n = readInteger(o.maxUsers, 'capacity.maxUsers', d.maxUsers, 1, 4096);
    maxUsers = Object.fromEntries(ids.map((id) => [id, n]));
  } else {
    const m = readObject(o.maxUsers, 'capacity.maxUsers', ids);
    maxUsers = Object.fromEntries(ids.map((id) => [id, readInteger(m[id], `capacity.maxUsers.${id}`, d.maxUsers, 1, 4096)]));
  }
  return {
    warmupRequests: readInteger(o.warmupRequests, 'capacity.warmupRequests', d.warmupRequests, 0, 100),
    minRequestsPerUser: readInteger(o.rounds, 'capacity.rounds', d.minRequestsPerUser, 1, 10_000),
    minMeasuredSeconds: readNumber(o.minMeasuredSeconds, 'capacity.minMeasuredSeconds', d.minMeasuredSeconds, 0, 86_400),
    startUsers: readInteger(o.startUsers, 'capacity.startUsers', d.startUsers, 1, 4096),
    maxUsers,
    exactBelow: readInteger(o.exactBelow, 'capacity.exactBelow', d.exactBelow, 1, 4096),
    resolutionPercent: readNumber(o.resolutionPercent, 'capacity.resolutionPercent', d.resolutionPercent, 0.1, 100),
  };
}

function buildDrafts(script: ScriptName, input: Record<string, Json>, useCases: readonly UseCase[], gate: GateConfig | null, search_: CapacitySearchConfig | null): CellDraft[] {
  const drafts: CellDraft[] = [];
  switch (script) {
    case 'sweep': {
      const o = readObject(input.sweep, 'sweep', ['contexts', 'concurrencies', 'rounds', 'outputTokens']);
      const contexts = readIntegerList(o.contexts, 'sweep.contexts', CONTEXT_GRID, 1, 10_000_000);
      const concurrencies = readIntegerList(o.concurrencies, 'sweep.concurrencies', [1, 2, 4, 6], 1, 4096);
      const rounds = readInteger(o.rounds, 'sweep.rounds', 3, 1, 10_000);
      const outputTokens = readInteger(o.outputTokens, 'sweep.outputTokens', 1024, 1, 1_000_000);
      for (const contextTokens of contexts) {
        for (const concurrency of concurrencies) {
          drafts.push({ id: `sweep_c${formatTokens(contextTokens)}_o${formatTokens(outputTokens)}_n${concurrency}`, script, contextTokens, outputTokens, concurrency, rounds, useCase: null, profile: null });
        }
      }
      break;
    }
    case 'capacity': {
      const o = readObject(input.capacity, 'capacity', CAPACITY_FIELDS);
      const ids = readStringList(o.useCases, 'capacity.useCases', useCases.map((u) => u.id), useCases.map((u) => u.id));
      const search = search_ as CapacitySearchConfig;
      const rounds = search.warmupRequests + search.minRequestsPerUser;
      const ladders = readObject(o.concurrencies, 'capacity.concurrencies', ids);
      const outputs = readObject(o.outputTokens, 'capacity.outputTokens', ids);
      for (const id of ids) {
        const uc = useCases.find((u) => u.id === id) as UseCase;
        const ladder = readIntegerList(ladders[id], `capacity.concurrencies.${id}`, uc.concurrencies, 1, 4096);
        const outputTokens = readInteger(outputs[id], `capacity.outputTokens.${id}`, uc.outputTokens, 1, 1_000_000);
        for (const concurrency of ladder) {
          drafts.push({ id: `capacity_${id}_n${concurrency}`, script, contextTokens: uc.contextTokens, outputTokens, concurrency, rounds, warmupRounds: search.warmupRequests, useCase: id, profile: null });
        }
      }
      break;
    }
    case 'burst': {
      const o = readObject(input.burst, 'burst', ['profiles', 'depths', 'ttftLimitMs']);
      const profiles = readStringList(o.profiles, 'burst.profiles', ['chatbot', 'rag', 'agentic', 'tool_calling'], MIX_PROFILES.map((p) => p.id));
      const depths = readIntegerList(o.depths, 'burst.depths', BURST_DEPTHS, 1, 4096);
      for (const pid of profiles) {
        const p = findMixProfile(pid)!;
        for (const depth of depths) {
          drafts.push({ id: `burst_${pid}_q${depth}`, script, contextTokens: p.contextTokens, outputTokens: p.outputTokens, concurrency: depth, rounds: 1, useCase: null, profile: pid });
        }
      }
      break;
    }
    case 'mix': {
      const o = readObject(input.mix, 'mix', ['profiles', 'concurrencies', 'rounds']);
      const profiles = readStringList(o.profiles, 'mix.profiles', ['chatbot', 'rag', 'agentic', 'tool_calling'], MIX_PROFILES.map((p) => p.id));
      const concurrencies = readIntegerList(o.concurrencies, 'mix.concurrencies', [1, 2, 4, 8, 16, 32], 1, 4096);
      const rounds = readInteger(o.rounds, 'mix.rounds', 2, 1, 10_000);
      for (const pid of profiles) {
        const p = findMixProfile(pid)!;
        for (const concurrency of concurrencies) {
          drafts.push({ id: `mix_${pid}_n${concurrency}`, script, contextTokens: p.contextTokens, outputTokens: p.outputTokens, concurrency, rounds, useCase: null, profile: pid });
        }
      }
      break;
    }
    case 'gate': {
      const g = gate as GateConfig;
      const uc = useCases.find((u) => u.id === g.useCase) as UseCase;
      drafts.push({ id: `gate_${uc.id}_n${g.concurrency}`, script, contextTokens: uc.contextTokens, outputTokens: uc.outputTokens, concurrency: g.concurrency, rounds: g.rounds, useCase: uc.id, profile: null });
      break;
    }
  }
  return drafts;
}

const TOP_LEVEL_FIELDS = ['name', 'target', 'prompts', 'limitStat', 'sweep', 'capacity', 'burst', 'mix', 'gate', 'schedule', 'monitor', 'useCases', 'summaryTrendStats'];

/**
 * Validates a plan input (parsed JSON) for one entry script and resolves it into sequential cells.
 * Throws PlanError with a one-line message naming the bad field.
 */
export function resolvePlan(raw: Json, script: ScriptName): Plan {
  const input = readObject(raw ?? {}, '', TOP_LEVEL_FIELDS);
  const t = readObject(input.target, 'target', ['baseUrl', 'model', 'api', 'ignoreEos', 'minTokens', 'temperature', 'seed', 'requestTimeoutSeconds', 'connectTimeoutSeconds', 'firstByteTimeoutSeconds', 'idleTimeoutSeconds', 'metricsUrl', 'powerMetricsUrl', 'insecureSkipTLSVerify']);
  const baseUrl = readUrl(t.baseUrl, 'target.baseUrl', 'http://127.0.0.1:8000/v1');
  const origin = /^https?:\/\/[^/]+/.exec(baseUrl)?.[0] ?? baseUrl;
  const target: TargetConfig = {
    baseUrl,
    model: readString(t.model, 'target.model', 'Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8'),
    api: readEnum(t.api, 'target.api', API_STYLES, 'chat'),
    ignoreEos: readBoolean(t.ignoreEos, 'target.ignoreEos', true),
    minTokens: readBoolean(t.minTokens, 'target.minTokens', false),
    temperature: readNumber(t.temperature, 'target.temperature', 0, 0, 2),
    seed: t.seed === null ? null : readInteger(t.seed, 'target.seed', 42, 0),
    requestTimeoutSeconds: readInteger(t.requestTimeoutSeconds, 'target.requestTimeoutSeconds', 600, 1, 86_400),
    // A loaded server can queue a request for minutes before its first token, but it sends the
    // response head as soon as it accepts the request, and vLLM/SGLang write a chunk per decode step.
    connectTimeoutSeconds: readNumber(t.connectTimeoutSeconds, 'target.connectTimeoutSeconds', 10, 0, 3600),
    firstByteTimeoutSeconds: readNumber(t.firstByteTimeoutSeconds, 'target.firstByteTimeoutSeconds', 60, 0, 86_400),
    idleTimeoutSeconds: readNumber(t.idleTimeoutSeconds, 'target.idleTimeoutSeconds', 120, 0, 86_400),
    metricsUrl: t.metricsUrl === undefined ? `${origin}/metrics` : readNullableString(t.metricsUrl, 'target.metricsUrl', null),
    powerMetricsUrl: readNullableString(t.powerMetricsUrl, 'target.powerMetricsUrl', null),
    insecureSkipTLSVerify: readBoolean(t.insecureSkipTLSVerify, 'target.insecureSkipTLSVerify', false),
  };
  const p = readObject(input.prompts, 'prompts', ['mode', 'file']);
  const prompts = { mode: readEnum(p.mode, 'prompts.mode', PROMPT_MODES, 'unique'), file: readNullableString(p.file, 'prompts.file', null) };
  const useCases = readUseCases(input.useCases);
  const s = readObject(input.schedule, 'schedule', ['gapSeconds', 'prefillTokensPerSecond', 'decodeTokensPerSecond', 'safetyFactor', 'minCellSeconds', 'cellSeconds', 'predictedCellSeconds']);
  const predicted = s.predictedCellSeconds === null ? {} : readObject(s.predictedCellSeconds, 'schedule.predictedCellSeconds', Object.keys(isObject(s.predictedCellSeconds) ? s.predictedCellSeconds : {}));
  const schedule: ScheduleConfig = {
    gapSeconds: readNumber(s.gapSeconds, 'schedule.gapSeconds', 2, 0, 3600),
    prefillTokensPerSecond: readNumber(s.prefillTokensPerSecond, 'schedule.prefillTokensPerSecond', 5000, 1),
    decodeTokensPerSecond: readNumber(s.decodeTokensPerSecond, 'schedule.decodeTokensPerSecond', 50, 0.1),
    safetyFactor: readNumber(s.safetyFactor, 'schedule.safetyFactor', 2, 1, 100),
    minCellSeconds: readInteger(s.minCellSeconds, 'schedule.minCellSeconds', 10, 1, 86_400),
    cellSeconds: s.cellSeconds === undefined || s.cellSeconds === null ? null : readInteger(s.cellSeconds, 'schedule.cellSeconds', 60, 1, 86_400),
    predictedCellSeconds: s.predictedCellSeconds === undefined || s.predictedCellSeconds === null
      ? null
      : Object.fromEntries(Object.keys(predicted).map((id) => [id, readNumber(predicted[id], `schedule.predictedCellSeconds.${id}`, 0, 0)])),
  };
  const m = readObject(input.monitor, 'monitor', ['enabled', 'intervalSeconds']);
  const monitor: MonitorConfig = {
    enabled: readBoolean(m.enabled, 'monitor.enabled', target.metricsUrl !== null),
    intervalSeconds: readNumber(m.intervalSeconds, 'monitor.intervalSeconds', 1, 0.1, 3600),
  };
  let gate: GateConfig | null = null;
  if (script === 'gate' || input.gate !== undefined) {
    const g = readObject(input.gate, 'gate', ['useCase', 'concurrency', 'rounds', 'minSuccessRate']);
    const useCase = readEnum(g.useCase, 'gate.useCase', useCases.map((u) => u.id), 'general_chatbot');
    gate = {
      useCase,
      concurrency: readInteger(g.concurrency, 'gate.concurrency', 4, 1, 4096),
      rounds: readInteger(g.rounds, 'gate.rounds', 2, 1, 10_000),
      minSuccessRate: readNumber(g.minSuccessRate, 'gate.minSuccessRate', 0.99, 0, 1),
    };
  }
  const trendStats = input.summaryTrendStats === undefined ? [...SUMMARY_TREND_STATS] : readStringList(input.summaryTrendStats, 'summaryTrendStats', [], input.summaryTrendStats as string[]);
  for (const required of SUMMARY_TREND_STATS) {
    if (!trendStats.includes(required)) fail('summaryTrendStats', `must include "${required}" (the report reads it)`);
  }
  const search = script === 'capacity' ? readSearch(input.capacity, useCases) : null;
  const drafts = buildDrafts(script, input, useCases, gate, search);
  // A cell id is a k6 scenario name: two cells with one id would silently become one scenario.
  const ids = new Set<string>();
  for (const d of drafts) {
    if (ids.has(d.id)) fail(script, `gives two cells the id "${d.id}": remove the repeated value (ids round token counts, so 1000 and 1024 are both "1k")`);
    ids.add(d.id);
  }
  const { cells, totalSeconds } = scheduleCells(drafts, schedule);
  const burst = readObject(input.burst, 'burst', ['profiles', 'depths', 'ttftLimitMs']);
  return {
    schemaVersion: PLAN_SCHEMA_VERSION,
    name: input.name === undefined ? script : readName(input.name, 'name'),
    script,
    target,
    prompts,
    limitStat: readEnum(input.limitStat, 'limitStat', LIMIT_STATS, 'avg'),
    useCases,
    burstTtftLimitMs: readNumber(burst.ttftLimitMs, 'burst.ttftLimitMs', BURST_TTFT_LIMIT_MS, 1),
    gate,
    search,
    schedule,
    monitor,
    summaryTrendStats: trendStats,
    cells,
    totalSeconds,
  };
}

/** Reads a resolved plan back (plan.json), checking its schema version. */
export function readResolvedPlan(raw: Json): Plan {
  if (!isObject(raw) || raw.schemaVersion !== PLAN_SCHEMA_VERSION || !Array.isArray(raw.cells)) {
    throw new PlanError(`plan.json: not a resolved plan of schema version ${PLAN_SCHEMA_VERSION} (was it written by this suite?)`);
  }
  return raw as unknown as Plan;
}

