// The plan input's schema: what a user writes (plan file and environment), every field optional, with its static
// defaults; and the check of the use-case ids its sections name. Runs in k6 and Node.
//
// The resolved plan a run writes as plan.json has its schema in lib/resolved-plan-schema.ts; both are built from the
// same field schemas (lib/plan-fields.ts). Defaults come from PLAN_DEFAULTS; lib/plan.ts resolves what depends on
// other fields.

import * as v from 'valibot';
import { LIMIT_STATS } from '../thresholds/use-cases';
import { PLAN_DEFAULTS as D } from './plan-defaults';
import { fieldSchemas, orDefault, usersOrByUseCase, type ScriptName } from './plan-fields';
import { sessionsSchemas } from './plan-sessions-schema';
import { agenticSchemas } from './plan-agentic-schema';
import { bool, int, intList, list, name, object, oneOf, record, text } from './schema';

// What lib/plan.ts reads from here, defined beside the schemas that use them.
export { API_STYLES, EMBED_KINDS, PROMPT_MODES, SCRIPT_NAMES, type ScriptName } from './plan-fields';
export { PLAN_SCHEMA_VERSION, ResolvedPlanHeader, resolvedPlanSchema } from './resolved-plan-schema';
export { LIMIT_STATS };

const opt = v.optional;
const nullable = v.nullable;

// Use-case ids the sections refer to are checked against the plan's own use cases while resolving (useCaseRefs),
// since a plan may define its own.

type Fields = ReturnType<typeof fieldSchemas>;

/** The target section: where requests go and how they are sent. */
function targetSection({ target }: Fields) {
  return orDefault(
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
  );
}

/** The prompts section: what the prompts are. */
function promptsSection({ prompts }: Fields) {
  return orDefault(
    object({
      mode: orDefault(prompts.mode, D.prompts.mode), file: orDefault(prompts.file, D.prompts.file),
      prefixGroups: orDefault(prompts.prefixGroups, D.prompts.prefixGroups),
    }),
    {},
  );
}

/** The sweep section: the sweep script's grid. */
function sweepSection({ rounds, outputTokens }: Fields) {
  return orDefault(
    object({
      contexts: orDefault(intList(1, 10_000_000), D.sweep.contexts),
      concurrencies: orDefault(intList(1, 4096), D.sweep.concurrencies),
      rounds: orDefault(rounds, D.sweep.rounds),
      outputTokens: orDefault(outputTokens, D.sweep.outputTokens),
      // A grid sized to long prompts would send 64 users of 256K tokens: cells whose users' prompts together
      // exceed this are left out (a context's single user is always kept).
      maxTokensInFlight: opt(int(1, 1_000_000_000)),
    }),
    {},
  );
}

/** The capacity section: the capacity script's use cases and search. */
function capacitySection({ users, rounds, outputTokens, search }: Fields) {
  return orDefault(
    object({
      useCases: opt(list(text)),
      concurrencies: orDefault(record(intList(1, 4096)), {}),
      rounds: orDefault(rounds, D.capacity.rounds),
      outputTokens: orDefault(record(outputTokens), {}),
      warmupRequests: orDefault(search.warmupRequests, D.capacity.warmupRequests),
      minMeasuredSeconds: orDefault(search.minMeasuredSeconds, D.capacity.minMeasuredSeconds),
      startUsers: orDefault(search.startUsers, D.capacity.startUsers),
      maxUsers: orDefault(usersOrByUseCase(users), D.capacity.maxUsers),
      exactBelow: orDefault(search.exactBelow, D.capacity.exactBelow),
      resolutionPercent: orDefault(search.resolutionPercent, D.capacity.resolutionPercent),
      maxRepeats: orDefault(search.maxRepeats, D.capacity.maxRepeats),
    }),
    {},
  );
}

/** The burst section: the burst script's profiles and depths. */
function burstSection({ burstTtftLimitMs, mixProfile }: Fields) {
  return orDefault(
    object({
      profiles: orDefault(list(mixProfile), D.burst.profiles),
      depths: orDefault(intList(1, 4096), D.burst.depths),
      ttftLimitMs: orDefault(burstTtftLimitMs, D.burst.ttftLimitMs),
    }),
    {},
  );
}

/** The rate section: each use case at each offered rate, requests arriving on their own clock (open loop). */
function rateSection({ arrivals }: Fields) {
  const rates = list(arrivals.rate, 'list of requests per second');
  return orDefault(
    object({
      useCases: opt(list(text)),
      rates: orDefault(
        v.union(
          [rates, record(rates)],
          (issue) =>
            'must be a list of rates in requests per second, or an object of them by use case id, ' +
            `got ${JSON.stringify(issue.input)}`,
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
      /** VUs sending each cell's schedule between them; `npm run bench --runners n` raises it to n. */
      senders: orDefault(arrivals.senders, D.rate.senders),
      /** Each cell's first seconds, at most half its duration: sent as scheduled, left out of its figures. */
      warmupSeconds: orDefault(arrivals.warmupSeconds, D.rate.warmupSeconds),
      /**
       * In place of the ladder of `rates`: the bench searches each use case's capacity in requests per second
       * (orchestrator/rate-search.ts), one step of durationSeconds per rate; null runs the ladder.
       */
      search: orDefault(nullable(rateSearchFields(arrivals)), null),
    }),
    {},
  );
}

/** The rate search's fields: where it starts, where it stops climbing, how narrow it ends. */
function rateSearchFields(arrivals: Fields['arrivals']) {
  return object({
    startRate: orDefault(arrivals.rate, D.rateSearch.startRate),
    maxRate: orDefault(arrivals.rate, D.rateSearch.maxRate),
    resolutionPercent: orDefault(arrivals.resolutionPercent, D.rateSearch.resolutionPercent),
  });
}

/** The trace section: a production trace replayed at each speed, its rows' own times, lengths and prefixes. */
function traceSection({ arrivals, traceSource }: Fields) {
  return opt(
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
      /** In place of the ladder of `speeds`: the bench searches the fastest speed within the use case's limits. */
      search: orDefault(nullable(object({
        startSpeed: orDefault(arrivals.speed, D.traceSearch.startSpeed),
        maxSpeed: orDefault(arrivals.speed, D.traceSearch.maxSpeed),
        resolutionPercent: orDefault(arrivals.resolutionPercent, D.traceSearch.resolutionPercent),
      })), null),
    }),
  );
}

/** The mix section: the mix script's profiles. */
function mixSection({ rounds, mixProfile }: Fields) {
  return orDefault(
    object({
      profiles: orDefault(list(mixProfile), D.mix.profiles),
      concurrencies: orDefault(intList(1, 4096), D.mix.concurrencies),
      rounds: orDefault(rounds, D.mix.rounds),
    }),
    {},
  );
}

/** The embed section: embeddings or rerank at each (input tokens, batch size, concurrency). */
function embedSection({ embed }: Fields) {
  return orDefault(
    object({
      kind: orDefault(embed.kind, D.embed.kind),
      inputTokens: orDefault(embed.inputTokens, D.embed.inputTokens),
      batchSizes: orDefault(embed.batchSizes, D.embed.batchSizes),
      concurrencies: orDefault(embed.concurrencies, D.embed.concurrencies),
      rounds: orDefault(embed.rounds, D.embed.rounds),
      limit: orDefault(object({ p99LatencyMs: orDefault(embed.p99LatencyMs, D.embed.limit.p99LatencyMs) }), {}),
    }),
    {},
  );
}

/** The gate section: the gate script. */
function gateSection({ gate }: Fields) {
  return opt(
    object({
      useCase: orDefault(text, D.gate.useCase),
      concurrency: orDefault(gate.concurrency, D.gate.concurrency),
      rounds: orDefault(gate.rounds, D.gate.rounds),
      minSuccessRate: orDefault(gate.minSuccessRate, D.gate.minSuccessRate),
    }),
  );
}

/** The schedule section: how cells are laid out in k6's time slots. */
function scheduleSection({ schedule }: Fields) {
  return orDefault(
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
  );
}

function buildPlanInputSchema() {
  const f = fieldSchemas();
  const { monitorInterval, limitStat, minGoodput, summaryTrendStats, useCaseOrId } = f;
  return object({
    name: opt(name),
    target: targetSection(f),
    prompts: promptsSection(f),
    limitStat: orDefault(limitStat, D.limitStat),
    minGoodput: orDefault(minGoodput, D.minGoodput),
    sweep: sweepSection(f),
    capacity: capacitySection(f),
    burst: burstSection(f),
    sessions: sessionsSchemas().sessionsInput,
    agentic: agenticSchemas().agenticInput,
    rate: rateSection(f),
    trace: traceSection(f),
    mix: mixSection(f),
    embed: embedSection(f),
    gate: gateSection(f),
    schedule: scheduleSection(f),
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
    script === 'sessions'
      ? { sessions: { useCases: se.useCases, models: se.models, users: se.users, maxUsers: se.maxUsers } }
      : {};
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

