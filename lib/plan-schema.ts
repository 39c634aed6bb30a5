// The plan's schemas: the input a user writes (plan file and environment), and the resolved plan a run writes as
// plan.json. Runs in k6 and Node.
//
// Both are built from the same field schemas, so a plan.json read back passes the checks its input
// passed. Defaults come from PLAN_DEFAULTS; lib/plan.ts resolves what depends on other fields.

import * as v from 'valibot';
import { LIMIT_STATS, MIX_PROFILES, NAMED_USE_CASES, findUseCase, limitLabel } from '../thresholds/use-cases';
import { ARRIVAL_PROCESSES } from './arrivals';
import { SUMMARY_TREND_STATS } from './metrics';
import { PLAN_DEFAULTS as D } from './plan-defaults';
import { bool, int, intList, list, name, num, object, oneOf, record, text, url } from './schema';
import { sessionsSchemas } from './plan-sessions-schema';
import { TRACE_FORMATS } from './trace/types';

export const PLAN_SCHEMA_VERSION = 1;

export const SCRIPT_NAMES = [
  'sweep', 'capacity', 'burst', 'mix', 'gate', 'sessions', 'rate', 'trace', 'embed',
] as const;
export type ScriptName = (typeof SCRIPT_NAMES)[number];
/**
 * chat: /chat/completions; completions: /completions; responses: OpenAI's /responses; messages: Anthropic's /messages.
 */
export const API_STYLES = ['chat', 'completions', 'responses', 'messages'] as const;
export const PROMPT_MODES = ['unique', 'shared-prefix'] as const;
/** What the embed script sends: embeddings (/embeddings, OpenAI's shape) or rerank (/rerank, llama.cpp's, Jina's). */
export const EMBED_KINDS = ['embeddings', 'rerank'] as const;
export { LIMIT_STATS };
// ttfc: time to the first content token, the answer's, not the thinking's (reasoning models).
const LIMIT_METRICS = ['ttft', 'ttfc', 'e2e', 'decodeSpeed', 'itl', 'tpot'] as const;
const OPERATORS = ['<', '<=', '>', '>='] as const;

const opt = v.optional;
const nullable = v.nullable;

/**
 * Optional, `fallback` when absent. The fallback goes through the schema like a value from the
 * file would (so a wrong default fails the first plan), which is why its type need not be checked here.
 */
/* @__NO_SIDE_EFFECTS__ */
function orDefault<S extends v.GenericSchema>(schema: S, fallback: unknown): v.OptionalSchema<S, v.InferInput<S>> {
  return v.optional(schema, fallback as v.InferInput<S>);
}

// ---------------------------------------------------------------------------------------------
// Field schemas shared by the input and the resolved plan.

/**
 * The field schemas, built on first use and not at load: every k6 VU evaluates a bundle's top level, and
 * building these took about 2 MB per VU (256 VUs: 0.5 GB), while a run resolves its plan once
 * (lib/k6/suite.ts hands the VUs the resolved plan).
 */
function buildFieldSchemas() {
  const users = int(1, 4096);
  const rounds = int(1, 10_000);
  const contextTokens = int(1, 10_000_000);
  const outputTokens = int(1, 1_000_000);
  const dayOfSeconds = 86_400;

  const target = {
    /** OpenAI-compatible base URL ending in /v1, e.g. http://127.0.0.1:8000/v1. */
    baseUrl: url,
    model: text,
    api: oneOf(API_STYLES),
    /** Send ignore_eos: true (vLLM, SGLang) so the output length is exactly max_tokens. */
    ignoreEos: bool,
    /** Send min_tokens = max_tokens (vLLM) as a second way of forcing the length. */
    minTokens: bool,
    temperature: num(0, 2),
    /** Sampling seed sent with each request; null sends none. */
    seed: nullable(int(0)),
    /** Whole-request timeout, connect to end of stream, seconds. */
    requestTimeoutSeconds: int(1, dayOfSeconds),
    /** Until the connection is ready (TCP and TLS), seconds; 0 = only the whole-request limit. */
    connectTimeoutSeconds: num(0, 3600),
    /** Request written to response head, seconds; 0 = none. */
    firstByteTimeoutSeconds: num(0, dayOfSeconds),
    /** No byte for this long while the stream is open ends the request as `stalled`, seconds; 0 = none. */
    idleTimeoutSeconds: num(0, dayOfSeconds),
    /** Prometheus endpoint of the server (vLLM/SGLang /metrics); null disables server metrics. */
    metricsUrl: nullable(text),
    /**
     * Extra Prometheus endpoint for GPU power (a DCGM exporter); null when the server's own has it or there is none.
     */
    powerMetricsUrl: nullable(text),
    /** Accept any TLS certificate of the target (k6's insecureSkipTLSVerify), e.g. a self-signed one; default false. */
    insecureSkipTLSVerify: bool,
  };

  const schedule = {
    /** Idle seconds between cells, so one cell's tail never overlaps the next. */
    gapSeconds: num(0, 3600),
    /** Expected prefill speed of the target (tokens/s, one request alone), used only to size cell time slots. */
    prefillTokensPerSecond: num(1),
    /** Expected single-user decode speed (tokens/s), used only to size cell time slots. */
    decodeTokensPerSecond: num(0.1),
    /** Multiplier on the estimate, so a slower server still finishes inside its slot. */
    safetyFactor: num(1, 100),
    minCellSeconds: int(1, dayOfSeconds),
    /** Fixed slot for every cell, overriding the estimate; null to estimate. */
    cellSeconds: nullable(int(1, dayOfSeconds)),
    /**
     * Predicted seconds for all of a cell's requests, by cell id, from a model of the target (the bench
     * fills it from the simulator's own engine when it targets the simulator); replaces the estimate.
     */
    predictedCellSeconds: nullable(record(num(0))),
  };

  const gate = {
    concurrency: users,
    rounds,
    /** Minimum fraction of successful requests. */
    minSuccessRate: num(0, 1),
  };

  /**
   * How `npm run bench` searches each use case's capacity (docs/architecture.md, "Bench-driven runs"): steps of
   * N closed-loop users held in steady state, climbing until a limit breaks, then bisecting.
   */
  const search = {
    /** Warm-up requests of each user a step adds (carried-over users need none). */
    warmupRequests: int(0, 100),
    /** A step measures at least this many seconds (and minRequestsPerUser requests per user on average). */
    minMeasuredSeconds: num(0, dayOfSeconds),
    /** Users of the first step. */
    startUsers: users,
    /** Below this many users the capacity is found to 1 user... */
    exactBelow: users,
    /** ...above, to this share of the capacity (percent). */
    resolutionPercent: num(0.1, 100),
    /**
     * Per use case, how many times the search may measure a step again (pooling its requests) while the step's
     * verdict is statistically unclear: its limits neither hold nor break in 95% of bootstrap resamples.
     */
    maxRepeats: int(0, 50),
  };

  const monitorInterval = num(0.1, 3600);
  const burstTtftLimitMs = num(1);
  const limitStat = oneOf(LIMIT_STATS);
  /**
   * Judge capacity (and the gate) also on goodput: at least this share of a step's requests met every limit of
   * the use case, each judged on its own figures (llm_goodput); null judges the step's statistic only.
   */
  const minGoodput = nullable(num(0.01, 1));
  const promptMode = oneOf(PROMPT_MODES);
  /**
   * A synthetic shared-prefix workload (docs/prefix-groups.md), as SGLang's generated-shared-prefix and vLLM's
   * prefix-repetition datasets: each request's prompt is its group's prefix of `prefixTokens` tokens (SGLang's
   * system prompt, vLLM's prefix), then a suffix of its own to the cell's context length; null: today's prompts.
   */
  const prefixGroups = nullable(object({ groups: int(1, 1_000_000), prefixTokens: contextTokens }));
  const prompts = { mode: promptMode, file: nullable(text), prefixGroups };

  /** The report reads these statistics from the summary, so a plan may add to them but not drop any. */
  const summaryTrendStats = v.pipe(
    list(text),
    v.rawCheck(({ dataset, addIssue }) => {
      if (!dataset.typed) return;
      const missing = SUMMARY_TREND_STATS.find((s) => !dataset.value.includes(s));
      if (missing !== undefined) addIssue({ message: `must include "${missing}" (the report reads it)` });
    }),
  );

  /** A use case's limit; its label, when not given, is derived so it always matches the value. */
  const limit = v.pipe(
    object({
      metric: oneOf(LIMIT_METRICS), operator: oneOf(OPERATORS), value: num(0), label: opt(text),
      /** Checked on this statistic of a cell instead of the plan's limitStat (MLPerf's limits are p99). */
      stat: opt(limitStat),
    }),
    v.transform((l) => ({ ...l, label: l.label ?? limitLabel(l.metric, l.operator, l.value, l.stat) })),
  );

  const useCase = v.pipe(
    object({
      id: name,
      title: opt(text),
      description: opt(v.string('must be a string')),
      contextTokens,
      outputTokens,
      limits: list(limit),
      concurrencies: orDefault(intList(1, 4096), D.useCaseConcurrencies),
    }),
    v.transform((u) => ({ ...u, title: u.title ?? u.id, description: u.description ?? '' })),
  );

  /**
   * A plan input's use case: a full definition, or the id of one in the catalogue (thresholds/use-cases.ts), replaced
   * here by its definition so that everything after the schema sees whole use cases.
   */
  const useCaseOrId = v.pipe(
    v.custom<string | v.InferInput<typeof useCase>>(() => true),
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      const value: unknown = dataset.value;
      const ids = NAMED_USE_CASES.map((u) => u.id).join(', ');
      const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
      if (isObject) return value as v.InferInput<typeof useCase>;
      const found = typeof value === 'string' ? findUseCase(value) : undefined;
      if (found) return found as v.InferInput<typeof useCase>;
      const what = typeof value === 'string' ? 'not one of' : 'neither a use case (an object) nor one of';
      addIssue({ message: `is ${JSON.stringify(value)}, ${what}: ${ids}` });
      return NEVER;
    }),
    useCase,
  );

  // ---------------------------------------------------------------------------------------------
  // The input: every field optional. Use-case ids the sections refer to are checked against the
  // plan's own use cases while resolving (useCaseRefs), since a plan may define its own.

  const mixProfile = oneOf(MIX_PROFILES.map((p) => p.id));

  /** How a rate cell's requests arrive (lib/arrivals.ts, docs/open-loop.md). */
  const arrivals = {
    process: oneOf(ARRIVAL_PROCESSES),
    /** Requests per second (at the end of a ramp). */
    rate: num(0.001, 100_000),
    durationSeconds: int(1, dayOfSeconds),
    /** Gamma shape b of the gaps (process gamma): 1 is Poisson, below 1 burstier, above smoother. */
    burstiness: num(0.01, 100),
    seed: int(0, 2 ** 32 - 1),
    /** A cell whose schedule lag p99 exceeds this many ms is flagged: its sender did not keep the schedule. */
    lagLimitMs: num(0),
    /** Replay speed of a trace: 2 sends every row at half its recorded time. */
    speed: num(0.001, 1000),
  };
  /** Which rows of a trace file the trace script replays (lib/trace-replay.ts, docs/traces.md). */
  const traceSource = {
    /** The trace file (k6 opens it: the bench makes the path absolute). */
    file: text,
    /** Mooncake, Azure, BurstGPT or Bailian; null: detected from the first line. */
    format: nullable(oneOf(TRACE_FORMATS)),
    /** The window: from this many seconds after the first row, for this long (null: to the end), at most N rows. */
    startSeconds: num(0),
    durationSeconds: nullable(num(0.001)),
    maxRequests: nullable(int(1)),
    /** Replay without the rows that break the format (counted in the report) instead of stopping at the first. */
    skipBadRows: bool,
  };
  /** The embed script (docs/embeddings.md): non-streaming embeddings or rerank requests of exact input lengths. */
  const embed = {
    kind: oneOf(EMBED_KINDS),
    /** Tokens of each input (an embeddings input, a rerank document), from the prepared prompts. */
    inputTokens: intList(1, 10_000_000),
    /** Inputs per request (rerank: documents beside the one query). */
    batchSizes: intList(1, 4096),
    concurrencies: intList(1, 4096),
    rounds,
    /** A cell holds when the p99 of its request latencies is at most this, ms. */
    p99LatencyMs: num(0.001),
  };
  return {
    users, rounds, contextTokens, outputTokens, dayOfSeconds, target, schedule, gate, search, monitorInterval,
    burstTtftLimitMs, limitStat, minGoodput, prompts, summaryTrendStats, limit, useCase, useCaseOrId, mixProfile,
    arrivals, traceSource, embed,
  };
}

let fields: ReturnType<typeof buildFieldSchemas> | null = null;

function fieldSchemas(): ReturnType<typeof buildFieldSchemas> {
  if (fields === null) fields = buildFieldSchemas();
  return fields;
}

function buildPlanInputSchema() {
  const {
    users, rounds, outputTokens, target, schedule, gate, search, monitorInterval, burstTtftLimitMs, limitStat,
    minGoodput, prompts, summaryTrendStats, useCaseOrId, mixProfile, arrivals, traceSource, embed,
  } = fieldSchemas();
  return object({
    name: opt(name),
    target: orDefault(
      object({
        baseUrl: orDefault(target.baseUrl, D.target.baseUrl),
        model: orDefault(target.model, D.target.model),
        api: orDefault(target.api, D.target.api),
        ignoreEos: orDefault(target.ignoreEos, D.target.ignoreEos),
        minTokens: orDefault(target.minTokens, D.target.minTokens),
        temperature: orDefault(target.temperature, D.target.temperature),
        seed: orDefault(target.seed, D.target.seed),
        requestTimeoutSeconds: orDefault(target.requestTimeoutSeconds, D.target.requestTimeoutSeconds),
        connectTimeoutSeconds: orDefault(target.connectTimeoutSeconds, D.target.connectTimeoutSeconds),
        firstByteTimeoutSeconds: orDefault(target.firstByteTimeoutSeconds, D.target.firstByteTimeoutSeconds),
        idleTimeoutSeconds: orDefault(target.idleTimeoutSeconds, D.target.idleTimeoutSeconds),
        metricsUrl: opt(target.metricsUrl),
        powerMetricsUrl: orDefault(target.powerMetricsUrl, D.target.powerMetricsUrl),
        insecureSkipTLSVerify: orDefault(target.insecureSkipTLSVerify, D.target.insecureSkipTLSVerify),
      }),
      {},
    ),
    prompts: orDefault(
      object({
        mode: orDefault(prompts.mode, D.prompts.mode), file: orDefault(prompts.file, D.prompts.file),
        prefixGroups: orDefault(prompts.prefixGroups, D.prompts.prefixGroups),
      }),
      {},
    ),
    limitStat: orDefault(limitStat, D.limitStat),
    minGoodput: orDefault(minGoodput, D.minGoodput),
    sweep: orDefault(
      object({
        contexts: orDefault(intList(1, 10_000_000), D.sweep.contexts),
        concurrencies: orDefault(intList(1, 4096), D.sweep.concurrencies),
        rounds: orDefault(rounds, D.sweep.rounds),
        outputTokens: orDefault(outputTokens, D.sweep.outputTokens),
      }),
      {},
    ),
    capacity: orDefault(
      object({
        useCases: opt(list(text)),
        concurrencies: orDefault(record(intList(1, 4096)), {}),
        rounds: orDefault(rounds, D.capacity.rounds),
        outputTokens: orDefault(record(outputTokens), {}),
        warmupRequests: orDefault(search.warmupRequests, D.capacity.warmupRequests),
        minMeasuredSeconds: orDefault(search.minMeasuredSeconds, D.capacity.minMeasuredSeconds),
        startUsers: orDefault(search.startUsers, D.capacity.startUsers),
        maxUsers: orDefault(
          v.union(
            [users, record(users)],
            (issue) =>
              `must be a whole number between 1 and 4096, or an object of them by use case id, got ${JSON.stringify(issue.input)}`,
          ),
          D.capacity.maxUsers,
        ),
        exactBelow: orDefault(search.exactBelow, D.capacity.exactBelow),
        resolutionPercent: orDefault(search.resolutionPercent, D.capacity.resolutionPercent),
        maxRepeats: orDefault(search.maxRepeats, D.capacity.maxRepeats),
      }),
      {},
    ),
    burst: orDefault(
      object({
        profiles: orDefault(list(mixProfile), D.burst.profiles),
        depths: orDefault(intList(1, 4096), D.burst.depths),
        ttftLimitMs: orDefault(burstTtftLimitMs, D.burst.ttftLimitMs),
      }),
      {},
    ),
    sessions: sessionsSchemas().sessionsInput,
    /** The rate script: each use case at each offered rate, requests arriving on their own clock (open loop). */
    rate: orDefault(
      object({
        useCases: opt(list(text)),
        rates: orDefault(
          v.union(
            [list(arrivals.rate, 'list of requests per second'), record(list(arrivals.rate, 'list of requests per second'))],
            (issue) =>
              `must be a list of rates in requests per second, or an object of them by use case id, got ${JSON.stringify(issue.input)}`,
          ),
          D.rate.rates,
        ),
        durationSeconds: orDefault(arrivals.durationSeconds, D.rate.durationSeconds),
        arrival: orDefault(arrivals.process, D.rate.arrival),
        burstiness: orDefault(arrivals.burstiness, D.rate.burstiness),
        /** Each cell ramps linearly from this rate to its own; null holds its rate. */
        rampFromRate: orDefault(nullable(arrivals.rate), null),
        seed: orDefault(arrivals.seed, D.rate.seed),
        lagLimitMs: orDefault(arrivals.lagLimitMs, D.rate.lagLimitMs),
      }),
      {},
    ),
    /** The trace script: a production trace replayed at each speed, its rows' own times, lengths and prefixes. */
    trace: opt(
      object({
        file: traceSource.file,
        format: orDefault(traceSource.format, null),
        startSeconds: orDefault(traceSource.startSeconds, 0),
        durationSeconds: orDefault(traceSource.durationSeconds, null),
        maxRequests: orDefault(traceSource.maxRequests, null),
        skipBadRows: orDefault(traceSource.skipBadRows, false),
        speeds: orDefault(list(arrivals.speed, 'list of speeds'), D.trace.speeds),
        /** The use case whose limits judge each speed (and find the fastest the trace holds). */
        useCase: orDefault(text, D.trace.useCase),
        lagLimitMs: orDefault(arrivals.lagLimitMs, D.rate.lagLimitMs),
      }),
    ),
    mix: orDefault(
      object({
        profiles: orDefault(list(mixProfile), D.mix.profiles),
        concurrencies: orDefault(intList(1, 4096), D.mix.concurrencies),
        rounds: orDefault(rounds, D.mix.rounds),
      }),
      {},
    ),
    /** The embed script: embeddings or rerank at each (input tokens, batch size, concurrency). */
    embed: orDefault(
      object({
        kind: orDefault(embed.kind, D.embed.kind),
        inputTokens: orDefault(embed.inputTokens, D.embed.inputTokens),
        batchSizes: orDefault(embed.batchSizes, D.embed.batchSizes),
        concurrencies: orDefault(embed.concurrencies, D.embed.concurrencies),
        rounds: orDefault(embed.rounds, D.embed.rounds),
        limit: orDefault(object({ p99LatencyMs: orDefault(embed.p99LatencyMs, D.embed.limit.p99LatencyMs) }), {}),
      }),
      {},
    ),
    gate: opt(
      object({
        useCase: orDefault(text, D.gate.useCase),
        concurrency: orDefault(gate.concurrency, D.gate.concurrency),
        rounds: orDefault(gate.rounds, D.gate.rounds),
        minSuccessRate: orDefault(gate.minSuccessRate, D.gate.minSuccessRate),
      }),
    ),
    schedule: orDefault(
      object({
        gapSeconds: orDefault(schedule.gapSeconds, D.schedule.gapSeconds),
        prefillTokensPerSecond: orDefault(schedule.prefillTokensPerSecond, D.schedule.prefillTokensPerSecond),
        decodeTokensPerSecond: orDefault(schedule.decodeTokensPerSecond, D.schedule.decodeTokensPerSecond),
        safetyFactor: orDefault(schedule.safetyFactor, D.schedule.safetyFactor),
        minCellSeconds: orDefault(schedule.minCellSeconds, D.schedule.minCellSeconds),
        cellSeconds: orDefault(schedule.cellSeconds, D.schedule.cellSeconds),
        predictedCellSeconds: orDefault(schedule.predictedCellSeconds, D.schedule.predictedCellSeconds),
      }),
      {},
    ),
    monitor: orDefault(
      object({ enabled: opt(bool), intervalSeconds: orDefault(monitorInterval, D.monitor.intervalSeconds) }), {},
    ),
    /** Whole use cases, or ids of catalogue ones ("mlperf_llama2_70b"): they replace the built-in five. */
    useCases: orDefault(list(useCaseOrId), D.useCases),
    summaryTrendStats: orDefault(summaryTrendStats, D.summaryTrendStats),
  });
}

let planInput: ReturnType<typeof buildPlanInputSchema> | null = null;

/** The schema of a plan input (file and environment), built once per JavaScript runtime. */
export function planInputSchema(): ReturnType<typeof buildPlanInputSchema> {
  if (planInput === null) planInput = buildPlanInputSchema();
  return planInput;
}

/** A plan input with every static default filled in. */
export type ParsedPlanInput = v.InferOutput<ReturnType<typeof buildPlanInputSchema>>;

/**
 * The use-case ids a plan's sections name, checked against its use cases: the capacity section's
 * ladders and output lengths name use cases it measures, maxUsers and the gate any of the plan's.
 * Only for the sections the script uses, so a plan serves every script. Returns the schema and
 * what it checks, the referring fields alone (their paths as in the plan).
 */
export function useCaseRefs(
  ids: readonly string[], input: ParsedPlanInput, gate: { useCase: string } | null, script: ScriptName,
): [v.GenericSchema, unknown] {
  const fieldsFor = (keys: readonly string[]) => object(Object.fromEntries(keys.map((k) => [k, opt(v.unknown())])));
  const c = input.capacity;
  const byUseCase = typeof c.maxUsers === 'number' ? v.unknown() : fieldsFor(ids);
  const capacity = object({
    useCases: opt(list(oneOf(ids))), concurrencies: fieldsFor(c.useCases ?? ids),
    outputTokens: fieldsFor(c.useCases ?? ids), maxUsers: byUseCase,
  });
  const refs =
    script === 'capacity'
      ? {
          capacity: {
            useCases: c.useCases, concurrencies: c.concurrencies, outputTokens: c.outputTokens, maxUsers: c.maxUsers,
          },
        }
      : {};
  const se = input.sessions;
  const sessions = object({
    useCases: opt(list(oneOf(ids))), models: fieldsFor(ids), users: fieldsFor(se.useCases ?? ids),
    maxUsers: typeof se.maxUsers === 'number' ? v.unknown() : fieldsFor(ids),
  });
  const sessionRefs =
    script === 'sessions' ? { sessions: { useCases: se.useCases, models: se.models, users: se.users, maxUsers: se.maxUsers } } : {};
  const gateRefs = gate !== null ? { gate: { useCase: gate.useCase } } : {};
  const r = input.rate;
  const rateRefs = script === 'rate' ? { rate: { useCases: r.useCases, rates: r.rates } } : {};
  const rate = object({
    useCases: opt(list(oneOf(ids))), rates: Array.isArray(r.rates) ? v.unknown() : fieldsFor(r.useCases ?? ids),
  });
  const traceRefs = script === 'trace' && input.trace ? { trace: { useCase: input.trace.useCase } } : {};
  const schema = object({
    capacity: opt(capacity), sessions: opt(sessions), gate: opt(object({ useCase: oneOf(ids) })), rate: opt(rate),
    trace: opt(object({ useCase: oneOf(ids) })),
  });
  return [schema, { ...refs, ...sessionRefs, ...gateRefs, ...rateRefs, ...traceRefs }];
}

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
    users, rounds, contextTokens, outputTokens, target, schedule, gate, search, monitorInterval, burstTtftLimitMs,
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
  });
  /** One measurement cell: one k6 scenario, N concurrent closed-loop users for `rounds` requests each. */
  const cell = object({
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
      }),
    ),
  });
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
    search: orDefault(nullable(object({ ...search, maxRepeats: orDefault(search.maxRepeats, 0), ...searchLimits })), null),
    /** For the sessions script: each use case's conversation and how plain k6 holds a step; null otherwise. */
    sessions: orDefault(nullable(sessionsSchemas().resolvedSessions), null),
    /** For the trace script: the rows replayed and what they were; null otherwise. */
    trace: orDefault(
      nullable(object({ ...traceSource, useCase: text, lagLimitMs: arrivals.lagLimitMs, summary: replaySummary(count) })),
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
