// The "Open-Loop Load" section: capacity in requests per second per use case, and what each rate cell's sender did
// against its schedule. Runs in Node.

import type { CellStats } from '../../analysis/cells';
import { DocBuilder, type Block } from '../document';
import { fmtMs, fmtMsFine, fmtPct, fmtRate, plural } from '../format';
import type { OpenLoopStats } from '../../analysis/open-loop';
import { ACHIEVED_SHORTFALL } from '../../analysis/open-loop';
import type { RateCapacity } from '../../analysis/rate-capacity';
import type { Report } from '../report-types';
import type { Distribution } from '../../analysis/stats';
import { sentences, statName } from '../phrases';
import { formatInterval, ladderDisplay, openLoopProblemWords } from '../capacity-words';

/** "Poisson", "gamma (burstiness 0.5)", "constant", with a ramp when there is one. */
export function arrivalPhrase(o: Pick<OpenLoopStats, 'process' | 'burstiness' | 'rampFromRate'>): string {
  const process = o.process === 'poisson' ? 'Poisson'
    : o.process === 'gamma' ? `gamma (burstiness ${o.burstiness})` : 'evenly spaced';
  return o.rampFromRate === null ? process : `${process}, ramping from ${fmtRate(o.rampFromRate)}`;
}

/** The rate part's capacities, then its cells; nothing without rate cells. */
export function openLoopSection(report: Report, charts: ReadonlySet<string>): Block[] {
  // A trace's cells have their own section (report/sections/trace.ts): their schedule is the trace's.
  const cells = report.cells.filter((c) => c.script === 'rate' && c.openLoop !== null && c.requests > 0);
  if (cells.length === 0) return [];
  const first = cells[0]!.openLoop!;
  const doc = new DocBuilder();
  doc.h(2, 'Open-Loop Load');
  doc.p(sentences(
    'How many requests per second can each workload take when requests arrive on their own clock, as production ' +
      'traffic does, rather than when the last one ended?',
    `Each cell sends a seeded ${arrivalPhrase(first)} schedule at its offered rate for ` +
      `${plural(first.durationSeconds, 'second')}, never waiting for a response.`,
    "Latency is stated from each request's actual send and from its intended time in the schedule: the second is " +
      'what a user arriving on time saw, so a late sender cannot hide a slow server (coordinated omission).',
    `A cell whose achieved rate fell more than ${fmtPct(ACHIEVED_SHORTFALL, 0)} short of the offered one ` +
      'measured another load than planned: it is marked and left out of the capacity. A cell whose schedule lag ' +
      'p99 passed its limit is marked; it is left out only where limits read latency from the send, as judged ' +
      'from the intended send its lag is in its latency already.',
  ));
  if (report.rates.length > 0) {
    // MLPerf's limits name their own statistic (p99), which the ladder judges them on (analysis/capacity.ts).
    const ownStat = report.rates.some((r) => r.useCase.limits.some((limit) => limit.stat !== undefined));
    doc.p(sentences(
      "A use case's capacity is the highest offered rate whose cell met every limit " +
        `(the ${statName(report.limitStat)} ` +
        `of each cell${ownStat ? ' where a limit names no statistic of its own' : ''}, requests the slot cut off ` +
        'counted as failed), as measured: between two rates a queue either ' +
        'keeps up or grows, so nothing is interpolated. The interval is the capacity over 1,000 resamples of each ' +
        'cell\'s requests (0: the lowest rate may already break a limit).',
    ));
    const head = ['USE CASE', 'CAPACITY', '95% INTERVAL', 'LIMIT THAT BROKE', 'RATES MEASURED'];
    doc.table(head, report.rates.map(capacityRow));
    const knees = report.rates.flatMap((r) => {
      const k = knee(report, r);
      return k === null ? [] : [`${r.useCase.title}: from ${fmtRate(k)}`];
    });
    if (knees.length > 0)
      doc.p(`Over-saturated (the queue grew through the step, so no mean over it is a steady state): ${
        knees.join('; ')}.`);
    for (const r of report.rates) {
      doc.chart(`rate_latency_${r.useCase.id}`, charts);
      doc.chart(`rate_achieved_${r.useCase.id}`, charts);
    }
  }
  doc.blocks.push(...reconciliationBlocks(report));
  doc.table(
    [
      'CELL', 'OFFERED', 'ACHIEVED', 'ENDED / SCHEDULED', 'LAG P50 / P99 / MAX', 'TTFT P50 / P99 (SENT)',
      'TTFT P50 / P99 (INTENDED)', 'E2E P50 / P99 (INTENDED)', 'TPOT P50 / P99', 'GOODPUT', 'QUEUE',
      'LOAD AS PLANNED',
    ],
    cells.map(cellRow),
  );
  return doc.blocks;
}

export function capacityRow(r: RateCapacity): string[] {
  const unit = r.result.kind === 'untested' ? '' : ' req/s';
  const excluded = r.excluded.length > 0 ? ` (${plural(r.excluded.length, 'cell')} left out)` : '';
  const rates = r.result.steps.map((s) => String(s.concurrency)).join(', ');
  const interval = r.interval ? formatInterval(r.interval) : 'n/a';
  const broke = r.result.brokenBy?.label ?? 'none';
  return [r.useCase.title, `${ladderDisplay(r.result)}${unit}`, interval, broke, `${rates}${excluded}`];
}

const pair = (d: Distribution | null, fmt: (v: number) => string): string =>
  (d ? `${fmt(d.p50)} / ${fmt(d.p99)}` : 'n/a');

export function cellRow(c: CellStats): string[] {
  const o = c.openLoop!;
  const lag = o.lag ? `${fmtMsFine(o.lag.p50)} / ${fmtMsFine(o.lag.p99)} / ${fmtMsFine(o.lag.max)}` : 'n/a';
  return [
    c.id, fmtRate(o.offeredRate), fmtRate(o.achievedRate), `${o.ended} / ${o.scheduled}`, lag,
    pair(c.metrics.ttft, fmtMs), pair(c.metrics.ttftIntended, fmtMs), pair(c.metrics.e2eIntended, fmtMs),
    pair(c.metrics.tpot, fmtMsFine),
    fmtPct(c.goodput), queuePhrase(o),
    o.problems.length === 0 ? 'yes' : `no: ${o.problems.map(openLoopProblemWords).join('; ')}`,
  ];
}

/** Whether the queue grew through a cell: "grew (1.9 s to 2.4 s)", "steady", or "n/a" with too few requests. */
function queuePhrase(o: OpenLoopStats): string {
  if (o.queue === null) return 'n/a';
  const span = `${fmtMs(o.queue.earlyMs)} to ${fmtMs(o.queue.lateMs)}`;
  return o.queue.growing ? `grew (${span})` : `steady (${span})`;
}

/**
 * Where over-saturation starts (the knee): the lowest offered rate from which every measured rate's queue grew through
 * its cell; null when the highest rate's did not. One growing cell below a steady one is a disturbance, not a knee.
 */
function knee(report: Report, r: RateCapacity): number | null {
  const cells = report.cells.filter((c) => r.cellIds.includes(c.id) && c.openLoop?.queue)
    .sort((a, b) => a.openLoop!.offeredRate - b.openLoop!.offeredRate);
  let at: number | null = null;
  for (let i = cells.length - 1; i >= 0 && cells[i]!.openLoop!.queue!.growing; i--)
    at = cells[i]!.openLoop!.offeredRate;
  return at;
}

/** The capacity in users beside the capacity in requests/s, by Little's law on each one's measured latency. */
function reconciliationBlocks(report: Report): Block[] {
  if (report.reconciliation.length === 0) return [];
  const doc = new DocBuilder();
  doc.h(3, 'Users and Requests per Second');
  doc.p(sentences(
    'N users who send back to back keep N requests in flight, so they send N / mean e2e requests per second; an ' +
      'open loop at R requests per second whose requests take W on average keeps R x W in flight (Little\'s law).',
    'The two capacities agree when the users\' requests per second lie between the last rate that held and the first ' +
      'that broke.',
  ));
  doc.table(
    ['USE CASE', 'USERS', 'E2E (MEAN)', 'REQ/S (USERS / E2E)', 'RATE', 'E2E (MEAN)', 'IN FLIGHT (RATE x E2E)',
      'FIRST RATE BROKEN', 'AGREE', 'WHY'],
    report.reconciliation.map((x) => [
      x.useCase.title, String(x.users.capacity), fmtMs(x.users.e2eMs), fmtRate(x.users.littles),
      fmtRate(x.rate.capacity), fmtMs(x.rate.e2eMs), x.rate.littles.toFixed(1),
      x.rateFirstFail === null ? 'none' : fmtRate(x.rateFirstFail), x.agree ? 'yes' : 'no', x.reasons.join(' '),
    ]),
  );
  return doc.blocks;
}
