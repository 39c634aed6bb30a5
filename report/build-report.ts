// The report object (with schemaVersion) built from a run's inputs and samples; every renderer reads only this.
// Runs in Node.

import type { LimitStat, TraceConfig } from '../lib/plan';
import { MIX_PROFILES } from '../thresholds/use-cases';
import { runMinGoodput, runUseCases, type PartInput, type RunInput } from './inputs';
import type { SamplesData } from './read-samples';
import { embedReport } from './embed-report';
import { applyScalingEfficiency, buildCellStats, type CellStats } from '../analysis/cells';
import type { CellAccumulator, TrendKey } from '../analysis/cell-accumulator';
import { spanIndex } from '../analysis/request-spans';
import { clockFaultWarning } from './clock-fault-warning';
import { burstCapacity, type BurstCapacity } from '../analysis/burst-capacity';
import {
  useCaseCapacity,
  withInterval,
  type RequestValues,
  type UseCaseCapacity,
} from '../analysis/capacity';
import { DEFAULT_COST } from '../analysis/power';
import { MIN_SUCCESS_RATE } from '../lib/plan-defaults';
import { throughputFrontiers } from '../analysis/frontier';
import { activeUsersCapacities } from '../analysis/active-users';
import { rateCapacities } from '../analysis/rate-capacity';
import { reconcileCapacities } from '../analysis/capacity-reconciliation';
import { gateResults } from '../analysis/gates';
import { wordReconciliation } from './reconciliation-words';
import { agenticReport, type AgenticSamples } from '../analysis/agentic-report';
import { traceReplayReport, traceSendsOf, type TraceReplayReport, type TraceSends } from '../analysis/trace-replay';
import { wordResult } from './capacity-words';
import { judgeMergedThresholds } from './split-thresholds';
import { splitNotes } from './split-notes';
import {
  capacityBoundWarnings, clientBoundWarning, damagedRowsWarning, failedRequestsWarning, incompleteWarning,
  mixedLimitStatsWarning, noSamplesWarning, rankWarnings, underOfferedWarning,
} from './warnings';
import { reportTitle } from './predicted';
import { buildFindings, gridCells } from './build-findings';
import { plural } from './format';
import { withPartStall } from '../analysis/client-bound';
import {
  REPORT_SCHEMA_VERSION,
  type MixProfileSummary,
  type PartSummary,
  type Report,
  type ReportOptions,
  type Totals,
  type WordedTraceReplay,
} from './report-types';

export const DEFAULT_REPORT_OPTIONS: ReportOptions = { ...DEFAULT_COST, minSuccessRate: MIN_SUCCESS_RATE };

function addCounts(into: Record<string, number>, from: Readonly<Record<string, number>>): void {
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
}

/** Builds the report object from the loaded run and each part's samples (same order as run.parts). */
export function buildReport(
  input: RunInput, samples: readonly SamplesData[], options: ReportOptions = DEFAULT_REPORT_OPTIONS, now = new Date(),
): Report {
  const measured = measureParts(input, samples, options);
  const { cells } = measured;
  applyScalingEfficiency(cells);
  const firstPlan = input.parts[0]!.plan;
  const limitStat = firstPlan.limitStat;
  const useCases = useCaseCapacities(input, cells, limitStat, options, measured.requestValues);
  const burstPart = input.parts.find((part) => part.plan.script === 'burst');
  const burstTtftLimitMs = burstPart?.plan.burstTtftLimitMs ?? firstPlan.burstTtftLimitMs;
  const bursts = burstCapacities(cells, limitStat, burstTtftLimitMs);
  const totals = runTotals(cells);
  const missingParts = (input.run?.parts ?? []).filter((name) => !input.parts.some((part) => part.name === name));
  const incomplete = measured.incomplete || input.run?.interrupted === true || missingParts.length > 0;
  const model = input.run?.target.model || firstPlan.target.model;
  const predicted = input.run?.predicted ?? null;
  const { minSuccessRate } = options;
  const judged = {
    limitStat, minSuccessRate, minGoodput: runMinGoodput(input), requestValues: measured.requestValues,
    latencyFrom: options.rateLatencyFrom ?? 'intended',
  };
  const { highlights, keyFindings } = buildFindings(cells, gridCells({ cells }), useCases, bursts, totals);
  const activeUsers = activeUsersCapacities(
    input.parts.map((part) => part.plan), cells, limitStat, options.minSuccessRate, useCases,
  );
  const rates = rateCapacities(runUseCases(input), cells, judged);
  const capacities = {
    useCases: useCases.map(wordResult), activeUsers: activeUsers.map(wordResult), rates: rates.map(wordResult),
    bursts: bursts.map(wordResult),
  };
  const warnings = runWarnings(input, measured, capacities, { cells, totals, missingParts, incomplete });
  return {
    schemaVersion: REPORT_SCHEMA_VERSION,
    generatedAt: now.toISOString(),
    title: reportTitle(model, predicted),
    model, runDir: input.dir, run: input.run, predicted, parts: measured.parts, missingParts, limitStat,
    burstTtftLimitMs,
    options,
    cells, useCases: capacities.useCases, activeUsers: capacities.activeUsers, rates: capacities.rates,
    reconciliation: reconcileCapacities(useCases, rates, cells).map(wordReconciliation),
    trace: wordTrace(traceReplayReport(runTrace(input), runUseCases(input), cells, measured.traceSends, judged)),
    agentic: agenticReport(input.parts.map((part) => part.plan), cells, measured.agentic, minSuccessRate),
    embeddings: embedReport(input, samples),
    bursts: capacities.bursts,
    mixProfiles: mixProfiles(cells),
    frontiers: throughputFrontiers(cells, options),
    gates: gateResults(input.parts.map((part) => part.plan), cells),
    totals,
    highlights,
    keyFindings,
    warnings,
    runNotes: measured.runNotes,
    incomplete,
    missingCells: measured.missingCells,
    comparison: null,
  };
}

/** The trace replay with its speed ladder worded, as report.json holds it. */
function wordTrace(trace: TraceReplayReport | null): WordedTraceReplay | null {
  return trace === null ? null : { ...trace, capacity: trace.capacity === null ? null : wordResult(trace.capacity) };
}

/** The run's warnings, ranked by how much each changes the answer (report/warnings.ts). */
function runWarnings(
  input: RunInput,
  measured: MeasuredParts,
  capacities: Pick<Report, 'useCases' | 'activeUsers' | 'rates' | 'bursts'>,
  run: { cells: readonly CellStats[]; totals: Totals; missingParts: readonly string[]; incomplete: boolean },
): Report['warnings'] {
  const { useCases, activeUsers, rates, bursts } = capacities;
  const { cells, totals, missingParts } = run;
  const causes = run.incomplete ? incompleteCauses(input, measured, missingParts) : [];
  const ladders = [
    ...useCases.map((u) => ({ name: u.useCase.title, result: u.result })),
    ...activeUsers.map((a) => ({ name: `${a.useCase.title} (active users)`, result: a.result })),
    ...rates.map((r) => ({ name: `${r.useCase.title} (requests/s)`, result: r.result })),
    ...bursts.map((b) => ({ name: `${b.title} (burst depth)`, result: b.result })),
  ];
  return rankWarnings([
    noSamplesWarning(totals),
    run.incomplete ? incompleteWarning(measured.missingCells, missingParts, causes) : null,
    ...capacityBoundWarnings(ladders),
    clientBoundWarning(cells, new Set([...useCases, ...activeUsers, ...rates].flatMap((c) => c.cellIds)), ladders),
    clockFaultWarning(cells),
    underOfferedWarning(cells),
    failedRequestsWarning(totals, cells),
    mixedLimitStatsWarning(limitStatNote(input)),
    damagedRowsWarning(measured.damagedRows),
  ]);
}

/** What the parts measured: every planned cell's statistics, a summary per part, and what is missing or damaged. */
interface MeasuredParts {
  readonly cells: CellStats[];
  /** Each capacity and rate cell's per-request values of the request Trends (ITL aside), for capacity intervals. */
  readonly requestValues: Map<string, RequestValues>;
  /** Each trace cell's requests as sent: their lengths and send times (analysis/trace-replay.ts bins them). */
  readonly traceSends: Map<string, TraceSends>;
  /** Each agentic cell's per-request values and its agents' figures (analysis/agentic-report.ts). */
  readonly agentic: Map<string, AgenticSamples>;
  readonly parts: PartSummary[];
  /** Why the run is incomplete, part by part: unfinished parts, cells without samples, missing runners. */
  readonly incompleteCauses: string[];
  /** Per part, the CSV rows dropped as damaged. */
  readonly damagedRows: string[];
  /** Notes on the suite's own workings (stray cells, how a split part was merged): the report's last section. */
  readonly runNotes: string[];
  readonly missingCells: string[];
  /** A part without its summary, a cut CSV or planned cells without samples. */
  readonly incomplete: boolean;
}

/** A cell's per-request values of each request Trend but ITL (one value per token is not a limit's). */
function requestValuesOf(accumulator: CellAccumulator): RequestValues {
  const out: RequestValues = {};
  for (const [key, values] of Object.entries(accumulator.trends)) {
    if (key !== 'itl') out[key as TrendKey] = values.values();
  }
  return out;
}

export function measureParts(input: RunInput, samples: readonly SamplesData[], options: ReportOptions): MeasuredParts {
  const measured: MeasuredParts = {
    cells: [], requestValues: new Map(), traceSends: new Map(), agentic: new Map(), parts: [], incompleteCauses: [],
    damagedRows: [], runNotes: [], missingCells: [], incomplete: false,
  };
  let incomplete = false;
  input.parts.forEach((part, i) => {
    const data = samples[i]!;
    let withData = 0;
    const partCells: CellStats[] = [];
    const requests = { spans: data.requestSpans, index: spanIndex(data.requestSpans) };
    for (const cell of part.plan.cells) {
      const accumulator = data.cells.get(cell.id);
      if (accumulator) withData++;
      const monitorIntervalMs = part.plan.monitor.intervalSeconds * 1000;
      const stats = buildCellStats(cell, accumulator, data.monitor, options, monitorIntervalMs, requests);
      partCells.push(part.plan.cells.length === 1 ? withPartStall(stats, input.run?.stallsMs[part.name]) : stats);
      if (accumulator && (cell.script === 'capacity' || cell.arrivals))
        measured.requestValues.set(cell.id, requestValuesOf(accumulator));
      if (accumulator && cell.script === 'trace') measured.traceSends.set(cell.id, traceSendsOf(accumulator));
      if (accumulator && cell.script === 'agentic')
        measured.agentic.set(cell.id, { values: requestValuesOf(accumulator), agents: accumulator.agentic });
    }
    measured.cells.push(...partCells);
    const lacking = part.plan.cells.filter((cell) => !data.cells.has(cell.id)).map((cell) => cell.id);
    measured.missingCells.push(...lacking);
    const split = splitNotes(part, data);
    const problems = partProblems(part, data, lacking);
    measured.runNotes.push(...split.notes, ...problems.runNotes);
    measured.incompleteCauses.push(...split.problems, ...problems.incompleteCauses);
    measured.damagedRows.push(...problems.damagedRows);
    if (part.summaryProblem !== null || data.partialTailBytes > 0 || lacking.length > 0) incomplete = true;
    if ((data.split?.problems.length ?? 0) > 0) incomplete = true;
    measured.parts.push(partSummary(part, data, withData, partCells));
  });
  return { ...measured, incomplete };
}

/** What a part's samples lack or hold too much of: stray cells (a run note), an unfinished run, damaged rows, cells
 * without samples. */
function partProblems(
  part: PartInput, data: SamplesData, lacking: readonly string[],
): { runNotes: string[]; incompleteCauses: string[]; damagedRows: string[] } {
  const runNotes: string[] = [];
  const incompleteCauses: string[] = [];
  const planIds = new Set(part.plan.cells.map((cell) => cell.id));
  const strays = [...data.cells.keys()].filter((id) => !planIds.has(id));
  if (strays.length > 0) {
    const listed = `${strays.slice(0, 3).join(', ')}${strays.length > 3 ? ', …' : ''}`;
    const strayCells = `${plural(strays.length, 'cell')} not in its plan.json (${listed})`;
    runNotes.push(`${part.name}/samples.csv has samples for ${strayCells}; they are left out.`);
  }
  if (part.summaryProblem !== null || data.partialTailBytes > 0) {
    const cut = data.partialTailBytes > 0
      ? `a samples.csv cut mid-line (the partial last line, ${data.partialTailBytes} bytes, was dropped)`
      : null;
    const why = [part.summaryProblem, cut].filter((reason) => reason !== null).join(' and ');
    const noThresholds = part.summaryProblem !== null ? '; k6 threshold results are not available' : '';
    incompleteCauses.push(
      `${part.name}: the run did not finish (killed?): ${why}. ` +
        `This part is reported from plan.json and samples.csv alone${noThresholds}.`,
    );
  }
  const damagedRows = data.malformedRows > 0
    ? [`${part.name}/samples.csv: ${plural(data.malformedRows, 'damaged row')} (wrong column count) dropped.`]
    : [];
  if (lacking.length > 0) {
    const more = lacking.length > 12 ? `, … (${lacking.length - 12} more)` : '';
    const listed = `${lacking.slice(0, 12).join(', ')}${more}`;
    incompleteCauses.push(
      `${part.name}: ${lacking.length} of ${part.plan.cells.length} planned cells have no samples ` +
        `(the run stopped early or those cells failed to start): ${listed}.`,
    );
  }
  return { runNotes, incompleteCauses, damagedRows };
}

function partSummary(
  part: PartInput, data: SamplesData, cellsWithData: number, cells: readonly CellStats[],
): PartSummary {
  const plan = part.plan;
  const runnerDurations = (part.split?.runners ?? []).map((r) => r.summary?.testRunDurationMs ?? 0);
  return {
    name: part.name,
    script: plan.script,
    planName: plan.name,
    cells: plan.cells.length,
    cellsWithData,
    limitStat: plan.limitStat,
    promptMode: plan.prompts.mode,
    prefixGroups: plan.prompts.prefixGroups,
    target: plan.target,
    monitorEnabled: plan.monitor.enabled,
    monitorIntervalSeconds: plan.monitor.intervalSeconds,
    plannedSeconds: plan.totalSeconds,
    testRunDurationMs: part.split ? Math.max(0, ...runnerDurations) || null : (part.summary?.testRunDurationMs ?? null),
    // Each runner of a split part judged only its share: its thresholds are judged again on the merged samples.
    thresholds: part.split ? judgeMergedThresholds(plan, cells) : (part.summary?.thresholds ?? []),
    hasSummary: part.summary !== null || (part.split?.runners.some((r) => r.summary !== null) ?? false),
    csvRows: data.rows,
    search: plan.cells.some((cell) => cell.driven?.search) ? (plan.search ?? null) : null,
    driven: plan.cells.some((cell) => cell.driven !== undefined),
  };
}

/** Every use case of the parts' plans (first definition wins) that some cells measured. */
function useCaseCapacities(
  input: RunInput,
  cells: readonly CellStats[],
  limitStat: LimitStat,
  options: ReportOptions,
  requestValues: ReadonlyMap<string, RequestValues>,
): UseCaseCapacity[] {
  const minGoodput = runMinGoodput(input);
  return runUseCases(input)
    .map((useCase) => useCaseCapacity(useCase, cells, limitStat, options.minSuccessRate, minGoodput))
    .map((capacity) => withInterval(capacity, cells, requestValues))
    .filter((capacity) => capacity.source !== null);
}

/** The mix profiles a part's cells ran, in cell order. */
function profilesOf(cells: readonly CellStats[], script: 'burst' | 'mix'): string[] {
  const ran = cells.filter((cell) => cell.script === script && cell.profile).map((cell) => cell.profile as string);
  return [...new Set(ran)];
}

const profileTitle = (id: string): string => MIX_PROFILES.find((profile) => profile.id === id)?.title ?? id;

function burstCapacities(cells: readonly CellStats[], limitStat: LimitStat, ttftLimitMs: number): BurstCapacity[] {
  return profilesOf(cells, 'burst')
    .map((profile) => burstCapacity(profile, profileTitle(profile), cells, limitStat, ttftLimitMs));
}

function mixProfiles(cells: readonly CellStats[]): MixProfileSummary[] {
  return profilesOf(cells, 'mix').map((profile) => {
    const mine = cells.filter((cell) => cell.script === 'mix' && cell.profile === profile);
    const { contextTokens, outputTokens } = mine[0]!;
    return { profile, title: profileTitle(profile), contextTokens, outputTokens, cellIds: mine.map((cell) => cell.id) };
  });
}

/** The trace the run replayed, from the part that replayed one; null when none did. */
function runTrace(input: RunInput): TraceConfig | null {
  return input.parts.find((part) => part.plan.trace !== null)?.plan.trace ?? null;
}

function runTotals(cells: readonly CellStats[]): Totals {
  const errorsByKind: Record<string, number> = {};
  let requests = 0, succeeded = 0, cut = 0, outputTokens = 0;
  for (const cell of cells) {
    requests += cell.requests;
    succeeded += cell.succeeded;
    cut += cell.cut;
    outputTokens += cell.outputTokensTotal;
    addCounts(errorsByKind, cell.errorsByKind);
  }
  const successRate = requests > 0 ? succeeded / requests : null;
  return { requests, succeeded, failed: requests - succeeded, cut, successRate, errorsByKind, outputTokens };
}

/** Why the run is incomplete: the parts' causes, then the run's own (an interrupt, parts that never started). */
function incompleteCauses(input: RunInput, measured: MeasuredParts, missingParts: readonly string[]): string[] {
  const causes = [...measured.incompleteCauses];
  if (input.run?.interrupted) {
    causes.push('The run was interrupted: cells after the interruption are missing or partial.');
  }
  if (missingParts.length > 0) {
    causes.push(`run.json lists ${plural(missingParts.length, 'part')} with no folder: ${missingParts.join(', ')}.`);
  }
  return causes;
}

/** The sentence for parts judged on different limit statistics; null when they agree. */
function limitStatNote(input: RunInput): string | null {
  const limitStats = new Set(input.parts.map((part) => part.plan.limitStat));
  if (limitStats.size <= 1) return null;
  const used = `capacity uses "${input.parts[0]!.plan.limitStat}" from ${input.parts[0]!.name}`;
  return `Parts use different limit statistics (${[...limitStats].join(', ')}); ${used}.`;
}
