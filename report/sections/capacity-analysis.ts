// The capacity analysis: per use case, its metrics at the tested steps and where its limits break. Runs in Node.

import type { LadderResult, UseCaseCapacity } from '../../analysis/capacity';
import type { CellStats } from '../../analysis/cells';
import { DocBuilder, type Block } from '../document';
import { fmtInt, fmtTokens, plural } from '../format';
import { capacityLimitPhrase, capacityVerdict, stepVerdict, THRESHOLD_EXCEEDED } from '../judgement';
import { valueAtCapacity } from '../../analysis/capacity';
import type { Report } from '../report-types';
import { compare } from '../../lib/threshold-grammar';
import {
  clientBoundNote, fmtMetric, metricLabel, metricValue, sentences, statName, type MaybeNumber,
} from '../phrases';

/** One subsection per use case, after a paragraph on how its capacity limit is found. */
export function capacityAnalysisSection(report: Report, charts: ReadonlySet<string>): Block[] {
  if (report.useCases.length === 0) return [];
  const doc = new DocBuilder();
  doc.h(2, 'Capacity Analysis');
  const example = report.useCases[0]!.limits[0]?.expression ?? 'avg<8000';
  doc.p(sentences(
    'How many concurrent requests can this configuration handle for different workloads?',
    'Each section below shows performance metrics as concurrency increases at a specific context length.',
    'Dashed lines indicate quality thresholds.',
    'The "capacity limit" is the largest tested or interpolated concurrency at which every limit holds ' +
      `(limits checked on the ${statName(report.limitStat)} of each step with the suite's threshold code, ` +
      `expressions such as "${example}").`,
  ));
  return [...doc.blocks, ...report.useCases.flatMap((capacity) => useCaseCapacitySection(report, capacity, charts))];
}

/** One use case: thresholds, metrics at the first step, at capacity and where a limit broke, each step's verdict. */
function useCaseCapacitySection(report: Report, capacity: UseCaseCapacity, charts: ReadonlySet<string>): Block[] {
  const doc = new DocBuilder();
  const useCase = capacity.useCase;
  doc.h(3, `${useCase.title} (${fmtTokens(useCase.contextTokens)} Context)`);
  doc.p(useCase.description);
  doc.p(thresholdsParagraph(report, capacity));
  doc.chart(`usecase_${useCase.id}`, charts);
  const ladder = report.cells
    .filter((cell) => capacity.cellIds.includes(cell.id) && cell.requests > 0)
    .sort((a, b) => a.concurrency - b.concurrency);
  if (ladder.length === 0) {
    doc.p('No step of this use case produced samples: capacity was not measured.');
    return doc.blocks;
  }
  const result = capacity.result;
  const columns = capacityColumns(result, ladder);
  doc.table(['METRIC', ...columns.map((column) => column.label)], capacityRows(report, capacity, ladder, columns));
  const verdicts = result.steps.map((step) => `${step.concurrency}: ${stepVerdict(step)}`);
  doc.p(`Tested steps (concurrency: verdict): ${verdicts.join('; ')}.`);
  doc.p(`**Capacity limit: ${capacityLimitPhrase(result)}**`);
  const valueAt = (metric: string): MaybeNumber =>
    valueAtCapacity(report.cells, capacity, (cell) => metricValue(cell, metric, statOf(report, capacity, metric)));
  doc.p(capacityVerdict(useCase, result, valueAt));
  doc.note(clientBoundNote(ladder) ?? '');
  return doc.blocks;
}

/** The use case's thresholds, its request lengths and where its steps came from. */
function thresholdsParagraph(report: Report, capacity: UseCaseCapacity): string {
  const useCase = capacity.useCase;
  const success = capacity.limits.find((limit) => limit.metric === 'successRate');
  const goodput = capacity.limits.find((limit) => limit.metric === 'goodput');
  const andSuccess = (success ? `, and ${success.label} of requests` : '') +
    (goodput ? `, and ${goodput.label} (requests within every limit, each judged on its own figures)` : '');
  const firstCell = report.cells.find((cell) => capacity.cellIds.includes(cell.id));
  const outputTokens = firstCell?.outputTokens ?? useCase.outputTokens;
  const labels = useCase.limits.map((limit) => limit.label).join(', ');
  const thresholds = `${useCase.limits.length === 1 ? 'Threshold' : 'Thresholds'}: ${labels}`;
  const ownStat = useCase.limits.some((limit) => limit.stat !== undefined);
  return sentences(
    `${thresholds} (${statName(report.limitStat)} per step${ownStat ? ' where a limit names none' : ''})${andSuccess}.`,
    `${fmtTokens(useCase.contextTokens)} input and ${fmtInt(outputTokens)} output tokens per request.`,
    stepSource(capacity),
  );
}

/** Where a use case's steps came from when no capacity part measured it. */
function stepSource(capacity: UseCaseCapacity): string | null {
  if (capacity.source === 'sweep') {
    return 'Measured on the sweep cells of the same context and output length (no capacity part in this run).';
  }
  if (capacity.source === 'gate') return 'Measured by the gate run only (one step).';
  return null;
}

interface CapacityColumn {
  readonly concurrency: number;
  readonly label: string;
}

/** The table's columns: the first step, the capacity (when another step), and the first failing or else the last. */
function capacityColumns(result: LadderResult, ladder: readonly CellStats[]): CapacityColumn[] {
  const column = (concurrency: number, approximate = false): CapacityColumn => ({
    concurrency,
    label: `@ ${approximate ? '~' : ''}${plural(concurrency, 'request')}`,
  });
  const first = ladder[0]!.concurrency;
  const columns = [column(first)];
  if (result.estimate !== null && result.estimate !== first) columns.push(column(result.estimate, result.interpolated));
  const tail = result.firstFail ?? ladder[ladder.length - 1]!.concurrency;
  if (!columns.some((c) => c.concurrency === tail)) columns.push(column(tail));
  return columns;
}

/**
 * The use case's limited metrics, then throughput (unless decode speed is limited) and decode speed, then goodput
 * (the share of requests within every limit, judged per request) when the steps measured it.
 */
function capacityMetrics(capacity: UseCaseCapacity, ladder: readonly CellStats[]): string[] {
  const limited = capacity.useCase.limits.map((limit) => limit.metric as string);
  const speeds = limited.includes('decodeSpeed') ? ['decodeSpeed'] : ['throughput', 'decodeSpeed'];
  const goodput = ladder.some((cell) => cell.goodput !== null) ? ['goodput'] : [];
  return [...new Set([...limited, ...speeds, ...goodput])];
}

function capacityRows(
  report: Report,
  capacity: UseCaseCapacity,
  ladder: readonly CellStats[],
  columns: readonly CapacityColumn[],
): string[][] {
  return capacityMetrics(capacity, ladder).map((metric) => {
    const valueOf = (cell: CellStats): MaybeNumber => metricValue(cell, metric, statOf(report, capacity, metric));
    const tableCell = (column: CapacityColumn): string => {
      const tested = ladder.find((cell) => cell.concurrency === column.concurrency);
      // A column between tested steps is the capacity estimate: its values are interpolated.
      const value = tested ? valueOf(tested) : valueAtCapacity(report.cells, capacity, valueOf);
      const exceeded = limitExceededAt(report, capacity, column.concurrency, metric) ? THRESHOLD_EXCEEDED : '';
      return `${tested ? '' : '~'}${fmtMetric(metric, value)}${exceeded}`;
    };
    return [metric === 'throughput' ? 'Throughput' : metricLabel(metric), ...columns.map(tableCell)];
  });
}

/** Whether a metric breaks its limit at n users: the tested step's check, else the interpolated value's. */
function limitExceededAt(report: Report, capacity: UseCaseCapacity, concurrency: number, metric: string): boolean {
  const step = capacity.result.steps.find((candidate) => candidate.concurrency === concurrency);
  const check = step?.checks.find((c) => c.metric === metric);
  if (check) return !check.ok;
  const limit = capacity.limits.find((candidate) => candidate.metric === metric);
  if (!limit) return false;
  const stat = statOf(report, capacity, metric);
  const value = valueAtCapacity(report.cells, capacity, (cell) => metricValue(cell, metric, stat));
  return value !== null && !compare(value, limit.operator, limit.value);
}

/** The statistic a metric's row shows: its limit's own (a p99 limit shows p99), else the report's. */
function statOf(report: Report, capacity: UseCaseCapacity, metric: string): string {
  return capacity.useCase.limits.find((limit) => limit.metric === metric)?.stat ?? report.limitStat;
}
