// The report's warnings, one per kind, ranked by how much they change the answer. Runs in Node (pure).
//
// A reader who meets a wall of notes before the first figure learns to skip them, so the report opens with
// the answer and then one line per kind of problem, most answer-changing first, each linking to its details.
// Notes about the suite's own plumbing (stray tags, how a split part was merged) are no warnings: they are run
// notes, at the end of the report.

import type { LadderResult } from '../analysis/capacity';
import type { CellStats } from '../analysis/cells';
import { fmtInt, plural } from './format';
import { clientBoundWords, openLoopProblemWords, ladderDisplay, ladderDisplayShort } from './capacity-words';

/**
 * What a warning is about. no-samples: there is no answer; incomplete: the answer is partial; lower-bound: a
 * capacity is only "more than N" (the ladder stopped first); upper-bound: even the first step broke a limit;
 * client-bound: the load generator, not the server, set a cell's pace; clock-fault: a server's TTFT or e2e above the
 * client's for the same requests (analysis/clock-faults.ts); under-offered: a rate cell's sender did not
 * offer its load; failed-requests: requests that failed; mixed-limit-stats: parts disagree on the limit statistic;
 * damaged-rows: CSV rows dropped.
 */
export type WarningKind =
  | 'no-samples' | 'incomplete' | 'lower-bound' | 'upper-bound' | 'client-bound' | 'clock-fault' | 'under-offered'
  | 'failed-requests' | 'mixed-limit-stats' | 'damaged-rows';

/** Every kind, the one that changes the answer most first: the order the report lists them in. */
export const WARNING_RANK: readonly WarningKind[] = [
  'no-samples', 'incomplete', 'lower-bound', 'upper-bound', 'client-bound', 'clock-fault', 'under-offered',
  'failed-requests', 'mixed-limit-stats', 'damaged-rows',
];

/** The heading of each kind's details (the anchor the one-line warning links to is made from it). */
export const WARNING_TITLES: Readonly<Record<WarningKind, string>> = {
  'no-samples': 'No Request Samples',
  incomplete: 'Incomplete Run',
  'lower-bound': 'Capacities That Are Only Lower Bounds',
  'upper-bound': 'Capacities Below the First Step',
  'client-bound': 'Client-Bound Cells',
  'clock-fault': "Server Clock Above the Client's",
  'under-offered': 'Rate Cells Below Their Planned Load',
  'failed-requests': 'Failed Requests',
  'mixed-limit-stats': 'Mixed Limit Statistics',
  'damaged-rows': 'Damaged Sample Rows',
};

/** The run's request counts a warning reads (report-types.ts Totals). */
interface RequestTotals {
  readonly requests: number;
  readonly failed: number;
  readonly errorsByKind: Readonly<Record<string, number>>;
}

export interface ReportWarning {
  readonly kind: WarningKind;
  /** One line: what the problem changes about the answer. */
  readonly summary: string;
  /** The long text: one entry per cell, part, use case or cause. */
  readonly details: readonly string[];
}

/** The warnings in the order of WARNING_RANK; warnings of one kind keep their order. */
export function rankWarnings(warnings: readonly (ReportWarning | null)[]): ReportWarning[] {
  const rank = (w: ReportWarning): number => WARNING_RANK.indexOf(w.kind);
  return warnings.filter((w): w is ReportWarning => w !== null).sort((a, b) => rank(a) - rank(b));
}

function warning(kind: WarningKind, summary: string, details: readonly string[]): ReportWarning | null {
  return details.length === 0 ? null : { kind, summary, details };
}

/** No request at all: every figure is absent. */
export function noSamplesWarning(totals: RequestTotals): ReportWarning | null {
  if (totals.requests > 0) return null;
  return warning('no-samples', 'No request samples were found: every figure of this report is absent.', [
    'Check that the run reached its first cell: its parts\' samples.csv hold no request of the suite.',
  ]);
}

/** The run did not finish: what is missing, with each part's and the run's own causes as details. */
export function incompleteWarning(
  missingCells: readonly string[], missingParts: readonly string[], causes: readonly string[],
): ReportWarning | null {
  const cells = missingCells.length > 0
    ? `${plural(missingCells.length, 'planned cell')} ${missingCells.length === 1 ? 'has' : 'have'} no samples`
    : 'every planned cell has samples, but the last may be partial';
  const parts = missingParts.length > 0 ? `, and ${plural(missingParts.length, 'part')} never started` : '';
  return warning('incomplete', `The run is incomplete: ${cells}${parts}.`, causes);
}

/** A capacity of any kind (use case, rate, active users, burst depth) with the name the report gives it. */
export interface NamedLadder {
  readonly name: string;
  readonly result: LadderResult;
}

/** "a", "a and b", "a, b and c". */
function listed(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** Capacities read off a ladder that never broke a limit ("N+") or broke one at its first step ("below N"). */
export function capacityBoundWarnings(ladders: readonly NamedLadder[]): (ReportWarning | null)[] {
  const beyond = ladders.filter((l) => l.result.kind === 'beyond');
  const below = ladders.filter((l) => l.result.kind === 'below');
  const named = (ls: readonly NamedLadder[]): string =>
    listed(ls.map((l) => `${l.name} ${ladderDisplayShort(l.result)}`));
  return [
    warning(
      'lower-bound',
      `${named(beyond)} ${beyond.length === 1 ? 'is only a lower bound' : 'are only lower bounds'}: ` +
        'no measured step broke a limit.',
      beyond.map((l) =>
        `${l.name}: every step up to ${l.result.estimate} held every limit, so the capacity is more than that; ` +
        'a ladder (or search maximum) reaching further would find where it breaks.'),
    ),
    warning(
      'upper-bound',
      `${named(below)}: below the first measured step, which already broke a limit.`,
      below.map((l) =>
        `${l.name}: the first step (${l.result.firstFail}) already broke ${l.result.brokenBy?.label ?? 'a limit'}; ` +
        'a ladder starting lower would find the capacity.'),
    ),
  ];
}

/**
 * Cells the client, not the server, limited: no capacity stands on them (analysis/capacity.ts). Those of a capacity's
 * ladder are counted apart, and the capacities a client-bound step left undetermined are named.
 */
export function clientBoundWarning(
  cells: readonly CellStats[], capacityCellIds: ReadonlySet<string>, ladders: readonly NamedLadder[] = [],
): ReportWarning | null {
  const bound = cells.filter((cell) => cell.clientBound !== null);
  const steps = bound.filter((cell) => capacityCellIds.has(cell.id)).length;
  const what = steps === 1 ? 'a step' : 'steps';
  const ofThem = steps > 0 ? ` (${steps} of them ${what} of a capacity search or ladder)` : '';
  const undetermined = ladders.filter((l) => l.result.kind === 'undetermined');
  const names = listed(undetermined.map((l) => l.name));
  const left = undetermined.length === 0 ? ''
    : ` ${names} ${undetermined.length === 1 ? 'is' : 'are'} undetermined.`;
  return warning(
    'client-bound',
    `${plural(bound.length, 'cell was', 'cells were')} client-bound${ofThem}: ` +
      `${bound.length === 1 ? 'its' : 'their'} figures are the client's, and no capacity stands on ` +
      `${bound.length === 1 ? 'it' : 'them'}.${left}`,
    [
      ...bound.map((cell) => `Cell ${cell.id} was client-bound (${clientBoundWords(cell.clientBound!)}): ` +
        'it is no measurement of the server.'),
      ...undetermined.map((l) => `${l.name}: ${ladderDisplay(l.result)}.`),
    ],
  );
}

/** Rate cells whose sender did not offer the planned load: the rate capacity leaves them out. */
export function underOfferedWarning(cells: readonly CellStats[]): ReportWarning | null {
  const short = cells.filter((cell) => cell.openLoop && cell.openLoop.problems.length > 0 && cell.requests > 0);
  return warning(
    'under-offered',
    `${plural(short.length, 'rate cell', 'rate cells')} did not offer ${short.length === 1 ? 'its' : 'their'} ` +
      'planned load: the rate capacity does not stand on them.',
    short.map((cell) =>
      `Cell ${cell.id} did not offer its planned load ` +
      `(${cell.openLoop!.problems.map(openLoopProblemWords).join('; ')}): its rate capacity does not stand on it.`),
  );
}

/** Requests that failed, by error kind, with each cell's failures as details. */
export function failedRequestsWarning(totals: RequestTotals, cells: readonly CellStats[]): ReportWarning | null {
  if (totals.failed === 0) return null;
  const byKind = (errors: Readonly<Record<string, number>>): string => {
    const kinds = Object.entries(errors).filter(([, n]) => n > 0).map(([kind, n]) => `${fmtInt(n)} ${kind}`);
    return kinds.length > 0 ? ` (${kinds.join(', ')})` : '';
  };
  const failing = cells.filter((cell) => cell.failed > 0);
  return warning(
    'failed-requests',
    `${fmtInt(totals.failed)} of ${plural(fmtInt(totals.requests), 'request')} failed${byKind(totals.errorsByKind)}.`,
    [
      ...failing.map((cell) => `Cell ${cell.id}: ${fmtInt(cell.failed)} of ${fmtInt(cell.requests)} failed` +
        `${byKind(cell.errorsByKind)}.`),
      'A failed request is left out of the latency figures and counts against the success rate a capacity step ' +
        "needs; [Success Rate and Errors](#success-rate-and-errors) gives the server's messages.",
    ],
  );
}

/** Parts judged on different limit statistics: the capacity uses the first part's. */
export function mixedLimitStatsWarning(detail: string | null): ReportWarning | null {
  return warning('mixed-limit-stats', detail ?? '', detail === null ? [] : [detail]);
}

/** CSV rows dropped for their column count, one entry per part. */
export function damagedRowsWarning(details: readonly string[]): ReportWarning | null {
  const files = plural(details.length, 'samples.csv has', 'samples.csv files have');
  return warning('damaged-rows', `${files} damaged rows (wrong column count), dropped.`, details);
}
