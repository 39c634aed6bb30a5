// The use-case guidance table: thresholds and capacity per use case, and how capacity was measured. Runs in Node.

import { DocBuilder, type Block } from '../document';
import { fmtInt, fmtLimitValue, fmtPct, fmtTokens, plural } from '../format';
import { isUnclear } from '../../analysis/capacity-interval';
import { resolutionAt } from '../../lib/plan';
import { PLAN_DEFAULTS } from '../../lib/plan-defaults';
import { capacityGuidance } from '../judgement';
import type { UseCaseCapacity } from '../../analysis/capacity';
import type { CellStats } from '../../analysis/cells';
import type { Report } from '../report-types';
import { sentences, statName } from '../phrases';
import { formatInterval, ladderDisplayShort } from '../capacity-words';

const GOODPUT_NOTE =
  'GOODPUT is the share of requests at the capacity step that met every limit of the use case on their own figures ' +
  '(their TTFT, speed, e2e), a failed request counting as not good: a capacity checked on the step\'s ' +
  'statistic can hold while some of its users wait longer than the limit.';

/** Each use case's thresholds and capacity in one table, with a sentence per use case. */
export function useCaseGuidanceSection(report: Report): Block[] {
  if (report.useCases.length === 0) return [];
  const doc = new DocBuilder();
  doc.h(2, 'Use Case Guidance');
  const minSuccess = report.options.minSuccessRate;
  const orFailures = minSuccess ? `, or fewer than ${fmtPct(minSuccess)} of requests succeed` : '';
  doc.p(sentences(
    "The table below maps this configuration's measured performance to common deployment scenarios.",
    `Capacity limits are where TTFT or generation speed (the ${statName(report.limitStat)} of each tested step) ` +
      `breaks the use case's threshold${orFailures}.`,
    capacityMethod(report),
  ));
  // Goodput beside each capacity, once any capacity step measured it (requests sent with the use case's limits).
  const withGoodput = report.useCases.some((capacity) => capacity.goodputAtCapacity !== null);
  if (withGoodput) doc.p(GOODPUT_NOTE);
  const row = (capacity: UseCaseCapacity): string[] => [
    capacity.useCase.title,
    fmtTokens(capacity.useCase.contextTokens),
    thresholdColumn(capacity, ['ttft', 'e2e']),
    thresholdColumn(capacity, ['decodeSpeed', 'itl', 'tpot']),
    capacityWithInterval(capacity),
    ...(withGoodput ? [fmtPct(capacity.goodputAtCapacity)] : []),
    capacityGuidance(capacity),
  ];
  const head = [
    'USE CASE', 'CONTEXT', 'TTFT THRESHOLD', 'SPEED THRESHOLD', 'CAPACITY', ...(withGoodput ? ['GOODPUT'] : []),
    'ANALYSIS',
  ];
  doc.table(head, report.useCases.map(row));
  const uncertainty = intervalNote(report);
  if (uncertainty) doc.p(uncertainty);
  doc.p(sentences(
    'The limits shown are conservative.',
    'Beyond these points, the system continues functioning with slower response times ' +
      'that may still be acceptable for your specific use case.',
  ));
  return doc.blocks;
}

/** "73 (69-76)": the capacity and, in brackets, its 95% interval when one was estimated and is not a single value. */
export function capacityWithInterval(capacity: UseCaseCapacity): string {
  const interval = capacity.interval;
  if (!interval || interval.low === interval.high) return ladderDisplayShort(capacity.result);
  return `${ladderDisplayShort(capacity.result)} (${formatInterval(interval)})`;
}

/** What the brackets mean, and which intervals are wider than the search's resolution. */
function intervalNote(report: Report): string | null {
  const withInterval = report.useCases.filter((capacity) => capacity.interval);
  if (withInterval.length === 0) return null;
  const search = report.parts.find((part) => part.search)?.search ?? null;
  const resolution = {
    exactBelow: search?.exactBelow ?? PLAN_DEFAULTS.capacity.exactBelow,
    resolutionPercent: search?.resolutionPercent ?? PLAN_DEFAULTS.capacity.resolutionPercent,
  };
  const wide = withInterval.filter((capacity) => {
    const { low, high } = capacity.interval!;
    const at = capacity.result.estimate ?? low;
    return high === null || high - low > 2 * resolutionAt(at, resolution);
  });
  return sentences(
    verdictNote(withInterval, wide),
    "In brackets, a capacity's 95% interval: the capacities a bootstrap over each step's measured requests " +
      'gives (1,000 resamples, the same reading of the steps), so how far the noise of the requests moves the ' +
      'answer; ' +
      "a step of many users also moves by the spread of one user's requests, drawn once for all of them, since a " +
      "server's hiccup slows every request running together; the interval holds the stated capacity. " +
      'Without brackets, every resample gave the same capacity.',
    wide.length === 0 ? null
      : `Wider than the search's resolution (±${plural(1, 'user')} below ${resolution.exactBelow} users, ` +
        `else ±${resolution.resolutionPercent}%): ` +
        `${wide.map((capacity) => capacity.useCase.title).join(', ')}; ` +
        'more requests per step, or steps measured again, would narrow it.',
  );
}

/**
 * Which steps next to a capacity the search measured again because their requests could not tell pass from fail,
 * and, where the capacity's interval is still wider than the resolution, which verdicts stayed unclear.
 */
function verdictNote(capacities: readonly UseCaseCapacity[], wide: readonly UseCaseCapacity[]): string | null {
  const repeated: string[] = [];
  const unclear: string[] = [];
  for (const capacity of capacities) {
    for (const v of capacity.verdicts ?? []) {
      if (!wide.includes(capacity) && v.measurements === 1) continue;
      const at = `${capacity.useCase.title} at ${plural(v.users, 'user')}`;
      if (v.measurements > 1) repeated.push(`${at} (${v.measurements} measurements)`);
      const held = `every limit held in ${fmtPct(v.passShare)} of resamples`;
      if (wide.includes(capacity) && isUnclear(v.passShare)) {
        unclear.push(`${at} (${v.ok ? 'passed' : 'failed'}; ${held})`);
      }
    }
  }
  return sentences(
    repeated.length === 0 ? null
      : `The search measured again, pooling the requests, steps whose verdict was unclear: ${repeated.join(', ')}.`,
    unclear.length === 0 ? null
      : `Still unclear, the capacity resting on a verdict the requests cannot make: ${unclear.join(', ')}; ` +
        'a larger repeat budget (capacity.maxRepeats) or more requests per step would decide it.',
  ) || null;
}

/** A use case's first limit on one of `metrics`, written for the guidance table ("8s", "2s e2e", "15 tok/s"). */
function thresholdColumn(capacity: UseCaseCapacity, metrics: readonly string[]): string {
  const limit = capacity.useCase.limits.find((candidate) => metrics.includes(candidate.metric));
  if (!limit) return 'N/A';
  if (limit.metric === 'e2e') return `${+(limit.value / 1000).toFixed(2)}s e2e`;
  const value = fmtLimitValue(limit.metric, limit.value);
  if (limit.metric === 'ttft' || limit.metric === 'decodeSpeed') return value;
  return `${value} ${limit.metric}`;
}

/** How the capacity figures were measured, read from the capacity cells themselves. */
export function capacityMethod(report: Report): string {
  const cells = report.cells.filter((cell) => cell.script === 'capacity' && cell.requests > 0);
  const searched = cells.filter((cell) => cell.measurement === 'search');
  const steady = cells.filter((cell) => cell.measurement === 'steady');
  const parts: string[] = [];
  if (searched.length > 0) parts.push(...searchMethod(report));
  if (searched.length > 0 || steady.length > 0) parts.push(steadyStateMethod(report, cells));
  if (cells.length > searched.length + steady.length) {
    parts.push(
      'Steps without warm-up sent all their requests at once (one synchronized round per user): ' +
        'the burst case, not users in service.',
    );
  }
  if (searched.length === 0) {
    parts.push(
      '"~N" is interpolated between the last passing and the first failing step; ' +
        '"N+" means no tested step broke a limit.',
    );
  } else {
    parts.push('"N+" means no step up to the search\'s maximum broke a limit.');
  }
  return parts.join(' ');
}

/** The adaptive search: how it climbs and bisects, and to what resolution. */
function searchMethod(report: Report): string[] {
  const search = report.parts.find((part) => part.search)?.search ?? null;
  const resolution = search
    ? `to 1 user below ${search.exactBelow} users and to ${search.resolutionPercent}% above`
    : "to the plan's resolution";
  return [
    'Each capacity was found by an adaptive search: steps of N users climbing until a limit broke, ' +
      `then bisecting between the last passing and the first failing step ${resolution}.`,
    'A capacity is the largest measured step within every limit; ' +
      'the next measured step breaks one (nothing is interpolated).',
  ];
}

/** Users held in steady state, and which requests stay out of the statistics (warm-up and transition). */
function steadyStateMethod(report: Report, cells: readonly CellStats[]): string {
  const warmup = cells.reduce((sum, cell) => sum + cell.warmupRequests, 0);
  const transition = cells.reduce((sum, cell) => sum + cell.transitionRequests, 0);
  const one = warmupPerUser(report) === 1;
  return (
    'Every capacity step holds its users in steady state: ' +
    'each sends its next request as soon as the previous one ends; ' +
    `the first request${one ? '' : 's'} of each user a step adds ${one ? 'is' : 'are'} warm-up, ` +
    'as is a request sent while users a smaller step dropped were still finishing theirs, ' +
    "and requests still running when a step ended ran partly under the next step's load: " +
    `both stay in the samples (tag phase) and out of the statistics ` +
    `(${fmtInt(warmup)} warm-up and ${fmtInt(transition)} transition requests in all).`
  );
}

function warmupPerUser(report: Report): number {
  return report.parts.find((part) => part.search)?.search?.warmupRequests ?? 1;
}
