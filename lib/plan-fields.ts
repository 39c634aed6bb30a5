// The field schemas the plan's two schemas share (lib/plan-schema.ts, the input; lib/resolved-plan-schema.ts,
// plan.json), each documented where it is defined, and the names a plan may use for scripts, APIs and prompt modes.
// Runs in k6 and Node.

import * as v from 'valibot';
import {
  LIMIT_METRICS, LIMIT_STATS, MIX_PROFILES, NAMED_USE_CASES, findUseCase, limitLabel,
} from '../thresholds/use-cases';
import { ARRIVAL_PROCESSES } from './arrivals';
import { SUMMARY_TREND_STATS } from './metrics';
import { PLAN_DEFAULTS as D } from './plan-defaults';
import { bool, int, intList, list, name, num, object, oneOf, record, text, url } from './schema';
import { TRACE_FORMATS } from './trace/types';

export const SCRIPT_NAMES = [
  'sweep', 'capacity', 'burst', 'mix', 'gate', 'sessions', 'rate', 'trace', 'embed', 'agentic',
] as const;
export type ScriptName = (typeof SCRIPT_NAMES)[number];
/**
 * chat: /chat/completions; completions: /completions; responses: OpenAI's /responses; messages: Anthropic's /messages.
 */
export const API_STYLES = ['chat', 'completions', 'responses', 'messages'] as const;
export const PROMPT_MODES = ['unique', 'shared-prefix'] as const;
/** What the embed script sends: embeddings (/embeddings, OpenAI's shape) or rerank (/rerank, llama.cpp's, Jina's). */
export const EMBED_KINDS = ['embeddings', 'rerank'] as const;
const OPERATORS = ['<', '<=', '>', '>='] as const;

const opt = v.optional;
const nullable = v.nullable;

/**
 * Optional, `fallback` when absent. The fallback goes through the schema like a value from the
 * file would (so a wrong default fails the first plan), which is why its type need not be checked here.
 */
/* @__NO_SIDE_EFFECTS__ */
export function orDefault<S extends v.GenericSchema>(
  schema: S, fallback: unknown,
): v.OptionalSchema<S, v.InferInput<S>> {
  return v.optional(schema, fallback as v.InferInput<S>);
}

const dayOfSeconds = 86_400;

/** A number of users, or one by use case id (the capacity and sessions sections' maxUsers). */
/* @__NO_SIDE_EFFECTS__ */
export function usersOrByUseCase(users: ReturnType<typeof int>) {
  return v.union(
    [users, record(users)],
    (issue) =>
      'must be a whole number between 1 and 4096, or an object of them by use case id, ' +
      `got ${JSON.stringify(issue.input)}`,
  );
}

/** The sizes the sections share: users, requests per user, context and output lengths. */
function sizeFields() {
  return {
    users: int(1, 4096),
    rounds: int(1, 10_000),
    contextTokens: int(1, 10_000_000),
    outputTokens: int(1, 1_000_000),
    dayOfSeconds,
  };
}

/** The target: where requests go and how they are sent and timed out. */
function targetFields() {
  return {
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

}

/** How cells are laid out in k6's time slots. */
function scheduleFields() {
  return {
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

}

/** The gate, the capacity search and the options every script shares (monitor, limit statistic, prompts). */
function runFields({ users, rounds, contextTokens }: ReturnType<typeof sizeFields>) {
  const gate = {
    concurrency: users,
    rounds,
    /** Minimum fraction of successful requests. */
    minSuccessRate: num(0, 1),
  };

  /**
   * How `npm run bench` searches each use case's capacity (docs/design/architecture.md, "Bench-driven runs"): steps of
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
   * A synthetic shared-prefix workload (docs/guides/prefix-groups.md), as SGLang's generated-shared-prefix and vLLM's
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

  return {
    gate, search, monitorInterval, burstTtftLimitMs, limitStat, minGoodput, prompts, summaryTrendStats,
  };
}

/** A use case and its limits, whole or named by a catalogue id. */
function useCaseFields(
  { contextTokens, outputTokens }: ReturnType<typeof sizeFields>, limitStat: ReturnType<typeof runFields>['limitStat'],
) {
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

  return { limit, useCase, useCaseOrId };
}

/** The open-loop scripts' fields (rate, trace) and the embed script's. */
function openLoopFields({ rounds }: ReturnType<typeof sizeFields>) {
  const mixProfile = oneOf(MIX_PROFILES.map((p) => p.id));

  /** How a rate cell's requests arrive (lib/arrivals.ts, docs/guides/open-loop.md). */
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
    /**
     * VUs that send a rate cell's one schedule between them, each every `senders`-th request; a split run gives each
     * runner k6's share of them (docs/guides/split-runs.md).
     */
    senders: int(1, 1000),
    /** A rate cell's requests meant to go in its first this many seconds: sent, tagged warm-up, left out of figures. */
    warmupSeconds: num(0, dayOfSeconds),
    /** Replay speed of a trace: 2 sends every row at half its recorded time. */
    speed: num(0.001, 1000),
    /** The search's resolution: it ends once the first failing rate is within this percentage of the last pass. */
    resolutionPercent: num(0.5, 50),
  };
  /** Which rows of a trace file the trace script replays (lib/trace-replay.ts, docs/design/traces.md). */
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
  /**
   * The embed script (docs/guides/embeddings.md): non-streaming embeddings or rerank requests of exact input
   * lengths.
   */
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
  return { mixProfile, arrivals, traceSource, embed };
}

/**
 * The field schemas, built on first use and not at load: every k6 VU evaluates a bundle's top level, and
 * building these took about 2 MB per VU (256 VUs: 0.5 GB), while a run resolves its plan once
 * (lib/k6/suite.ts hands the VUs the resolved plan).
 */
function buildFieldSchemas() {
  const sizes = sizeFields();
  const run = runFields(sizes);
  return {
    ...sizes, target: targetFields(), schedule: scheduleFields(), ...run, ...useCaseFields(sizes, run.limitStat),
    ...openLoopFields(sizes),
  };
}

let fields: ReturnType<typeof buildFieldSchemas> | null = null;

/** The shared field schemas, built once per JavaScript runtime. */
export function fieldSchemas(): ReturnType<typeof buildFieldSchemas> {
  if (fields === null) fields = buildFieldSchemas();
  return fields;
}
