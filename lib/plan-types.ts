// The plan's types, read off its schemas (lib/plan-schema.ts), where each field is documented, so the checks and the
// types cannot drift apart. Runs in k6 and Node. Kept apart from lib/plan.ts so that the modules plan.ts calls
// (plan-schedule.ts) can name a cell without importing their caller.

import type * as v from 'valibot';
import type { API_STYLES, LIMIT_STATS, PROMPT_MODES, planInputSchema, resolvedPlanSchema } from './plan-schema';
import type { Parsed } from './schema';

export type ApiStyle = (typeof API_STYLES)[number];

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

/** A rate cell's arrival schedule, or a trace cell's speed. */
export type CellArrivals = NonNullable<Cell['arrivals']>;

/** The trace a trace script replays, and what it was (plan.json's `trace`). */
export type TraceConfig = NonNullable<Plan['trace']>;

/** How the bench ran a step (the report says how each figure was measured). */
export type DrivenStepInfo = NonNullable<Cell['driven']>;

export type ScheduleConfig = Plan['schedule'];

export type MonitorConfig = Plan['monitor'];

/** How `npm run bench` searches each use case's capacity (docs/design/architecture.md, "Bench-driven runs"). */
export type CapacitySearchConfig = NonNullable<Plan['search']>;

export type GateConfig = NonNullable<Plan['gate']>;

/** The embed script's kind and latency limit (plan.json's `embed`). */
export type EmbedConfig = NonNullable<Plan['embed']>;

/** The part of a plan a user writes (JSON file or env); everything is optional. Defaults in lib/plan-defaults.ts. */
export type PlanInput = v.InferInput<ReturnType<typeof planInputSchema>>;
