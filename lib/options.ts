// k6 options from a resolved plan: one scenario per cell (strictly sequential), the monitor scenario, and thresholds.
// Runs in k6 and Node.

import { ARRIVAL_METRICS, CLIENT_METRICS, EMBED_METRICS, REQUEST_METRICS, type CellTag } from './metrics';
import type { Cell, Plan } from './plan';
import { cellVus } from './plan-schedule';
import { cellMetricKey } from './summary-data';
import type { UseCase, UseCaseLimit } from '../thresholds/use-cases';

export const MONITOR_SCENARIO = 'monitor';

/**
 * Threshold expressions that always hold. k6 computes per-tag statistics only for sub-metrics named
 * in thresholds, so each cell gets these on its sub-metrics: they keep the cell's figures in the
 * end-of-test summary and decide nothing.
 */
export const KEEP_TREND_STATS = 'max>=0';
export const KEEP_RATE_STATS = 'rate>=0';
export const INFORMATIONAL_THRESHOLDS: readonly string[] = [KEEP_TREND_STATS, KEEP_RATE_STATS];

/** A k6 scenario as the suite writes it (a subset of k6's scenario keys). */
export interface ScenarioOptions {
  executor: 'per-vu-iterations';
  vus: number;
  iterations: number;
  startTime: string;
  maxDuration: string;
  gracefulStop: string;
  exec: string;
  tags?: Record<string, string>;
}

export type ThresholdSpec = string | { threshold: string; abortOnFail?: boolean; delayAbortEval?: string };

export interface SuiteOptions {
  scenarios: Record<string, ScenarioOptions>;
  thresholds: Record<string, ThresholdSpec[]>;
  summaryTrendStats: string[];
  setupTimeout: string;
  teardownTimeout: string;
  /** Only when the plan's target.insecureSkipTLSVerify is set: k6 then accepts any server certificate. */
  insecureSkipTLSVerify?: true;
}

function seconds(s: number): string {
  return `${Math.max(0, Math.round(s * 1000) / 1000)}s`;
}

/** The tags a cell's scenario puts on every sample (docs/design/architecture.md, "Metric names"). */
export function cellTags(
  cell: Pick<Cell, 'id' | 'script' | 'contextTokens' | 'outputTokens' | 'concurrency' | 'useCase' | 'profile'>,
): Partial<Record<CellTag, string>> {
  const tags: Partial<Record<CellTag, string>> = {
    cell: cell.id,
    script: cell.script,
    context: String(cell.contextTokens),
    output: String(cell.outputTokens),
    concurrency: String(cell.concurrency),
  };
  if (cell.useCase) tags.use_case = cell.useCase;
  if (cell.profile) tags.profile = cell.profile;
  return tags;
}

/**
 * A limit as a k6 threshold expression on a statistic, e.g. "avg<8000": the one spelling the gate's
 * thresholds and the report's capacity checks share.
 */
export function limitExpression(limit: Pick<UseCaseLimit, 'operator' | 'value'>, stat: string): string {
  return `${stat}${limit.operator}${limit.value}`;
}

/** Metrics whose per-cell statistics the summary carries. */
const PER_CELL_TRENDS = [
  REQUEST_METRICS.ttft, REQUEST_METRICS.e2e, REQUEST_METRICS.itl, REQUEST_METRICS.tpot, REQUEST_METRICS.decodeSpeed,
  REQUEST_METRICS.prefillSpeed,
] as const;

/** A rate cell's own Trends. */
const OPEN_LOOP_TRENDS = [
  ARRIVAL_METRICS.scheduleLag, ARRIVAL_METRICS.ttftIntended, ARRIVAL_METRICS.e2eIntended, CLIENT_METRICS.handoff,
] as const;

/** The scenario of a bench-driven run: every VU runs one long iteration, asking the bench for each request. */
export const DRIVEN_SCENARIO = 'driven';
/** Long enough for any bench-driven run; the bench ends it by answering stop, or with SIGINT. */
const DRIVEN_MAX_DURATION = '72h';

/** How the bench drives a run (lib/drive.ts): VUs to start, and whether the plan's cells are known up front. */
export interface DrivenOptions {
  readonly vus: number;
  /** False for an adaptive search, whose cells are chosen during the run: no per-cell thresholds. */
  readonly cellThresholds: boolean;
}

/**
 * Builds the k6 options for a plan. Cells run one after another: each starts after the previous
 * one's maxDuration + gracefulStop + gap (k6 has no "after the previous scenario" start), so no two
 * cells ever overlap. The monitor runs alongside, from the start to the end of the last cell.
 * When the bench drives (`driven`), one scenario of `vus` VUs replaces the cells' scenarios.
 */
export function buildOptions(plan: Plan, driven: DrivenOptions | null = null): SuiteOptions {
  const scenarios: Record<string, ScenarioOptions> = {};
  const thresholds: Record<string, ThresholdSpec[]> = {};
  if (driven) {
    scenarios[DRIVEN_SCENARIO] = {
      executor: 'per-vu-iterations',
      vus: driven.vus,
      iterations: 1,
      startTime: '0s',
      maxDuration: DRIVEN_MAX_DURATION,
      gracefulStop: '0s',
      exec: 'default',
      tags: { script: plan.script },
    };
  }
  for (const cell of driven && !driven.cellThresholds ? [] : plan.cells) {
    if (!driven) scenarios[cell.id] = {
      executor: 'per-vu-iterations',
      vus: cellVus(cell),
      iterations: cell.rounds,
      startTime: seconds(cell.startSeconds),
      maxDuration: seconds(cell.maxDurationSeconds),
      gracefulStop: seconds(cell.gracefulStopSeconds),
      exec: 'default',
      tags: cellTags(cell) as Record<string, string>,
    };
    const gated = plan.script === 'gate' && plan.gate !== null;
    const useCase: UseCase | undefined = cell.useCase ? plan.useCases.find((u) => u.id === cell.useCase) : undefined;
    // An agentic step is gated by the plan's gate tier (docs/guides/agentic.md): its limits name their statistics.
    const tierLimits = plan.agentic?.tiers.find((t) => t.id === plan.agentic!.gateTier)?.limits ?? [];
    for (const def of PER_CELL_TRENDS) {
      const key = cellMetricKey(def.name, cell);
      const gates =
        gated && useCase
          ? useCase.limits
              .filter((l) => REQUEST_METRICS[l.metric].name === def.name)
              .map((l) => limitExpression(l, l.stat ?? plan.limitStat))
          : tierLimits.filter((l) => REQUEST_METRICS[l.metric].name === def.name)
            .map((l) => limitExpression(l, l.stat));
      thresholds[key] = gates.length > 0 ? gates : [KEEP_TREND_STATS];
    }
    // A rate cell's sender against its schedule: kept in the summary too (k6 keeps per-cell figures of thresholds
    // only).
    if (cell.arrivals)
      for (const def of OPEN_LOOP_TRENDS) thresholds[cellMetricKey(def.name, cell)] = [KEEP_TREND_STATS];
    // An embed cell's latency, which the stream Trends above never see.
    if (cell.script === 'embed') thresholds[cellMetricKey(EMBED_METRICS.embedLatency.name, cell)] = [KEEP_TREND_STATS];
    thresholds[cellMetricKey(REQUEST_METRICS.requestOk.name, cell)] =
      gated ? [`rate>=${plan.gate!.minSuccessRate}`] : [KEEP_RATE_STATS];
    // The share of requests within every limit, judged per request by the agent: the SLO as users state it.
    if (gated && useCase && plan.minGoodput !== null) {
      thresholds[cellMetricKey(REQUEST_METRICS.goodput.name, cell)] =
        [limitExpression({ operator: '>=', value: plan.minGoodput }, 'rate')];
    }
  }
  if (plan.monitor.enabled && plan.target.metricsUrl !== null) {
    scenarios[MONITOR_SCENARIO] = {
      executor: 'per-vu-iterations',
      vus: 1,
      iterations: 1,
      startTime: '0s',
      maxDuration: driven ? DRIVEN_MAX_DURATION : seconds(plan.totalSeconds + 5),
      gracefulStop: '5s',
      exec: 'monitor',
    };
  }
  return {
    scenarios,
    thresholds,
    summaryTrendStats: [...plan.summaryTrendStats],
    setupTimeout: '120s',
    teardownTimeout: '60s',
    ...(plan.target.insecureSkipTLSVerify ? { insecureSkipTLSVerify: true as const } : {}),
  };
}

/**
 * Iterations the plan's cells will run in total, or one runner's share of them (`usersOf` gives its VUs of a cell,
 * lib/runner.ts): the monitor stops once this many iterations ended.
 */
export function plannedRequests(plan: Plan, usersOf: (cell: Cell) => number = cellVus): number {
  return plan.cells.reduce((n, c) => n + usersOf(c) * c.rounds, 0);
}
