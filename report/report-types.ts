// The report's shared types: the report object every renderer reads, its parts, and the baseline comparison.
// Runs in Node.
//
// Kept apart from the code that builds them (build-report.ts, compare.ts) so that each builder imports the
// types and neither imports the other: a report holds its comparison, and a comparison reads two reports.

import type { LimitStat, Plan, PromptMode } from '../lib/plan';
import type { UseCaseCapacity } from '../analysis/capacity';
import type { GateResult } from '../analysis/gates';
import type { BurstCapacity } from '../analysis/burst-capacity';
import type { CellStats } from '../analysis/cells';
import type { RunInfo, ThresholdOutcome } from './inputs';
import type { CostOptions } from '../analysis/power';
import type { ThroughputFrontier } from '../analysis/frontier';
import type { ActiveUsersCapacity } from '../analysis/active-users';
import type { LatencyFrom, RateCapacity } from '../analysis/rate-capacity';
import type { WordedReconciliation } from './reconciliation-words';
import type { TraceReplayReport } from '../analysis/trace-replay';
import type { PredictedInfo } from './predicted';
import type { EmbedReport } from './embed-report';
import type { AgenticReport } from '../analysis/agentic-report';
import type { ReportWarning } from './warnings';
import type { Worded } from './capacity-words';

/**
 * Bumped whenever report.json changes shape. 2: each use case's capacity carries its bootstrap `interval` and its
 * goodput, distributions a `stdDev`, and comparisons the noise they weighed a change against. 3: cells carry
 * `measurements`, and searched capacities the `verdicts` of the steps on either side of them; `activeUsers`, the
 * sessions part's capacity in active users per use case, and each cell's `sessions` figures. 4: `rates`, the rate
 * part's capacity in requests per second per use case, and each cell's `openLoop` figures (schedule lag, offered and
 * achieved rate). 5: `trace`, the trace part's replay (the trace's figures, each speed's, the fastest speed it held);
 * cells carry their per-request `lengths` and `cachedTokensTotal`, and `openLoop.speed`. 6: cells carry
 * `cacheHitShare` and, in `metrics`, `ttftCacheHit` and `ttftCacheMiss` (TTFT of the requests the prefix cache served
 * part of, or none of); parts their `prefixGroups` (plan prompts.prefixGroups). 7: `frontiers`, per measured grid
 * (sweep, mix) the points of the throughput-per-GPU against median per-user speed frontier, each with its energy and
 * cost per output token; `predicted`, a prediction's record (report/predicted.ts), null for a measured run. 8:
 * `embeddings`, the embed part's capacity per input length and batch (report/embed-report.ts), null without one. 9:
 * `warnings` are objects (`kind`, a one-line `summary`, the long `details`; report/warnings.ts), one per kind, ranked
 * by how much they change the answer; `runNotes`, the notes on the suite's own workings (stray cells, a split part's
 * merge), no warnings. 10: a cell's `server` figures are over exactly its measured requests or null, with
 * `scrapes` (the two scrapes its TTFT or e2e mean was read between, and the requests the server counted there) and
 * `leftOut` (why a histogram mean is left out); warning kind `clock-fault`; `agentic`, the agentic part's steps of
 * agents and its capacity per SLO tier (analysis/agentic-report.ts), null without one;
 * cells carry `clientIntegrity` (analysis/client-integrity.ts: the agent's read lag, CPU,
 * tokens read together and the server's chunked tokens, failed and cut requests, load delivered against planned, and
 * the client-bound verdict); a capacity's result may be `undetermined` (a client-bound step would decide it), with
 * its `clientBound` steps. 11: `reconciliation`, each use case's capacity in users beside its capacity in
 * requests/s by Little's law (analysis/capacity-reconciliation.ts); `rates` carry `latencyFrom` (which TTFT and e2e
 * their limits read: from the intended send by default); `openLoop.queue`, whether the queue grew through a cell;
 * `options.rateLatencyFrom`. 12: figures, not sentences, for why a cell was client-bound (`clientBound` and a
 * ladder's `clientBound[].cause`: the agent's CPU share and how it read, analysis/client-bound.ts), why a rate cell
 * under-offered (`openLoop.problems`: kind `underOffered` or `late`) and why a server mean is left out
 * (`server.leftOut`: kind `shared` or `count`); the report words them.
 */
export const REPORT_SCHEMA_VERSION = 12;

export interface ReportOptions extends CostOptions {
  /** Minimum success rate a capacity step needs, 0..1 (null: not checked). */
  readonly minSuccessRate: number | null;
  /** Which TTFT and e2e an open-loop cell's limits read (analysis/rate-capacity.ts); absent: from the intended send. */
  readonly rateLatencyFrom?: LatencyFrom;
}

export interface PartSummary {
  readonly name: string;
  readonly script: Plan['script'];
  readonly planName: string;
  readonly cells: number;
  readonly cellsWithData: number;
  readonly limitStat: LimitStat;
  readonly promptMode: PromptMode;
  /** The plan's prompt groups sharing a prefix (docs/guides/prefix-groups.md); null: every prompt its own. */
  readonly prefixGroups: Plan['prompts']['prefixGroups'];
  readonly target: Plan['target'];
  readonly monitorEnabled: boolean;
  readonly monitorIntervalSeconds: number;
  readonly plannedSeconds: number;
  readonly testRunDurationMs: number | null;
  readonly thresholds: readonly ThresholdOutcome[];
  readonly hasSummary: boolean;
  readonly csvRows: number;
  /** The capacity search's settings when the bench searched this part; null otherwise. */
  readonly search: Plan['search'];
  /** Cells ran back to back, driven by the bench (lib/drive.ts), rather than in k6 time slots. */
  readonly driven: boolean;
}

export interface Finding {
  readonly label: string;
  readonly value: string;
}

export interface Totals {
  readonly requests: number;
  readonly succeeded: number;
  readonly failed: number;
  /** Requests cut by the end of a slot or by Ctrl-C (see CellStats.cut). */
  readonly cut: number;
  readonly successRate: number | null;
  readonly errorsByKind: Readonly<Record<string, number>>;
  readonly outputTokens: number;
}

export interface MixProfileSummary {
  readonly profile: string;
  readonly title: string;
  readonly contextTokens: number;
  readonly outputTokens: number;
  readonly cellIds: readonly string[];
}

/**
 * The verdict of a gate part: the gate cell checked against its use case's limits and the gate's minimum success
 * rate.
 */
export type { GateResult } from '../analysis/gates';

/** The trace replay as report.json holds it: its speed ladder worded. */
export type WordedTraceReplay =
  Omit<TraceReplayReport, 'capacity'> & { readonly capacity: Worded<RateCapacity> | null };

export interface Report {
  readonly schemaVersion: typeof REPORT_SCHEMA_VERSION;
  readonly generatedAt: string;
  readonly title: string;
  readonly model: string;
  readonly runDir: string;
  readonly run: RunInfo | null;
  /** A prediction (npm run bench -- --predict): its profile, what it was fitted to, its interval; null if measured. */
  readonly predicted: PredictedInfo | null;
  readonly parts: readonly PartSummary[];
  /** Parts listed in run.json that have no folder (an interrupted run). */
  readonly missingParts: readonly string[];
  readonly limitStat: LimitStat;
  readonly burstTtftLimitMs: number;
  readonly options: ReportOptions;
  readonly cells: readonly CellStats[];
  readonly useCases: readonly Worded<UseCaseCapacity>[];
  /** The sessions part's capacities in active users (analysis/active-users.ts); [] without one. */
  readonly activeUsers: readonly Worded<ActiveUsersCapacity>[];
  /** Capacity in requests per second per use case, from the rate part (open-loop arrivals). */
  readonly rates: readonly Worded<RateCapacity>[];
  /** Each use case with a capacity in users and one in requests/s, the two side by side. */
  readonly reconciliation: readonly WordedReconciliation[];
  /** The trace part: the trace beside what each speed sent, and the fastest speed it held; null without one. */
  readonly trace: WordedTraceReplay | null;
  /** The embed part: embeddings or rerank capacity per input length and batch; null without one. */
  readonly embeddings: EmbedReport | null;
  /** The agentic part's steps and SLO tiers (analysis/agentic-report.ts); null without one. */
  readonly agentic: AgenticReport | null;
  readonly bursts: readonly Worded<BurstCapacity>[];
  readonly mixProfiles: readonly MixProfileSummary[];
  /** Throughput per GPU against per-user speed: each measured grid's frontier (analysis/frontier.ts), or []. */
  readonly frontiers: readonly ThroughputFrontier[];
  readonly gates: readonly GateResult[];
  readonly totals: Totals;
  readonly highlights: readonly Finding[];
  readonly keyFindings: readonly Finding[];
  /** One per kind, the most answer-changing first (report/warnings.ts, WARNING_RANK). */
  readonly warnings: readonly ReportWarning[];
  /** Notes on the suite's own workings, not on the answer: stray cells, how a split part was merged. */
  readonly runNotes: readonly string[];
  /** The run did not finish: a part without summary.json, a cut CSV, planned cells without samples, or an interrupt. */
  readonly incomplete: boolean;
  /** Planned cells with no samples at all. */
  readonly missingCells: readonly string[];
  comparison: Comparison | null;
}

export interface MetricDelta {
  readonly metric: string;
  readonly label: string;
  readonly better: 'higher' | 'lower';
  readonly baseline: number | null;
  readonly current: number | null;
  /** Relative change (current - baseline) / baseline; null when either side is missing or baseline is 0. */
  readonly change: number | null;
  /**
   * The change the measurement's own noise can explain, in the metric's unit: 1.96 standard errors of the
   * difference of two means (the limit statistic "avg" only); null when not known. A move within it is
   * no regression, however far beyond the tolerance.
   */
  readonly noise: number | null;
  readonly regression: boolean;
  readonly gated: boolean;
}

export interface CellComparison {
  readonly cellId: string;
  readonly deltas: readonly MetricDelta[];
  readonly regression: boolean;
  readonly gatedRegression: boolean;
}

export interface CapacityComparison {
  readonly kind: 'useCase' | 'burst';
  readonly id: string;
  readonly title: string;
  readonly baseline: string;
  readonly current: string;
  readonly baselineValue: number | null;
  readonly currentValue: number | null;
  readonly change: number | null;
  /** The 95% intervals of both capacities, as written ("69-76"); null where a side has none. */
  readonly baselineInterval: string | null;
  readonly currentInterval: string | null;
  /** Beyond the tolerance but inside both capacities' intervals: the noise of the measurement, not a regression. */
  readonly withinNoise: boolean;
  readonly regression: boolean;
}

export interface Comparison {
  readonly baselineDir: string;
  readonly baselineRunId: string | null;
  readonly tolerance: number;
  readonly cells: readonly CellComparison[];
  readonly capacities: readonly CapacityComparison[];
  readonly onlyInBaseline: readonly string[];
  readonly onlyInCurrent: readonly string[];
  /** One sentence per gated regression. */
  readonly regressions: readonly string[];
  readonly gatedRegression: boolean;
}
