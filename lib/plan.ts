// The plan: what a run measures (target, cells, limits, schedule), validated once and resolved into sequential cells. Runs in k6 and Node.
//
// The plan is the single source of truth: the k6 options, the bench and the report all read
// the same resolved plan (written as plan.json beside the results), so a report can say exactly what ran.

import { findMixProfile, type UseCase } from '../thresholds/use-cases';
import { PLAN_DEFAULTS } from './plan-defaults';
import { API_STYLES, LIMIT_STATS, PLAN_SCHEMA_VERSION, PROMPT_MODES, PlanInputSchema, ResolvedPlanHeader, SCRIPT_NAMES, resolvedPlanSchema, useCaseRefs, type ParsedPlanInput } from './plan-schema';
import { parseOrThrow } from './schema';

export { API_STYLES, LIMIT_STATS, PLAN_SCHEMA_VERSION, PROMPT_MODES, SCRIPT_NAMES };

export type ScriptName = (typeof SCRIPT_NAMES)[number];
export type ApiStyle = (typeof API_STYLES)[number];
/** unique: every request gets a unique prefix so prefix caching cannot hide prefill; shared-prefix: identical prompts, to measure caching. */
export type PromptMode = (typeof PROMPT_MODES)[number];
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

/** The part of a plan a user writes (JSON file or env); everything is optional. Checked by PlanInputSchema (lib/plan-schema.ts); defaults in lib/plan-defaults.ts. */
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
  summaryTrendStats?: string[];
}

/** Bad input from the user: a plan, an environment value or a prompts file. One line, no stack. */
export class PlanError extends Error {
  override name = 'PlanError';
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

/** The capacity search's settings, from the capacity section (maxUsers one number for every use case, or one each). */
function searchConfig(c: ParsedPlanInput['capacity'], useCases: readonly UseCase[]): CapacitySearchConfig {
  const maxUsers = Object.fromEntries(useCases.map((u) => [u.id, typeof c.maxUsers === 'number' ? c.maxUsers : (c.maxUsers[u.id] ?? PLAN_DEFAULTS.capacity.maxUsers)]));
  return {
    warmupRequests: c.warmupRequests,
    minRequestsPerUser: c.rounds,
    minMeasuredSeconds: c.minMeasuredSeconds,
    startUsers: c.startUsers,
    maxUsers,
    exactBelow: c.exactBelow,
    resolutionPercent: c.resolutionPercent,
  };
}

function buildDrafts(script: ScriptName, input: ParsedPlanInput, useCases: readonly UseCase[], gate: GateConfig | null, search: CapacitySearchConfig | null): CellDraft[] {
  const drafts: CellDraft[] = [];
  switch (script) {
    case 'sweep': {
      const { contexts, concurrencies, rounds, outputTokens } = input.sweep;
      for (const contextTokens of contexts) {
        for (const concurrency of concurrencies) {
          drafts.push({ id: `sweep_c${formatTokens(contextTokens)}_o${formatTokens(outputTokens)}_n${concurrency}`, script, contextTokens, outputTokens, concurrency, rounds, useCase: null, profile: null });
        }
      }
      break;
    }
    case 'capacity': {
      const c = input.capacity;
      const s = search as CapacitySearchConfig;
      const rounds = s.warmupRequests + s.minRequestsPerUser;
      for (const id of c.useCases ?? useCases.map((u) => u.id)) {
        const uc = useCases.find((u) => u.id === id) as UseCase;
        const outputTokens = c.outputTokens[id] ?? uc.outputTokens;
        for (const concurrency of c.concurrencies[id] ?? uc.concurrencies) {
          drafts.push({ id: `capacity_${id}_n${concurrency}`, script, contextTokens: uc.contextTokens, outputTokens, concurrency, rounds, warmupRounds: s.warmupRequests, useCase: id, profile: null });
        }
      }
      break;
    }
    case 'burst': {
      for (const pid of input.burst.profiles) {
        const p = findMixProfile(pid)!;
        for (const depth of input.burst.depths) {
          drafts.push({ id: `burst_${pid}_q${depth}`, script, contextTokens: p.contextTokens, outputTokens: p.outputTokens, concurrency: depth, rounds: 1, useCase: null, profile: pid });
        }
      }
      break;
    }
    case 'mix': {
      for (const pid of input.mix.profiles) {
        const p = findMixProfile(pid)!;
        for (const concurrency of input.mix.concurrencies) {
          drafts.push({ id: `mix_${pid}_n${concurrency}`, script, contextTokens: p.contextTokens, outputTokens: p.outputTokens, concurrency, rounds: input.mix.rounds, useCase: null, profile: pid });
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

function planFieldError(field: string, message: string): PlanError {
  return new PlanError(`plan field "${field}" ${message}`);
}

/**
 * Validates a plan input (parsed JSON) for one entry script and resolves it into sequential cells.
 * Throws PlanError with a one-line message naming the bad field.
 */
export function resolvePlan(raw: unknown, script: ScriptName): Plan {
  const input = parseOrThrow(PlanInputSchema, raw ?? {}, planFieldError);
  const useCases = input.useCases;
  const ids = useCases.map((u) => u.id);
  const gate = input.gate ?? (script === 'gate' ? { ...PLAN_DEFAULTS.gate } : null);
  const [refs, named] = useCaseRefs(ids, input, gate, script);
  parseOrThrow(refs, named, planFieldError);
  const t = input.target;
  const origin = /^https?:\/\/[^/]+/.exec(t.baseUrl)?.[0] ?? t.baseUrl;
  const target: TargetConfig = { ...t, metricsUrl: t.metricsUrl === undefined ? `${origin}/metrics` : t.metricsUrl };
  const search = script === 'capacity' ? searchConfig(input.capacity, useCases) : null;
  const drafts = buildDrafts(script, input, useCases, gate, search);
  // A cell id is a k6 scenario name: two cells with one id would silently become one scenario.
  const seen = new Set<string>();
  for (const d of drafts) {
    if (seen.has(d.id)) throw planFieldError(script, `gives two cells the id "${d.id}": remove the repeated value (ids round token counts, so 1000 and 1024 are both "1k")`);
    seen.add(d.id);
  }
  const { cells, totalSeconds } = scheduleCells(drafts, input.schedule);
  return {
    schemaVersion: PLAN_SCHEMA_VERSION,
    name: input.name ?? script,
    script,
    target,
    prompts: input.prompts,
    limitStat: input.limitStat,
    useCases,
    burstTtftLimitMs: input.burst.ttftLimitMs,
    gate,
    search,
    schedule: input.schedule,
    monitor: { enabled: input.monitor.enabled ?? target.metricsUrl !== null, intervalSeconds: input.monitor.intervalSeconds },
    summaryTrendStats: input.summaryTrendStats,
    cells,
    totalSeconds,
  };
}

/** Reads a resolved plan back (plan.json) through the same field checks as a plan input, after its schema version. */
export function readResolvedPlan(raw: unknown): Plan {
  parseOrThrow(ResolvedPlanHeader, raw, () => new PlanError(`plan.json: not a resolved plan of schema version ${PLAN_SCHEMA_VERSION} (was it written by this suite?)`));
  return parseOrThrow(resolvedPlanSchema(), raw, (field, message) => new PlanError(`plan.json field "${field}" ${message}`));
}
