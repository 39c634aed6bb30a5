// The report's answer and its warnings: the capacity per use case first, then one line per warning linking to its
// details further down, and the run notes at the end. Runs in Node.

import { DocBuilder, slug, type Block } from '../document';
import { fmtPct, fmtRate, fmtTokens } from '../format';
import { lowGoodput } from '../../analysis/figure-grades';
import type { LadderResult, UseCaseCapacity } from '../../analysis/capacity';
import type { CellStats } from '../../analysis/cells';
import type { ActiveUsersCapacity } from '../../analysis/active-users';
import type { RateCapacity } from '../../analysis/rate-capacity';
import { valueAtCapacity } from '../../analysis/capacity';
import type { Report } from '../report-types';
import { WARNING_TITLES, type ReportWarning } from '../warnings';
import { capacityWithInterval } from './use-case-guidance';
import { ladderDisplay, ladderDisplayShort } from '../capacity-words';

/** Everything the report knows of one use case's capacity: in concurrent users, active users, requests/s. */
interface UseCaseAnswer {
  readonly title: string;
  readonly contextTokens: number;
  readonly concurrent: UseCaseCapacity | null;
  readonly active: ActiveUsersCapacity | null;
  readonly rate: RateCapacity | null;
}

/** The use cases of every capacity the run measured, in the order the report first names them. */
function useCaseAnswers(report: Report): UseCaseAnswer[] {
  const ids: string[] = [];
  const titles = new Map<string, { title: string; contextTokens: number }>();
  for (const { useCase } of [...report.useCases, ...report.activeUsers, ...report.rates]) {
    if (!titles.has(useCase.id)) ids.push(useCase.id);
    titles.set(useCase.id, titles.get(useCase.id) ?? useCase);
  }
  return ids.map((id) => ({
    ...titles.get(id)!,
    concurrent: report.useCases.find((u) => u.useCase.id === id) ?? null,
    active: report.activeUsers.find((a) => a.useCase.id === id) ?? null,
    rate: report.rates.find((r) => r.useCase.id === id) ?? null,
  }));
}

/** The limit that set a capacity: the one that broke first, or why none did. */
function limitedBy(result: LadderResult): string {
  switch (result.kind) {
    case 'within':
      return result.brokenBy?.label ?? 'a limit';
    case 'beyond':
      return `none up to ${result.estimate} (a lower bound)`;
    case 'below':
      return `${result.brokenBy?.label ?? 'a limit'}, at the first step`;
    case 'untested':
      return 'not measured';
    case 'undetermined':
      return 'none: a client-bound step would decide it';
  }
}

/**
 * Requests per second: the rate part's capacity where one ran (open loop), else what the users of the concurrent
 * capacity's step sent (interpolated at "~N"): N users sending back to back keep N requests in flight, so by Little's
 * law they send N / mean e2e. The step's requests over its wall time would undercount: a step whose users each sent
 * one or two requests spans from the first start to the last end, up to twice one request's time (the quick example
 * read 4.52 req/s at 18 users of 2.0 s each, where they sent 9.0).
 */
function requestsPerSecond(report: Report, answer: UseCaseAnswer): string {
  const rate = answer.rate?.result;
  if (rate && rate.kind !== 'untested') return `${ladderDisplay(rate)} req/s (open loop)`;
  if (!answer.concurrent) return 'n/a';
  const perSecond = (c: CellStats): number | null => {
    const e2eMs = c.metrics.e2e?.mean;
    return c.concurrency > 0 && e2eMs && e2eMs > 0 ? (c.concurrency * 1000) / e2eMs : null;
  };
  const served = valueAtCapacity(report.cells, answer.concurrent, perSecond);
  return served === null ? 'n/a' : `${fmtRate(served)} at capacity`;
}

/**
 * A concurrent capacity as the answer states it: with its interval, and marked when most requests at it broke a limit
 * on their own figures (analysis/figure-grades.ts lowGoodput), so it never reads as plainly supported.
 */
function headline(c: UseCaseCapacity): string {
  const shown = capacityWithInterval(c);
  if (!lowGoodput(c)) return shown;
  return `${shown}, on the step's statistic only: ${fmtPct(c.goodputAtCapacity)} of requests within every limit`;
}

/** The answer: each use case's capacity in users and requests/s, and the limit that set it. */
export function answerSection(report: Report): Block[] {
  const answers = useCaseAnswers(report);
  if (answers.length === 0) return [];
  const withActive = answers.some((a) => a.active !== null);
  const row = (a: UseCaseAnswer): string[] => [
    a.title,
    fmtTokens(a.contextTokens),
    a.concurrent ? headline(a.concurrent) : 'n/a',
    ...(withActive ? [a.active ? ladderDisplayShort(a.active.result) : 'n/a'] : []),
    requestsPerSecond(report, a),
    limitedBy((a.concurrent ?? a.active ?? a.rate)!.result),
  ];
  const doc = new DocBuilder();
  doc.h(2, 'Capacity per Use Case');
  doc.table(
    ['USE CASE', 'CONTEXT', 'CONCURRENT USERS', ...(withActive ? ['ACTIVE USERS'] : []), 'REQUESTS/S', 'LIMITED BY'],
    answers.map(row),
  );
  doc.p(
    'Concurrent users: requests in flight the server held within every limit of the use case (in brackets, the ' +
      "capacity's 95% interval; a capacity most of whose requests broke a limit on their own figures says so); " +
      'requests/s: the rate held with open-loop arrivals where a rate part ran, else the ' +
      'requests per second the users of that capacity sent (users / mean e2e, as users who send back to back keep ' +
      'one request each in flight); limited by: the limit that broke first. ' +
      'How each was measured: [Use Case Guidance](#use-case-guidance).',
  );
  return doc.blocks;
}

/** The heading a warning's details go under, and so the anchor its one-line entry links to. */
export function warningTitle(warning: ReportWarning): string {
  return WARNING_TITLES[warning.kind];
}

/** One line per warning, the most answer-changing first, each linking to its details. */
export function warningsSection(report: Report): Block[] {
  if (report.warnings.length === 0) return [];
  const doc = new DocBuilder();
  doc.h(2, 'Warnings');
  doc.list(report.warnings.map((w) => `⚠ ${w.summary} [Details](#${slug(warningTitle(w))})`));
  return doc.blocks;
}

/** Each warning's long text, under the heading its one-line entry links to. */
export function warningDetailsSection(report: Report): Block[] {
  if (report.warnings.length === 0) return [];
  const doc = new DocBuilder();
  doc.h(2, 'Warnings in Detail');
  for (const warning of report.warnings) {
    doc.h(3, warningTitle(warning));
    doc.list(warning.details);
  }
  return doc.blocks;
}

/** Notes on the suite's own workings (stray cells, a split part's merge): the last section, no warning. */
export function runNotesSection(report: Report): Block[] {
  if (report.runNotes.length === 0) return [];
  return new DocBuilder().h(2, 'Run Notes').list(report.runNotes).blocks;
}
