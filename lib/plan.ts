// The plan: what a run measures (target, cells, limits, schedule), validated once and resolved into sequential cells.
// Runs in k6 and Node.
//
// The plan is the single source of truth: the k6 options, the bench and the report all read
// the same resolved plan (written as plan.json beside the results), so a report can say exactly what ran.

import type * as v from 'valibot';
import { findMixProfile, type UseCase } from '../thresholds/use-cases';
import { arrivalCount, type ArrivalSpec } from './arrivals';
import { PLAN_DEFAULTS } from './plan-defaults';
import {
  API_STYLES,
  LIMIT_STATS,
  PLAN_SCHEMA_VERSION,
  PROMPT_MODES,
  planInputSchema,
  ResolvedPlanHeader,
  SCRIPT_NAMES,
  resolvedPlanSchema,
  useCaseRefs,
  type ParsedPlanInput,
  type ScriptName,
} from './plan-schema';
import { parseOrThrow, type Parsed } from './schema';
import { resolveSessions, sessionDrafts, sessionSearchConfig, sessionSlot, type SessionsConfig } from './plan-sessions';
import { loadReplay, type ReplaySummary } from './trace-replay';
import { embedDrafts } from './plan-embed';
import { TraceError } from './trace/types';

export { API_STYLES, LIMIT_STATS, PLAN_SCHEMA_VERSION, PROMPT_MODES, SCRIPT_NAMES, type ScriptName };

// The plan's types are read off its schemas (lib/plan-schema.ts), where each field is documented,
// so the checks and the types cannot drift apart and the import goes one way: plan.ts -> plan-schema.ts.

export type ApiStyle = (typeof API_STYLES)[number];

/**
 * How an API's prompt is counted: 'chat' inside the model's chat template (a list of messages: chat, Responses,
 * Messages; the server renders them alike), 'completions' as the raw text.
 */
export type PromptForm = 'chat' | 'completions';

export function promptForm(api: ApiStyle): PromptForm {
  return api === 'completions' ? 'completions' : 'chat';
}

/** How a plan's prompts are counted: an embed plan's inputs are raw text, whatever API the other scripts use. */
export function planPromptForm(plan: Pick<Plan, 'script' | 'target'>): PromptForm {
  return plan.script === 'embed' ? 'completions' : promptForm(plan.target.api);
}
/**
 * unique: every request gets a unique prefix so prefix caching cannot hide prefill; shared-prefix: identical prompts,
 * to measure caching.
 */
export type PromptMode = (typeof PROMPT_MODES)[number];
/**
 * Which per-cell statistic a use-case limit is checked on. The published capacity reports use the average
 * (docs/design/simulator-model.md, "Calibration targets").
 */
export type LimitStat = (typeof LIMIT_STATS)[number];

/** A resolved plan, as resolvePlan returns it and plan.json holds it. */
export type Plan = Parsed<ReturnType<typeof resolvedPlanSchema>>;
export type TargetConfig = Plan['target'];
/**
 * One measurement cell: one k6 scenario, N concurrent closed-loop users for `rounds` requests each, or (a rate cell)
 * one VU sending its `arrivals` schedule open-loop.
 */
export type Cell = Plan['cells'][number];
/** N prompt groups of P shared tokens each (plan prompts.prefixGroups, docs/guides/prefix-groups.md). */
export type PrefixGroups = NonNullable<Plan['prompts']['prefixGroups']>;
/**
 * The scripts whose requests take the prepared prompts, and so the prefix groups; the sessions script builds
 * conversations and the trace script each row's blocks, so they leave prompts.prefixGroups out (null in plan.json).
 */
export const PREFIX_GROUP_SCRIPTS: readonly ScriptName[] = ['sweep', 'capacity', 'burst', 'mix', 'gate', 'rate'];

/** Whether a plan builds prompts of one-token words (lib/block-prompt.ts): its prompt set then needs those words. */
export function usesBlockPrompts(plan: Pick<Plan, 'trace' | 'prompts'>): boolean {
  return plan.trace !== null || plan.prompts.prefixGroups !== null;
}
/** A rate cell's arrival schedule, or a trace cell's speed. */
export type CellArrivals = NonNullable<Cell['arrivals']>;
/** The trace a trace script replays, and what it was (plan.json's `trace`). */
export type TraceConfig = NonNullable<Plan['trace']>;

/** A rate cell's arrivals as lib/arrivals.ts draws them; a trace cell's times come from its trace instead. */
export function drawnArrivals(a: CellArrivals): ArrivalSpec {
  const { process } = a;
  if (process === 'trace') throw new Error('a trace cell replays its trace: its send times are not drawn');
  return { ...a, process };
}
/** How the bench ran a step (the report says how each figure was measured). */
export type DrivenStepInfo = NonNullable<Cell['driven']>;
export type ScheduleConfig = Plan['schedule'];
export type MonitorConfig = Plan['monitor'];
/** How `npm run bench` searches each use case's capacity (docs/design/architecture.md, "Bench-driven runs"). */
export type CapacitySearchConfig = NonNullable<Plan['search']>;

/** The search's step width that counts as exact at n users: 1 below exactBelow, else resolutionPercent of n. */
export function resolutionAt(n: number, cfg: Pick<CapacitySearchConfig, 'exactBelow' | 'resolutionPercent'>): number {
  return n < cfg.exactBelow ? 1 : Math.max(1, Math.floor((n * cfg.resolutionPercent) / 100));
}
export type GateConfig = NonNullable<Plan['gate']>;
/** The embed script's kind and latency limit (plan.json's `embed`). */
export type EmbedConfig = NonNullable<Plan['embed']>;

/** The part of a plan a user writes (JSON file or env); everything is optional. Defaults in lib/plan-defaults.ts. */
export type PlanInput = v.InferInput<ReturnType<typeof planInputSchema>>;

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

export type CellDraft = Omit<Cell, 'startSeconds' | 'maxDurationSeconds' | 'gracefulStopSeconds' | 'warmupRounds'> & {
  warmupRounds?: number;
};

/**
 * How per-user decode speed falls with concurrency N: speed(N) = speed(1) / N^0.4. Fitted to the
 * published Qwen3-Coder-30B-A3B / H200 points of docs/design/simulator-model.md, "Calibration targets"
 * (165 tok/s alone, 100 at 6 users, 25 at 75, 21 at 125).
 */
export const DECODE_SLOWDOWN_EXPONENT = 0.4;

/**
 * Estimated seconds for one request of a cell, from the expected single-request speeds: all N
 * prefills may run back to back (the worst case, for the last request), then decode at the
 * per-user speed of N concurrent users. Only sizes time slots; never used as a measurement.
 */
export function estimateRequestSeconds(
  draft: Pick<Cell, 'contextTokens' | 'outputTokens' | 'concurrency'> & { batch?: number }, s: ScheduleConfig,
): number {
  // An embed request's prompt is its whole batch (lib/plan-embed.ts).
  const prefill = (draft.contextTokens * (draft.batch ?? 1) * draft.concurrency) / s.prefillTokensPerSecond;
  const decode = draft.outputTokens / (s.decodeTokensPerSecond / Math.pow(draft.concurrency, DECODE_SLOWDOWN_EXPONENT));
  return prefill + decode;
}

function scheduleCells(
  drafts: readonly CellDraft[], s: ScheduleConfig, sessions: SessionsConfig | null,
): { cells: Cell[]; totalSeconds: number } {
  let start = 0;
  const cells: Cell[] = [];
  const requestSeconds = (contextTokens: number, outputTokens: number, concurrency: number): number =>
    estimateRequestSeconds({ contextTokens, outputTokens, concurrency }, s);
  for (const d of drafts) {
    if (d.script === 'sessions' && sessions) {
      // A step of active users holds its timing, whatever its requests take (lib/plan-sessions.ts).
      const slot = sessionSlot({ ...d, script: 'sessions', useCase: d.useCase!, profile: null }, sessions, requestSeconds, s.safetyFactor);
      cells.push({ ...d, warmupRounds: 0, startSeconds: start, ...slot });
      start += slot.maxDurationSeconds + slot.gracefulStopSeconds + s.gapSeconds;
      continue;
    }
    if (d.arrivals) {
      const slot = rateSlot(d, d.arrivals.durationSeconds, s);
      cells.push({ ...d, warmupRounds: 0, startSeconds: start, ...slot });
      start += slot.maxDurationSeconds + slot.gracefulStopSeconds + s.gapSeconds;
      continue;
    }
    const predicted = s.predictedCellSeconds?.[d.id];
    const perRequest = predicted !== undefined ? predicted / d.rounds : estimateRequestSeconds(d, s);
    const slot = s.cellSeconds ?? Math.max(s.minCellSeconds, Math.ceil(perRequest * d.rounds * s.safetyFactor));
    // In-flight requests may finish after the slot ends: for up to one more estimated request, or,
    // when a model predicted the cell, for the share of one request the safety factor allows.
    const graceful =
      predicted !== undefined
        ? Math.max(1, Math.ceil(perRequest * (s.safetyFactor - 1)) + 1)
        : Math.max(1, Math.ceil(perRequest * s.safetyFactor));
    cells.push({ ...d, warmupRounds: d.warmupRounds ?? 0, startSeconds: start, maxDurationSeconds: slot, gracefulStopSeconds: graceful });
    start += slot + graceful + s.gapSeconds;
  }
  return { cells, totalSeconds: Math.max(0, start - s.gapSeconds) };
}

/**
 * A rate cell's slot: its schedule's duration, then time for its last requests (one request alone, times the safety
 * factor), then a second's grace. Requests still queued then are cut, and the report counts them as failed: the
 * time a request may take is already in the slot, so k6's graceful stop need not add it again.
 */
function rateSlot(
  d: Pick<Cell, 'contextTokens' | 'outputTokens'>, durationSeconds: number, s: ScheduleConfig,
): Pick<Cell, 'maxDurationSeconds' | 'gracefulStopSeconds'> {
  const tail = Math.max(1, Math.ceil(estimateRequestSeconds({ ...d, concurrency: 1 }, s) * s.safetyFactor));
  return { maxDurationSeconds: durationSeconds + tail, gracefulStopSeconds: RATE_GRACE_SECONDS };
}

const RATE_GRACE_SECONDS = 1;

/** Requests a cell sends when it runs to its end: its schedule's (rate cell), else users x rounds, warm-up included. */
export function cellRequests(cell: Pick<Cell, 'concurrency' | 'rounds' | 'arrivals'>): number {
  return cell.arrivals ? cell.arrivals.requests : cell.concurrency * cell.rounds;
}

/** "2", "0_5": a rate in requests per second as a cell id has it. */
export function formatRate(rate: number): string {
  return String(rate).replace('.', '_');
}

/** The capacity search's settings, from the capacity section (maxUsers one number for every use case, or one each). */
function searchConfig(c: ParsedPlanInput['capacity'], useCases: readonly UseCase[]): CapacitySearchConfig {
  const maxUsers = Object.fromEntries(useCases.map((u) => [
    u.id, typeof c.maxUsers === 'number' ? c.maxUsers : (c.maxUsers[u.id] ?? PLAN_DEFAULTS.capacity.maxUsers),
  ]));
  return {
    warmupRequests: c.warmupRequests,
    minRequestsPerUser: c.rounds,
    minMeasuredSeconds: c.minMeasuredSeconds,
    startUsers: c.startUsers,
    maxUsers,
    exactBelow: c.exactBelow,
    resolutionPercent: c.resolutionPercent,
    maxRepeats: c.maxRepeats,
  };
}

function buildDrafts(
  script: ScriptName, input: ParsedPlanInput, useCases: readonly UseCase[], gate: GateConfig | null,
  search: CapacitySearchConfig | null, sessions: SessionsConfig | null, trace: TraceConfig | null,
): CellDraft[] {
  const drafts: CellDraft[] = [];
  switch (script) {
    case 'trace':
      return traceDrafts(trace!, input.trace!.speeds);
    case 'sessions':
      return sessionDrafts(input.sessions, sessions!);
    case 'sweep': {
      const { contexts, concurrencies, rounds, outputTokens } = input.sweep;
      for (const contextTokens of contexts) {
        for (const concurrency of concurrencies) {
          drafts.push({
            id: `sweep_c${formatTokens(contextTokens)}_o${formatTokens(outputTokens)}_n${concurrency}`, script,
            contextTokens, outputTokens, concurrency, rounds, useCase: null, profile: null,
          });
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
          drafts.push({
            id: `capacity_${id}_n${concurrency}`, script, contextTokens: uc.contextTokens, outputTokens, concurrency,
            rounds, warmupRounds: s.warmupRequests, useCase: id, profile: null,
          });
        }
      }
      break;
    }
    case 'burst': {
      for (const pid of input.burst.profiles) {
        const p = findMixProfile(pid)!;
        for (const depth of input.burst.depths) {
          drafts.push({
            id: `burst_${pid}_q${depth}`, script, contextTokens: p.contextTokens, outputTokens: p.outputTokens,
            concurrency: depth, rounds: 1, useCase: null, profile: pid,
          });
        }
      }
      break;
    }
    case 'mix': {
      for (const pid of input.mix.profiles) {
        const p = findMixProfile(pid)!;
        for (const concurrency of input.mix.concurrencies) {
          drafts.push({
            id: `mix_${pid}_n${concurrency}`, script, contextTokens: p.contextTokens, outputTokens: p.outputTokens,
            concurrency, rounds: input.mix.rounds, useCase: null, profile: pid,
          });
        }
      }
      break;
    }
    case 'rate':
      return rateDrafts(input, useCases);
    case 'embed':
      return embedDrafts(input.embed);
    case 'gate': {
      const g = gate as GateConfig;
      const uc = useCases.find((u) => u.id === g.useCase) as UseCase;
      drafts.push({
        id: `gate_${uc.id}_n${g.concurrency}`, script, contextTokens: uc.contextTokens, outputTokens: uc.outputTokens,
        concurrency: g.concurrency, rounds: g.rounds, useCase: uc.id, profile: null,
      });
      break;
    }
  }
  return drafts;
}

/** The rate script's cells: each use case at each rate, one VU sending the cell's arrival schedule. */
function rateDrafts(input: ParsedPlanInput, useCases: readonly UseCase[]): CellDraft[] {
  const r = input.rate;
  const drafts: CellDraft[] = [];
  for (const id of r.useCases ?? useCases.map((u) => u.id)) {
    const uc = useCases.find((u) => u.id === id)!;
    const rates = Array.isArray(r.rates) ? r.rates : (r.rates[id] ?? PLAN_DEFAULTS.rate.rates);
    for (const rate of rates) {
      // Each cell its own draws (the plan's seed plus its place), so no two cells replay one sequence rescaled.
      const spec = {
        process: r.arrival, ratePerSecond: rate, rampFromPerSecond: r.rampFromRate, durationSeconds: r.durationSeconds,
        burstiness: r.arrival === 'poisson' ? 1 : r.burstiness, seed: (r.seed + drafts.length) % 2 ** 32,
      };
      drafts.push({
        id: `rate_${id}_r${formatRate(rate)}`, script: 'rate', contextTokens: uc.contextTokens,
        outputTokens: uc.outputTokens, concurrency: 1, rounds: 1, useCase: id, profile: null,
        arrivals: { ...spec, requests: arrivalCount(spec), lagLimitMs: r.lagLimitMs },
      });
    }
  }
  return drafts;
}

/**
 * The trace script's cells: the trace at each speed, one VU sending its rows at their times divided by the speed.
 * Sized by the trace's longest request, so the slot holds the slowest row's tail.
 */
function traceDrafts(trace: TraceConfig, speeds: readonly number[]): CellDraft[] {
  const s = trace.summary;
  return speeds.map((speed) => {
    const seconds = s.stats.durationMs / 1000 / speed;
    return {
      id: `trace_s${formatRate(speed)}`, script: 'trace', contextTokens: s.stats.inputTokens!.max,
      outputTokens: s.stats.outputTokens!.max, concurrency: 1, rounds: 1, useCase: trace.useCase, profile: null,
      arrivals: {
        process: 'trace', speed, ratePerSecond: seconds > 0 ? s.stats.rows / seconds : s.stats.rows,
        rampFromPerSecond: null, durationSeconds: Math.max(1, Math.ceil(seconds)), burstiness: 1, seed: 0,
        requests: s.stats.rows, lagLimitMs: trace.lagLimitMs,
      },
    };
  });
}

/**
 * Reads the plan's trace for the trace script; `readText` opens a file (k6's open, Node's readFileSync). Bad rows,
 * an empty window or an unreadable file are one-line PlanErrors.
 */
function resolveTrace(
  input: ParsedPlanInput, script: ScriptName, readText: ((path: string) => string) | undefined,
): TraceConfig | null {
  if (script !== 'trace') return null;
  const t = input.trace;
  if (!t) throw new PlanError('the trace script needs a trace: plan field "trace.file" (npm run bench -- --trace FILE)');
  if (!readText) throw new PlanError('the trace script needs its trace file read where the plan is resolved');
  let text: string;
  try {
    text = readText(t.file);
  } catch (e) {
    throw new PlanError(`trace file "${t.file}" cannot be read: ${String(e instanceof Error ? e.message : e)}`);
  }
  const { speeds: _speeds, ...source } = t;
  let summary: ReplaySummary;
  try {
    summary = loadReplay(text, source).summary;
  } catch (e) {
    if (e instanceof TraceError) throw new PlanError(e.message);
    throw e;
  }
  return { ...source, format: summary.format, summary };
}

/** The plan's prefix groups for a script that uses them: each cell's prompt must have room for a suffix. */
function resolvePrefixGroups(
  prompts: ParsedPlanInput['prompts'], script: ScriptName, cells: readonly Cell[],
): PrefixGroups | null {
  const groups = prompts.prefixGroups;
  if (groups === null || !PREFIX_GROUP_SCRIPTS.includes(script)) return null;
  if (prompts.mode === 'shared-prefix')
    throw planFieldError('prompts.mode', 'must be unique with prompts.prefixGroups, which gives prompts their prefixes');
  const short = cells.find((c) => c.contextTokens <= groups.prefixTokens);
  if (short)
    throw planFieldError(
      'prompts.prefixGroups.prefixTokens',
      `must be below every cell's context length, got ${groups.prefixTokens} with cell ${short.id} of ` +
      `${short.contextTokens} tokens`,
    );
  return groups;
}

function planFieldError(field: string, message: string): PlanError {
  return new PlanError(`plan field "${field}" ${message}`);
}

/**
 * Validates a plan input (parsed JSON) for one entry script and resolves it into sequential cells.
 * Throws PlanError with a one-line message naming the bad field.
 */
export function resolvePlan(raw: unknown, script: ScriptName, readText?: (path: string) => string): Plan {
  const input = parseOrThrow(planInputSchema(), raw ?? {}, planFieldError);
  const useCases = input.useCases;
  const ids = useCases.map((u) => u.id);
  const gate = input.gate ?? (script === 'gate' ? { ...PLAN_DEFAULTS.gate } : null);
  const [refs, named] = useCaseRefs(ids, input, gate, script);
  parseOrThrow(refs, named, planFieldError);
  const t = input.target;
  const origin = /^https?:\/\/[^/]+/.exec(t.baseUrl)?.[0] ?? t.baseUrl;
  const target: TargetConfig = { ...t, metricsUrl: t.metricsUrl === undefined ? `${origin}/metrics` : t.metricsUrl };
  if (script === 'sessions' && promptForm(target.api) !== 'chat')
    throw planFieldError('target.api', 'must be chat, responses or messages for the sessions script: a conversation is a list of messages');
  const sessions = script === 'sessions' ? resolveSessions(input.sessions, useCases) : null;
  const search =
    script === 'capacity'
      ? searchConfig(input.capacity, useCases)
      : script === 'sessions' ? sessionSearchConfig(input.sessions, useCases) : null;
  const trace = resolveTrace(input, script, readText);
  const drafts = buildDrafts(script, input, useCases, gate, search, sessions, trace);
  // A cell id is a k6 scenario name: two cells with one id would silently become one scenario.
  const seen = new Set<string>();
  for (const d of drafts) {
    if (seen.has(d.id))
      throw planFieldError(
        script,
        `gives two cells the id "${d.id}": remove the repeated value (ids round token counts, so 1000 and 1024 are both "1k")`,
      );
    seen.add(d.id);
  }
  const { cells, totalSeconds } = scheduleCells(drafts, input.schedule, sessions);
  return {
    schemaVersion: PLAN_SCHEMA_VERSION,
    name: input.name ?? script,
    script,
    target,
    prompts: { ...input.prompts, prefixGroups: resolvePrefixGroups(input.prompts, script, cells) },
    limitStat: input.limitStat,
    minGoodput: input.minGoodput,
    useCases,
    burstTtftLimitMs: input.burst.ttftLimitMs,
    gate,
    search,
    sessions,
    trace,
    embed: script === 'embed' ? { kind: input.embed.kind, limit: input.embed.limit } : null,
    schedule: input.schedule,
    monitor: { enabled: input.monitor.enabled ?? target.metricsUrl !== null, intervalSeconds: input.monitor.intervalSeconds },
    summaryTrendStats: input.summaryTrendStats,
    cells,
    totalSeconds,
  };
}

/** Reads a resolved plan back (plan.json) through the same field checks as a plan input, after its schema version. */
export function readResolvedPlan(raw: unknown): Plan {
  parseOrThrow(
    ResolvedPlanHeader, raw,
    () =>
      new PlanError(
        `plan.json: not a resolved plan of schema version ${PLAN_SCHEMA_VERSION} (was it written by this suite?)`,
      ),
  );
  return parseOrThrow(resolvedPlanSchema(), raw, (field, message) => new PlanError(`plan.json field "${field}" ${message}`));
}
