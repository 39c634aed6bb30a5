// The plan: what a run measures (target, cells, limits, schedule), validated once and resolved into sequential cells.
// Runs in k6 and Node.
//
// The plan is the single source of truth: the k6 options, the bench and the report all read
// the same resolved plan (written as plan.json beside the results), so a report can say exactly what ran.

import * as v from 'valibot';
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
import { parseOrThrow } from './schema';
import { agenticDrafts, resolveAgentic, type AgenticConfig } from './plan-agentic';
import { resolveSessions, sessionDrafts, sessionSearchConfig, type SessionsConfig } from './plan-sessions';
import { formatRate, formatTokens, scheduleCells, type CellDraft } from './plan-schedule';
import { loadReplay, type ReplaySummary } from './trace-replay';
import { loadAgentTrace } from './agent-trace';
import { embedDrafts } from './plan-embed';
import { TraceError } from './trace/types';

export { API_STYLES, LIMIT_STATS, PLAN_SCHEMA_VERSION, PROMPT_MODES, SCRIPT_NAMES, type ScriptName };
export type {
  ApiStyle, CapacitySearchConfig, Cell, CellArrivals, DrivenStepInfo, EmbedConfig, GateConfig, LimitStat, MonitorConfig,
  Plan, PlanInput, PrefixGroups, PromptMode, ScheduleConfig, TargetConfig, TraceConfig,
} from './plan-types';
export {
  cellRequests, DECODE_SLOWDOWN_EXPONENT, estimateRequestSeconds, formatRate, formatTokens, type CellDraft,
} from './plan-schedule';
import type {
  ApiStyle, CapacitySearchConfig, Cell, CellArrivals, GateConfig, Plan, PrefixGroups, ScheduleConfig,
  TargetConfig, TraceConfig,
} from './plan-types';

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
 * The scripts whose requests take the prepared prompts, and so the prefix groups; the sessions script builds
 * conversations and the trace script each row's blocks, so they leave prompts.prefixGroups out (null in plan.json).
 */
export const PREFIX_GROUP_SCRIPTS: readonly ScriptName[] = ['sweep', 'capacity', 'burst', 'mix', 'gate', 'rate'];

/** Whether a plan builds prompts of one-token words (lib/block-prompt.ts): its prompt set then needs those words. */
export function usesBlockPrompts(plan: Pick<Plan, 'trace' | 'prompts' | 'agentic'>): boolean {
  return plan.trace !== null || plan.prompts.prefixGroups !== null || plan.agentic !== null;
}

/**
 * Whether a cell sends a prepared prompt of its context length: a trace cell's prompts are built per row from the
 * vocabulary (its context is only the longest row's), an agentic cell's from its words.
 */
export function takesPreparedPrompt(cell: Pick<Cell, 'script'>): boolean {
  return cell.script !== 'trace' && cell.script !== 'agentic';
}

/** A rate cell's arrivals as lib/arrivals.ts draws them; a trace cell's times come from its trace instead. */
export function drawnArrivals(a: CellArrivals): ArrivalSpec {
  const { process } = a;
  if (process === 'trace') throw new Error('a trace cell replays its trace: its send times are not drawn');
  return { ...a, process };
}

/** A trace's speed search as the resolved plan holds it: its axis is the replay speed in place of the rate. */
function traceSearchOf(input: ParsedPlanInput): Plan['rateSearch'] {
  const s = input.trace?.search;
  return s ? { startRate: s.startSpeed, maxRate: s.maxSpeed, resolutionPercent: s.resolutionPercent } : null;
}

/** The search's step width that counts as exact at n users: 1 below exactBelow, else resolutionPercent of n. */
export function resolutionAt(n: number, cfg: Pick<CapacitySearchConfig, 'exactBelow' | 'resolutionPercent'>): number {
  return n < cfg.exactBelow ? 1 : Math.max(1, Math.floor((n * cfg.resolutionPercent) / 100));
}


/** Bad input from the user: a plan, an environment value or a prompts file. One line, no stack. */
export class PlanError extends Error {
  override name = 'PlanError';
}


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
  agentic: AgenticConfig | null,
): CellDraft[] {
  const drafts: CellDraft[] = [];
  switch (script) {
    case 'agentic':
      // A search: its first step, whose cell the bench re-sizes step by step (orchestrator/agentic-search-part.ts).
      return agenticDrafts(input.agentic.search ? [input.agentic.search.startAgents] : input.agentic.agents, agentic!);
    case 'trace':
      // A searched trace: the search's first speed, whose cell the bench re-speeds step by step.
      return traceDrafts(trace!, input.trace!.search ? [input.trace!.search.startSpeed] : input.trace!.speeds);
    case 'sessions':
      return sessionDrafts(input.sessions, sessions!);
    case 'sweep':
      return sweepDrafts(input.sweep);
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

/** The sweep's grid: every context at every concurrency, but those over maxTokensInFlight beyond one user. */
function sweepDrafts(sweep: ParsedPlanInput['sweep']): CellDraft[] {
  const { contexts, concurrencies, rounds, outputTokens, maxTokensInFlight } = sweep;
  const kept = (context: number, users: number) =>
    users === 1 || maxTokensInFlight === undefined || context * users <= maxTokensInFlight;
  const cells = contexts.flatMap((contextTokens) => concurrencies
    .filter((concurrency) => kept(contextTokens, concurrency))
    .map((concurrency) => ({ contextTokens, concurrency })));
  return cells.map(({ contextTokens, concurrency }) => ({
    id: `sweep_c${formatTokens(contextTokens)}_o${formatTokens(outputTokens)}_n${concurrency}`,
    script: 'sweep' as const, contextTokens, outputTokens, concurrency, rounds, useCase: null, profile: null,
  }));
}

/**
 * A rate cell's warm-up: the plan's, at most half the cell, so that a short cell keeps most of its requests measured.
 * It is carved out of the cell, not added to it: the schedule stays exactly rate x duration requests.
 */
export function rateWarmupSeconds(warmupSeconds: number, durationSeconds: number): number {
  return Math.min(warmupSeconds, durationSeconds / 2);
}

/** The rate script's cells: each use case at each rate, `senders` VUs sending the cell's one arrival schedule. */
function rateDrafts(input: ParsedPlanInput, useCases: readonly UseCase[]): CellDraft[] {
  const r = input.rate;
  const drafts: CellDraft[] = [];
  for (const id of r.useCases ?? useCases.map((u) => u.id)) {
    const uc = useCases.find((u) => u.id === id)!;
    const ladder = Array.isArray(r.rates) ? r.rates : (r.rates[id] ?? PLAN_DEFAULTS.rate.rates);
    // A searched rate: the search's first step, whose cell the bench re-rates step by step (rateStepPlan).
    const rates = r.search ? [r.search.startRate] : ladder;
    for (const rate of rates) {
      // Each cell its own draws (the plan's seed plus its place), so no two cells replay one sequence rescaled.
      const spec = {
        process: r.arrival, ratePerSecond: rate, rampFromPerSecond: r.rampFromRate, durationSeconds: r.durationSeconds,
        burstiness: r.arrival === 'poisson' ? 1 : r.burstiness, seed: (r.seed + drafts.length) % 2 ** 32,
      };
      drafts.push({
        id: `rate_${id}_r${formatRate(rate)}`, script: 'rate', contextTokens: uc.contextTokens,
        outputTokens: uc.outputTokens, concurrency: 1, rounds: 1, useCase: id, profile: null,
        arrivals: {
          ...spec, requests: arrivalCount(spec), lagLimitMs: r.lagLimitMs, senders: r.senders,
          warmupSeconds: rateWarmupSeconds(r.warmupSeconds, r.durationSeconds),
        },
      });
    }
  }
  return drafts;
}

/**
 * The trace script's cells: the trace at each speed, one VU sending its rows at their times divided by the speed.
 * Sized by the trace's longest request, so the slot holds the slowest row's tail.
 */
export function traceDrafts(trace: TraceConfig, speeds: readonly number[]): CellDraft[] {
  const s = trace.summary;
  return speeds.map((speed) => {
    const seconds = s.stats.durationMs / 1000 / speed;
    return {
      id: `trace_s${formatRate(speed)}`, script: 'trace', contextTokens: s.stats.inputTokens!.max,
      outputTokens: s.stats.outputTokens!.max, concurrency: 1, rounds: 1, useCase: trace.useCase, profile: null,
      arrivals: {
        process: 'trace', speed, ratePerSecond: seconds > 0 ? s.stats.rows / seconds : s.stats.rows,
        rampFromPerSecond: null, durationSeconds: Math.max(1, Math.ceil(seconds)), burstiness: 1, seed: 0,
        requests: s.stats.rows, lagLimitMs: trace.lagLimitMs, senders: 1, warmupSeconds: 0,
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
  if (!t)
    throw new PlanError('the trace script needs a trace: plan field "trace.file" (npm run bench -- --trace FILE)');
  if (!readText) throw new PlanError('the trace script needs its trace file read where the plan is resolved');
  let text: string;
  try {
    text = readText(t.file);
  } catch (e) {
    throw new PlanError(`trace file "${t.file}" cannot be read: ${String(e instanceof Error ? e.message : e)}`);
  }
  const { speeds: _speeds, search: _search, ...source } = t;
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
    throw planFieldError(
      'prompts.mode', 'must be unique with prompts.prefixGroups, which gives prompts their prefixes',
    );
  const short = cells.find((c) => c.contextTokens <= groups.prefixTokens);
  if (short)
    throw planFieldError(
      'prompts.prefixGroups.prefixTokens',
      `must be below every cell's context length, got ${groups.prefixTokens} with cell ${short.id} of ` +
      `${short.contextTokens} tokens`,
    );
  return groups;
}

/**
 * The agentic section resolved, its trace loaded (`readText` opens it); its conversations need an API of messages
 * (chat, Responses, Messages: each carries tool calls in its own shape), and a gate tier must be one of the tiers.
 */
function resolveAgenticOrThrow(
  input: ParsedPlanInput['agentic'], target: TargetConfig, readText: ((path: string) => string) | undefined,
): AgenticConfig {
  if (promptForm(target.api) !== 'chat')
    throw planFieldError(
      'target.api', `must be chat, responses or messages for the agentic script (tool calls), got ${target.api}`,
    );
  const agentic = resolveAgentic(input, agentTraceOf(input.trace, readText));
  if (agentic === null)
    throw planFieldError(
      'agentic.gateTier', `is "${input.gateTier}", not one of the tiers: ${input.tiers.map((t) => t.id).join(', ')}`,
    );
  return agentic;
}

/** The agent trace a plan replays, with what it holds; its faults one-line PlanErrors. */
function agentTraceOf(
  t: ParsedPlanInput['agentic']['trace'], readText: ((path: string) => string) | undefined,
): AgenticConfig['trace'] {
  if (t === null) return null;
  if (!readText) throw new PlanError('the agentic replay needs its trace file read where the plan is resolved');
  let text: string;
  try {
    text = readText(t.file);
  } catch (e) {
    const why = String(e instanceof Error ? e.message : e);
    throw planFieldError('agentic.trace.file', `"${t.file}" cannot be read: ${why}`);
  }
  try {
    const summary = loadAgentTrace(text, t).summary;
    return { ...t, format: summary.format, summary };
  } catch (e) {
    if (e instanceof TraceError) throw new PlanError(e.message);
    throw e;
  }
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
  const target: TargetConfig = { ...t, metricsUrl: metricsUrlFor(t.baseUrl, t.metricsUrl) };
  if (script === 'sessions' && promptForm(target.api) !== 'chat')
    throw planFieldError(
      'target.api', 'must be chat, responses or messages for the sessions script: a conversation is a list of messages',
    );
  const sessions = script === 'sessions' ? resolveSessions(input.sessions, useCases) : null;
  const agentic = script === 'agentic' ? resolveAgenticOrThrow(input.agentic, target, readText) : null;
  const search =
    script === 'capacity'
      ? searchConfig(input.capacity, useCases)
      : script === 'sessions' ? sessionSearchConfig(input.sessions, useCases) : null;
  const trace = resolveTrace(input, script, readText);
  const drafts = buildDrafts(script, input, useCases, gate, search, sessions, trace, agentic);
  // A cell id is a k6 scenario name: two cells with one id would silently become one scenario.
  const seen = new Set<string>();
  for (const d of drafts) {
    if (seen.has(d.id))
      throw planFieldError(
        script,
        `gives two cells the id "${d.id}": remove the repeated value ` +
        '(ids round token counts, so 1000 and 1024 are both "1k")',
      );
    seen.add(d.id);
  }
  const { cells, totalSeconds } = scheduleCells(drafts, input.schedule, sessions, agentic);
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
    rateSearch: script === 'rate' ? input.rate.search : script === 'trace' ? traceSearchOf(input) : null,
    sessions,
    agentic,
    trace,
    embed: script === 'embed' ? { kind: input.embed.kind, limit: input.embed.limit } : null,
    schedule: input.schedule,
    monitor: {
      enabled: input.monitor.enabled ?? target.metricsUrl !== null, intervalSeconds: input.monitor.intervalSeconds,
    },
    summaryTrendStats: input.summaryTrendStats,
    cells,
    totalSeconds,
  };
}

/** The server's metrics URL: the one given (null: none), else /metrics at the base URL's origin. */
function metricsUrlFor(baseUrl: string, given: string | null | undefined): string | null {
  if (given !== undefined) return given;
  const origin = /^https?:\/\/[^/]+/.exec(baseUrl)?.[0] ?? baseUrl;
  return `${origin}/metrics`;
}

/**
 * A resolved plan pointed at the server a run started or found: its base URL and model, and the metrics URL that
 * follows the base URL unless the plan input named one (`metricsUrlGiven`, as the input held it). The bench resolves
 * before it starts a server, so that a bad field costs no start-up, and binds the server here, without resolving again.
 */
export function bindTarget(
  plan: Plan, server: { readonly baseUrl: string; readonly model: string }, metricsUrlGiven: string | null | undefined,
): Plan {
  const metricsUrl = metricsUrlFor(server.baseUrl, metricsUrlGiven);
  return { ...plan, target: { ...plan.target, baseUrl: server.baseUrl, model: server.model, metricsUrl } };
}

/**
 * A resolved plan with its cells' time slots sized again from new speeds (a probe's, a model's predictions):
 * the cells stay those the plan resolved, only their start, slot and grace change.
 */
export function reschedulePlan(plan: Plan, schedule: ScheduleConfig): Plan {
  return { ...plan, schedule, ...scheduleCells(plan.cells, schedule, plan.sessions, plan.agentic) };
}

/** Whether parsed JSON is a resolved plan of this schema version (a run's plan.json) rather than a plan input. */
export function isResolvedPlan(raw: unknown): boolean {
  return v.is(ResolvedPlanHeader, raw);
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
  const fieldError = (field: string, message: string) => new PlanError(`plan.json field "${field}" ${message}`);
  return parseOrThrow(resolvedPlanSchema(), raw, fieldError);
}
