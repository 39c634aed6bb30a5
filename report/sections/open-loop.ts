// The "Open-Loop Load" section: capacity in requests per second per use case, and what each rate cell's sender did
// against its schedule. Runs in Node.

import type { CellStats } from '../cells';
import { DocBuilder, type Block } from '../document';
import { fmtMs, fmtMsFine, fmtPct, fmtRate, plural } from '../format';
import { formatInterval } from '../capacity-interval';
import type { OpenLoopStats } from '../open-loop';
import { ACHIEVED_SHORTFALL } from '../open-loop';
import type { RateCapacity } from '../rate-capacity';
import type { Report } from '../report-types';
import type { Distribution } from '../stats';
import { sentences, statName } from './phrases';

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
    `A cell whose achieved rate fell more than ${fmtPct(ACHIEVED_SHORTFALL, 0)} short of the offered one, or whose ` +
      'schedule lag p99 passed its limit, measured another load than planned: it is marked and left out of the ' +
      'capacity.',
  ));
  if (report.rates.length > 0) {
    // MLPerf's limits name their own statistic (p99), which the ladder judges them on (report/capacity.ts).
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
    for (const r of report.rates) {
      doc.chart(`rate_latency_${r.useCase.id}`, charts);
      doc.chart(`rate_achieved_${r.useCase.id}`, charts);
    }
  }
  doc.table(
    [
      'CELL', 'OFFERED', 'ACHIEVED', 'ENDED / SCHEDULED', 'LAG P50 / P99 / MAX', 'TTFT P50 / P99 (SENT)',
      'TTFT P50 / P99 (INTENDED)', 'E2E P50 / P99 (INTENDED)', 'TPOT P50 / P99', 'GOODPUT', 'LOAD AS PLANNED',
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
  return [r.useCase.title, `${r.result.display}${unit}`, interval, broke, `${rates}${excluded}`];
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
    fmtPct(c.goodput), o.problems.length === 0 ? 'yes' : `no: ${o.problems.join('; ')}`,
  ];
}
