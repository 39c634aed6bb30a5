// The plan's agentic section: the agent model, the ladder of concurrent agents, the SLO tiers and how each step is
// held. Runs in k6 and Node. Field schemas of the input (every field optional) and of the resolved plan.

import * as v from 'valibot';
import { DEFAULT_TIERS, TIER_METRICS, TIER_STATS } from '../thresholds/agentic';
import { PLAN_DEFAULTS } from './plan-defaults';
import { orDefault } from './plan-fields';
import { thinkTimeSchema } from './plan-sessions-schema';
import { bool, int, intList, list, name, num, object, oneOf, text } from './schema';
import { TRACE_FORMATS } from './trace/types';

const opt = v.optional;
const dayOfSeconds = 86_400;

function rangeSchema(min: number, max: number) {
  return v.pipe(
    object({ min: int(min, max), max: int(min, max) }),
    v.check((r) => r.max >= r.min, 'must have max >= min'),
  );
}

function traceSchemas() {
  /** A recorded agent trace replayed instead of the generator's sessions (docs/guides/agentic.md). */
  const trace = {
    /** The trace file (k6 opens it: the bench makes the path absolute). */
    file: text,
    /** Mooncake (with session_id), Bailian or otel (an OpenTelemetry span export); null: detected. */
    format: v.nullable(oneOf(TRACE_FORMATS)),
    /** Replay without the rows that break the format (counted) instead of stopping at the first. */
    skipBadRows: bool,
  };
  const count = int(0);
  const traceSummary = object({
    format: oneOf(TRACE_FORMATS), loadedRows: count, badRows: count, skippedRows: count, sessions: count,
    calls: count, maxCallsPerSession: count, maxInputTokens: count, maxOutputTokens: count, inputTokensTotal: count,
    idealCachedShare: num(0, 1), blocks: oneOf(['hash_ids', 'sessions'] as const),
  });
  return { trace, traceSummary };
}

/**
 * In place of the `agents` ladder: the bench searches the number of concurrent agents, one k6 process per step, until
 * every tier's last passing and first failing steps are within the resolution (orchestrator/agentic-search.ts).
 */
function searchSchema() {
  const S = PLAN_DEFAULTS.agenticSearch;
  const fields = {
    /** The first step's agents. */
    startAgents: int(1, 4096),
    /** The most agents a step holds: a tier that passes it is "more than" that. */
    maxAgents: int(1, 4096),
    /** Below this many agents a tier is resolved to one agent, above it to resolutionPercent. */
    exactBelow: int(1, 4096),
    resolutionPercent: num(1, 50),
  };
  const checked = <S extends v.GenericSchema<unknown, { startAgents: number; maxAgents: number }>>(s: S) =>
    v.pipe(s, v.check((x) => x.maxAgents >= x.startAgents, 'must have maxAgents >= startAgents'));
  return {
    input: checked(object({
      startAgents: orDefault(fields.startAgents, S.startAgents),
      maxAgents: orDefault(fields.maxAgents, S.maxAgents),
      exactBelow: orDefault(fields.exactBelow, S.exactBelow),
      resolutionPercent: orDefault(fields.resolutionPercent, S.resolutionPercent),
    })),
    resolved: checked(object(fields)),
  };
}

function buildAgenticSchemas() {
  const D = PLAN_DEFAULTS.agentic;
  const time = thinkTimeSchema();
  const tokens = int(1, 10_000_000);
  const model = {
    turns: int(1, 1000),
    userTokens: tokens,
    outputTokens: int(1, 1_000_000),
    toolLoopDepth: rangeSchema(0, 100),
    parallelToolCalls: rangeSchema(1, 64),
    toolResultTokens: tokens,
    toolLatency: time,
    thinkTime: time,
    subAgents: object({ probability: num(0, 1), count: rangeSchema(1, 64), toolLoopDepth: rangeSchema(0, 100) }),
    systemPromptTokens: tokens,
    tools: int(1, 1000),
    toolDescriptionTokens: tokens,
    compaction: v.nullable(object({ atTokens: tokens, summaryTokens: tokens })),
  };
  const tier = object({
    id: name,
    limits: list(object({
      metric: oneOf(TIER_METRICS), stat: oneOf(TIER_STATS), operator: oneOf(['<', '<=', '>', '>='] as const),
      value: num(0),
    })),
  });
  const tiers = v.pipe(
    list(tier),
    v.check((ts) => new Set(ts.map((t) => t.id)).size === ts.length, 'must give each tier its own id'),
  );
  const timing = {
    /** Agents of a step arrive evenly over this many seconds. */
    rampSeconds: num(0, dayOfSeconds),
    /** After the ramp, calls that start within this many seconds are warm-up (tag phase=warmup). */
    warmupSeconds: num(0, dayOfSeconds),
    /** Then calls that start and end within this many seconds are measured; no session starts after. */
    holdSeconds: num(1, dayOfSeconds),
  };
  const fields = {
    agents: intList(1, 4096),
    seed: int(0, 2 ** 32 - 1),
    tiers,
    /** The tier whose limits become the cells' k6 thresholds, so a run can gate a deploy; null: none. */
    gateTier: v.nullable(name),
  };
  const { trace, traceSummary } = traceSchemas();
  const search = searchSchema();
  const partial = Object.fromEntries(Object.entries(model).map(([k, s]) => [k, opt(s)])) as {
    [K in keyof typeof model]: v.OptionalSchema<(typeof model)[K], undefined>;
  };
  const agenticInput = orDefault(
    object({
      model: orDefault(object(partial), {}),
      agents: orDefault(fields.agents, D.agents),
      seed: orDefault(fields.seed, D.seed),
      tiers: orDefault(tiers, DEFAULT_TIERS),
      gateTier: orDefault(fields.gateTier, null),
      rampSeconds: orDefault(timing.rampSeconds, D.rampSeconds),
      warmupSeconds: orDefault(timing.warmupSeconds, D.warmupSeconds),
      holdSeconds: orDefault(timing.holdSeconds, D.holdSeconds),
      trace: orDefault(v.nullable(object({
        file: trace.file, format: orDefault(trace.format, null), skipBadRows: orDefault(trace.skipBadRows, false),
      })), null),
      search: orDefault(v.nullable(search.input), null),
    }),
    {},
  );
  const resolvedAgentic = object({
    model: object(model), seed: fields.seed, tiers, gateTier: fields.gateTier, ...timing,
    // Absent in a plan.json from before agent traces: the generator's sessions.
    trace: orDefault(v.nullable(object({ ...trace, summary: traceSummary })), null),
    // Absent in a plan.json from before the agents' search: the ladder.
    search: orDefault(v.nullable(search.resolved), null),
  });
  return { agenticInput, resolvedAgentic };
}

let built: ReturnType<typeof buildAgenticSchemas> | null = null;

/** The agentic section's schemas, built once per JavaScript runtime. */
export function agenticSchemas(): ReturnType<typeof buildAgenticSchemas> {
  if (built === null) built = buildAgenticSchemas();
  return built;
}
