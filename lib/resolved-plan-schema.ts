// The resolved plan's schema: plan.json as a run writes it and the report reads it back. Runs in k6 and Node.
// Built from the same field schemas as the input (lib/plan-fields.ts), so a plan.json read back passes the checks
// its input passed.

import * as v from 'valibot';
import { ARRIVAL_PROCESSES } from './arrivals';
import { fieldSchemas, orDefault, SCRIPT_NAMES } from './plan-fields';
import { sessionsSchemas } from './plan-sessions-schema';
import { agenticSchemas } from './plan-agentic-schema';
import { bool, int, list, name, num, object, oneOf, record, text } from './schema';
import { TRACE_FORMATS } from './trace/types';

export const PLAN_SCHEMA_VERSION = 1;

const opt = v.optional;
const nullable = v.nullable;

// ---------------------------------------------------------------------------------------------
// The resolved plan (plan.json), as strict as the input: a field this version does not know means
// the file was not written by it. Fields added while the schema version stayed 1 read, when absent,
// as what a plan written before them meant: no warm-up rounds, no per-phase timeouts, no search.

/**
 * Made when a plan.json is read, not at load: no k6 script reads one, and a schema built at the top
 * level would stay in every bundle (esbuild keeps object spreads, which may run getters).
 */
export function resolvedPlanSchema() {
  const {
    users, rounds, target, schedule, gate, search, monitorInterval, burstTtftLimitMs,
    limitStat, minGoodput, prompts, summaryTrendStats, useCase, arrivals, traceSource, embed,
  } = fieldSchemas();
  const count = int(0);
  const seconds = num(0);
  const searchLimits = {
    /** A step measures at least this many requests per user on average (and minMeasuredSeconds). */
    minRequestsPerUser: rounds,
    /** The search stops climbing here: a use case within its limits at this many users has "more than" that. */
    maxUsers: record(users),
  };
  const cell = cellSchema(fieldSchemas(), count, seconds);
  return object({
    schemaVersion: oneOf([PLAN_SCHEMA_VERSION]),
    name,
    script: oneOf(SCRIPT_NAMES),
    target: object({
      ...target,
      connectTimeoutSeconds: orDefault(target.connectTimeoutSeconds, 0),
      firstByteTimeoutSeconds: orDefault(target.firstByteTimeoutSeconds, 0),
      idleTimeoutSeconds: orDefault(target.idleTimeoutSeconds, 0),
      insecureSkipTLSVerify: orDefault(bool, false),
    }),
    // prefixGroups is absent in a plan.json from before synthetic shared prefixes.
    prompts: object({ ...prompts, prefixGroups: orDefault(prompts.prefixGroups, null) }),
    limitStat,
    // Absent in a plan.json written before goodput could be judged.
    minGoodput: orDefault(minGoodput, null),
    /** The use cases this plan refers to, copied in full so a report never depends on code defaults. */
    useCases: list(useCase),
    burstTtftLimitMs,
    gate: nullable(object({ useCase: text, ...gate })),
    /** For the capacity and sessions scripts: how the bench searches; null for the other scripts. */
    // maxRepeats is absent in a plan.json from before the search repeated unclear steps.
    search: orDefault(
      nullable(object({ ...search, maxRepeats: orDefault(search.maxRepeats, 0), ...searchLimits })), null,
    ),
    /**
     * For the rate script: how the bench searches each use case's rate (orchestrator/rate-search.ts); for the trace
     * script, its replay speed (startRate and maxRate are speeds); else null.
     */
    // Absent in a plan.json from before the rate search.
    rateSearch: orDefault(nullable(object({
      startRate: arrivals.rate, maxRate: arrivals.rate, resolutionPercent: arrivals.resolutionPercent,
    })), null),
    /** For the sessions script: each use case's conversation and how plain k6 holds a step; null otherwise. */
    sessions: orDefault(nullable(sessionsSchemas().resolvedSessions), null),
    /** For the agentic script: the agent model, the SLO tiers and how a step is held; null otherwise. */
    agentic: orDefault(nullable(agenticSchemas().resolvedAgentic), null),
    /** For the trace script: the rows replayed and what they were; null otherwise. */
    trace: orDefault(
      nullable(object({
        ...traceSource, useCase: text, lagLimitMs: arrivals.lagLimitMs, summary: replaySummary(count),
      })),
      null,
    ),
    /** For the embed script: what it sends and the latency limit its cells are judged on; null otherwise. */
    embed: orDefault(nullable(object({ kind: embed.kind, limit: object({ p99LatencyMs: embed.p99LatencyMs }) })), null),
    schedule: object(schedule),
    monitor: object({ enabled: bool, intervalSeconds: monitorInterval }),
    summaryTrendStats,
    cells: v.array(cell, 'must be a list'),
    /** End of the last cell's slot, seconds from test start. */
    totalSeconds: seconds,
  });
}

/** One measurement cell: one k6 scenario, N concurrent closed-loop users for `rounds` requests each. */
function cellSchema(
  { users, contextTokens, outputTokens, arrivals }: ReturnType<typeof fieldSchemas>,
  count: ReturnType<typeof int>, seconds: ReturnType<typeof num>,
) {
  /** How the bench ran a step (the report says how each figure was measured). */
  const driven = object({
    /** rounds: each user sent `rounds` requests; steady: users held in steady state (warm-up excluded). */
    mode: oneOf(['rounds', 'steady'] as const),
    /** A step the capacity search chose. */
    search: bool,
    /** When the step began, seconds from the part's first step, and how long it lasted. */
    startSeconds: seconds,
    seconds,
    requests: object({ measured: count, warmup: count, transition: count, cut: count }),
    /** How many times the search measured the step (an unclear verdict is measured again); 1 in older runs. */
    measurements: orDefault(int(1, 1000), 1),
    /**
     * The mean requests the client held in flight while the step's measured requests ran, every request counted
     * (orchestrator/step-in-flight.ts); absent in older runs and for a step with no measured request.
     */
    inFlight: opt(num(0)),
  });
  return object({
    /** Scenario name and `cell` tag; matches ^[0-9a-zA-Z_-]+$. */
    id: name,
    script: oneOf(SCRIPT_NAMES),
    contextTokens,
    outputTokens,
    concurrency: users,
    /** Requests per user (k6 per-vu-iterations `iterations`), warm-up included. */
    rounds: count,
    /**
     * The first requests of each user that are warm-up (tag phase=warmup, left out of the cell's
     * statistics): a capacity step measures users in service, not their all-at-once arrival. 0 elsewhere.
     */
    warmupRounds: orDefault(count, 0),
    useCase: nullable(text),
    profile: nullable(text),
    /** Scenario startTime, seconds from test start. */
    startSeconds: seconds,
    /** Scenario maxDuration, seconds. */
    maxDurationSeconds: seconds,
    /** Scenario gracefulStop, seconds: how long in-flight requests may finish after maxDuration. */
    gracefulStopSeconds: seconds,
    /** Written by the bench for a step it drove (lib/drive.ts); absent for a cell run in k6's time slots. */
    driven: opt(driven),
    /** An embed cell's inputs per request (rerank: documents); absent for the other scripts' cells. */
    batch: opt(int(1, 4096)),
    /** A rate cell's arrival schedule (one VU sends it, lib/k6/open-loop.ts); absent for closed-loop cells. */
    arrivals: opt(
      object({
        /** trace: the replayed trace's own times (the plan's trace section), at `speed`. */
        process: oneOf([...ARRIVAL_PROCESSES, 'trace'] as const),
        speed: opt(arrivals.speed),
        ratePerSecond: arrivals.rate,
        rampFromPerSecond: nullable(arrivals.rate),
        durationSeconds: arrivals.durationSeconds,
        burstiness: arrivals.burstiness,
        seed: arrivals.seed,
        /** How many requests the schedule holds: round(mean rate x duration). */
        requests: int(1),
        lagLimitMs: arrivals.lagLimitMs,
        /** VUs sending the schedule between them, each every senders-th request; 1 in older runs and for a trace. */
        senders: orDefault(arrivals.senders, 1),
        /** Requests meant to go before this many seconds are warm-up (tag phase); 0 in older runs and for a trace. */
        warmupSeconds: orDefault(arrivals.warmupSeconds, 0),
      }),
    ),
  });
}

/** lib/trace-replay.ts ReplaySummary as plan.json holds it. */
function replaySummary(count: ReturnType<typeof int>) {
  const lengths = nullable(object({ p50: num(0), p90: num(0), p99: num(0), max: num(0) }));
  const histogram = object({ edges: v.array(num(0), 'must be a list'), counts: v.array(count, 'must be a list') });
  return object({
    format: oneOf(TRACE_FORMATS),
    loadedRows: count, badRows: count, skippedRows: count, inWindow: count, droppedTurns: count, cappedRows: count,
    stats: object({
      rows: count, durationMs: num(0), meanRatePerSecond: nullable(num(0)), gapCv: nullable(num(0)),
      inputTokens: lengths, outputTokens: lengths,
      prefix: nullable(object({ sharedTokens: num(0), promptTokens: num(0), share: num(0, 1) })),
      conversations: nullable(object({ count, meanTurns: num(0), maxTurns: count })),
    }),
    inputTokensTotal: count, outputTokensTotal: count,
    histograms: object({ inputTokens: histogram, outputTokens: histogram, arrivalsMs: histogram }),
  });
}

/** What tells a plan.json of this suite's schema version from anything else, before its fields are checked. */
export const ResolvedPlanHeader = /* @__PURE__ */ v.custom((x) => {
  const header = x as { schemaVersion?: unknown; cells?: unknown } | null;
  if (typeof x !== 'object' || header === null) return false;
  return header.schemaVersion === PLAN_SCHEMA_VERSION && Array.isArray(header.cells);
});
