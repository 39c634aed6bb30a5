// The plan's schemas: the input a user writes (plan file and environment), and the resolved plan a run writes as plan.json. Runs in k6 and Node.
//
// Both are built from the same field schemas, so a plan.json read back passes the checks its input
// passed. Defaults come from PLAN_DEFAULTS; lib/plan.ts resolves what depends on other fields.

import * as v from 'valibot';
import { MIX_PROFILES, limitLabel } from '../thresholds/use-cases';
import { SUMMARY_TREND_STATS } from './metrics';
import { PLAN_DEFAULTS as D } from './plan-defaults';
import type { Cell, Plan, ScriptName } from './plan';
import { bool, int, intList, list, name, num, object, oneOf, record, text, url } from './schema';

export const PLAN_SCHEMA_VERSION = 1;

export const SCRIPT_NAMES = ['sweep', 'capacity', 'burst', 'mix', 'gate'] as const;
export const API_STYLES = ['chat', 'completions'] as const;
export const PROMPT_MODES = ['unique', 'shared-prefix'] as const;
export const LIMIT_STATS = ['avg', 'med', 'p(90)', 'p(95)', 'p(99)'] as const;
const LIMIT_METRICS = ['ttft', 'e2e', 'decodeSpeed', 'itl', 'tpot'] as const;
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

const users = int(1, 4096);
const rounds = int(1, 10_000);
const contextTokens = int(1, 10_000_000);
const outputTokens = int(1, 1_000_000);
const dayOfSeconds = 86_400;

const target = {
  baseUrl: url,
  model: text,
  api: oneOf(API_STYLES),
  ignoreEos: bool,
  minTokens: bool,
  temperature: num(0, 2),
  seed: nullable(int(0)),
  requestTimeoutSeconds: int(1, dayOfSeconds),
  connectTimeoutSeconds: num(0, 3600),
  firstByteTimeoutSeconds: num(0, dayOfSeconds),
  idleTimeoutSeconds: num(0, dayOfSeconds),
  metricsUrl: nullable(text),
  powerMetricsUrl: nullable(text),
  insecureSkipTLSVerify: bool,
};

const schedule = {
  gapSeconds: num(0, 3600),
  prefillTokensPerSecond: num(1),
  decodeTokensPerSecond: num(0.1),
  safetyFactor: num(1, 100),
  minCellSeconds: int(1, dayOfSeconds),
  cellSeconds: nullable(int(1, dayOfSeconds)),
  predictedCellSeconds: nullable(record(num(0))),
};

const gate = { concurrency: users, rounds, minSuccessRate: num(0, 1) };

const search = {
  warmupRequests: int(0, 100),
  minMeasuredSeconds: num(0, dayOfSeconds),
  startUsers: users,
  exactBelow: users,
  resolutionPercent: num(0.1, 100),
};

const monitorInterval = num(0.1, 3600);
const burstTtftLimitMs = num(1);
const limitStat = oneOf(LIMIT_STATS);
const promptMode = oneOf(PROMPT_MODES);

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
  object({ metric: oneOf(LIMIT_METRICS), operator: oneOf(OPERATORS), value: num(0), label: opt(text) }),
  v.transform((l) => ({ ...l, label: l.label ?? limitLabel(l.metric, l.operator, l.value) })),
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

// ---------------------------------------------------------------------------------------------
// The input: every field optional. Use-case ids the sections refer to are checked against the
// plan's own use cases while resolving (useCaseRefs), since a plan may define its own.

const mixProfile = oneOf(MIX_PROFILES.map((p) => p.id));

export const PlanInputSchema = object({
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
  prompts: orDefault(object({ mode: orDefault(promptMode, D.prompts.mode), file: orDefault(nullable(text), D.prompts.file) }), {}),
  limitStat: orDefault(limitStat, D.limitStat),
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
        v.union([users, record(users)], (issue) => `must be a whole number between 1 and 4096, or an object of them by use case id, got ${JSON.stringify(issue.input)}`),
        D.capacity.maxUsers,
      ),
      exactBelow: orDefault(search.exactBelow, D.capacity.exactBelow),
      resolutionPercent: orDefault(search.resolutionPercent, D.capacity.resolutionPercent),
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
  mix: orDefault(
    object({
      profiles: orDefault(list(mixProfile), D.mix.profiles),
      concurrencies: orDefault(intList(1, 4096), D.mix.concurrencies),
      rounds: orDefault(rounds, D.mix.rounds),
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
  monitor: orDefault(object({ enabled: opt(bool), intervalSeconds: orDefault(monitorInterval, D.monitor.intervalSeconds) }), {}),
  useCases: orDefault(list(useCase), D.useCases),
  summaryTrendStats: orDefault(summaryTrendStats, D.summaryTrendStats),
});

/** A plan input with every static default filled in. */
export type ParsedPlanInput = v.InferOutput<typeof PlanInputSchema>;

/**
 * The use-case ids a plan's sections name, checked against its use cases: the capacity section's
 * ladders and output lengths name use cases it measures, maxUsers and the gate any of the plan's.
 * Only for the sections the script uses, so a plan serves every script. Returns the schema and
 * what it checks, the referring fields alone (their paths as in the plan).
 */
export function useCaseRefs(ids: readonly string[], input: ParsedPlanInput, gate: { useCase: string } | null, script: ScriptName): [v.GenericSchema, unknown] {
  const fieldsFor = (keys: readonly string[]) => object(Object.fromEntries(keys.map((k) => [k, opt(v.unknown())])));
  const c = input.capacity;
  const byUseCase = typeof c.maxUsers === 'number' ? v.unknown() : fieldsFor(ids);
  const capacity = object({ useCases: opt(list(oneOf(ids))), concurrencies: fieldsFor(c.useCases ?? ids), outputTokens: fieldsFor(c.useCases ?? ids), maxUsers: byUseCase });
  const refs = script === 'capacity' ? { capacity: { useCases: c.useCases, concurrencies: c.concurrencies, outputTokens: c.outputTokens, maxUsers: c.maxUsers } } : {};
  const gateRefs = gate !== null ? { gate: { useCase: gate.useCase } } : {};
  return [object({ capacity: opt(capacity), gate: opt(object({ useCase: oneOf(ids) })) }), { ...refs, ...gateRefs }];
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
  const count = int(0);
  const seconds = num(0);
  const driven = object({
    mode: oneOf(['rounds', 'steady'] as const),
    search: bool,
    startSeconds: seconds,
    seconds,
    requests: object({ measured: count, warmup: count, transition: count, cut: count }),
  });
  const cell = object({
    id: name,
    script: oneOf(SCRIPT_NAMES),
    contextTokens,
    outputTokens,
    concurrency: users,
    rounds: count,
    warmupRounds: orDefault(count, 0),
    useCase: nullable(text),
    profile: nullable(text),
    startSeconds: seconds,
    maxDurationSeconds: seconds,
    gracefulStopSeconds: seconds,
    driven: opt(driven),
  }) satisfies v.GenericSchema<unknown, Cell>;
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
    prompts: object({ mode: promptMode, file: nullable(text) }),
    limitStat,
    useCases: list(useCase),
    burstTtftLimitMs,
    gate: nullable(object({ useCase: text, ...gate })),
    search: orDefault(nullable(object({ ...search, minRequestsPerUser: rounds, maxUsers: record(users) })), null),
    schedule: object(schedule),
    monitor: object({ enabled: bool, intervalSeconds: monitorInterval }),
    summaryTrendStats,
    cells: v.array(cell, 'must be a list'),
    totalSeconds: seconds,
  }) satisfies v.GenericSchema<unknown, Plan>;
}

/** What tells a plan.json of this suite's schema version from anything else, before its fields are checked. */
export const ResolvedPlanHeader = /* @__PURE__ */ v.custom((x) => typeof x === 'object' && x !== null && (x as Plan).schemaVersion === PLAN_SCHEMA_VERSION && Array.isArray((x as Plan).cells));
