// The report's sections and sentences, generated from the report object into a neutral document (report/document.ts). Runs in Node.
//
// Every sentence is built from measured data; a section whose data is absent is left out or says
// plainly that it was not measured. The wording follows the reference reports. A cut-off that judges
// a figure (reading speed, how TTFT feels, ...) is read from judgement.ts, never written here.

import { ERROR_MESSAGES_SHOWN, type CellStats } from './cells';
import type { BurstCapacity, LadderResult, UseCaseCapacity } from './capacity';
import type { MetricDelta, MixProfileSummary, PartSummary, Report } from './report-types';
import { DocBuilder, lit, type Block } from './document';
import { bandOf, JUDGEMENT, prefixCacheHit, queueSaturated, severeContention, type Band } from './judgement';
import { gridCells, valueAtCapacity } from './model';
import type { TrendKey } from './read-samples';
import { maxBy, minBy, statistic } from './stats';
import { compare } from '../lib/thresholds';
import {
  fmtCount,
  fmtInt,
  fmtJoules,
  fmtLimitValue,
  fmtMillions,
  fmtMs,
  fmtMsFine,
  fmtPct,
  fmtSec,
  fmtTokS,
  fmtTokS0,
  fmtTokens,
  fmtUsd,
  fmtWatts,
  plural,
} from './format';

type Num = number | null;

/** Builds the full document of the report, one section after another in reading order. */
export function buildDocument(r: Report, charts: ReadonlySet<string>): Block[] {
  const d = new DocBuilder();
  titleSection(d, r);
  highlightsSection(d, r);
  keyFindingsSection(d, r);
  useCaseGuidanceSection(d, r);
  performanceAnalysisSection(d, r, charts);
  capacityAnalysisSection(d, r, charts);
  scaleUpSection(d, r, charts);
  fastestSection(d, r, charts);
  technicalAnalysisSection(d, r, charts);
  latencyPercentilesSection(d, r);
  successAndErrorsSection(d, r);
  allCellsSection(d, r);
  deployGateSection(d, r);
  k6ThresholdsSection(d, r);
  comparisonSection(d, r);
  methodologySection(d, r);
  return d.blocks;
}

/** The title, what was measured where and with what, and the run's warnings. */
function titleSection(d: DocBuilder, r: Report): void {
  const run = r.run;
  d.h(1, lit(r.title));
  const endpoint = r.parts[0] ? lit(r.parts[0].target.baseUrl) : 'an unknown endpoint';
  const profile = run?.target.simProfile ? `, profile ${lit(run.target.simProfile)}` : '';
  const simulated = run?.target.simulated ? ` (simulated server${profile})` : '';
  const engine = run ? engineLabel(run, 'the local runner') : 'an unrecorded engine (no run.json)';
  const runId = run ? `, run ${lit(run.runId)} started ${lit(run.startedAt)}` : '';
  const parts = r.parts.map((p) => `${p.name} (${plural(p.cellsWithData, 'cell')})`).join(', ');
  d.p(`Performance analysis of **${lit(r.model)}** at ${endpoint}${simulated}, measured with ${engine}${runId}. Parts: ${parts}.`);
  for (const w of r.warnings) d.note(`⚠ ${w}`);
}

function highlightsSection(d: DocBuilder, r: Report): void {
  if (r.highlights.length === 0) return;
  d.h(2, 'Highlights');
  d.kpis(r.highlights.map((h) => ({ value: h.value, label: h.label })));
}

function keyFindingsSection(d: DocBuilder, r: Report): void {
  d.h(2, 'Key Findings');
  d.table(['FINDING', 'VALUE'], r.keyFindings.map((f) => [f.label, f.value]));
  if (r.keyFindings.length === 0) d.p('No findings: the run holds no request samples.');
  if (gridCells(r).length === 0) return;
  d.p(sentences(
    'Throughout this report, "**concurrent requests**" refers to simultaneous active requests.',
    'For applications with natural user pauses (chat interfaces, coding assistants), each request slot typically serves several active users.',
  ));
}

/** Each use case's thresholds and capacity in one table, with a sentence per use case. */
function useCaseGuidanceSection(d: DocBuilder, r: Report): void {
  if (r.useCases.length === 0) return;
  d.h(2, 'Use Case Guidance');
  const minSuccess = r.options.minSuccessRate;
  const orFailures = minSuccess ? `, or fewer than ${fmtPct(minSuccess)} of requests succeed` : '';
  d.p(sentences(
    "The table below maps this configuration's measured performance to common deployment scenarios.",
    `Capacity limits are where TTFT or generation speed (the ${statName(r.limitStat)} of each tested step) breaks the use case's threshold${orFailures}.`,
    capacityMethod(r),
  ));
  const row = (u: UseCaseCapacity): string[] => [
    u.useCase.title,
    fmtTokens(u.useCase.contextTokens),
    thresholdColumn(u, ['ttft', 'e2e']),
    thresholdColumn(u, ['decodeSpeed', 'itl', 'tpot']),
    u.result.displayShort,
    guidanceSentence(u),
  ];
  d.table(['USE CASE', 'CONTEXT', 'TTFT THRESHOLD', 'SPEED THRESHOLD', 'CAPACITY', 'ANALYSIS'], r.useCases.map(row));
  d.p(sentences(
    'The limits shown are conservative.',
    'Beyond these points, the system continues functioning with slower response times that may still be acceptable for your specific use case.',
  ));
}

function thresholdColumn(u: UseCaseCapacity, metrics: readonly string[]): string {
  const l = u.useCase.limits.find((x) => metrics.includes(x.metric));
  if (!l) return 'N/A';
  const v = fmtLimitValue(l.metric, l.value);
  return l.metric === 'e2e' ? `${+(l.value / 1000).toFixed(2)}s e2e` : l.metric === 'ttft' ? v : `${v}${l.metric === 'decodeSpeed' ? '' : ` ${l.metric}`}`;
}

function guidanceSentence(u: UseCaseCapacity): string {
  const r = u.result;
  switch (r.kind) {
    case 'within':
      return (
        `Supports ${r.display} concurrent requests within accepted thresholds; ` +
        `${r.brokenBy?.label ?? 'a limit'} is the first limit to break (at ${r.firstFail} requests).`
      );
    case 'beyond':
      return `Supports ${r.displayShort} concurrent requests: no tested step (up to ${r.estimate}) broke a limit. Additional capacity likely available.`;
    case 'below':
      return `Does not meet the thresholds even at ${plural(r.firstFail ?? 1, 'concurrent request')}: ${r.brokenBy?.label ?? 'a limit'} is already broken.`;
    case 'untested':
      return 'Not measured in this run.';
  }
}

/** How the capacity figures were measured, read from the capacity cells themselves. */
function capacityMethod(r: Report): string {
  const cells = r.cells.filter((c) => c.script === 'capacity' && c.requests > 0);
  const searched = cells.filter((c) => c.measurement === 'search');
  const steady = cells.filter((c) => c.measurement === 'steady');
  const warmup = cells.reduce((n, c) => n + c.warmupRequests, 0);
  const transition = cells.reduce((n, c) => n + c.transitionRequests, 0);
  const parts: string[] = [];
  if (searched.length > 0) {
    const cfg = r.parts.find((p) => p.search)?.search ?? null;
    const resolution = cfg ? `to 1 user below ${cfg.exactBelow} users and to ${cfg.resolutionPercent}% above` : 'to the plan\'s resolution';
    parts.push(
      'Each capacity was found by an adaptive search: steps of N users climbing until a limit broke, ' +
        `then bisecting between the last passing and the first failing step ${resolution}.`,
      'A capacity is the largest measured step within every limit; the next measured step breaks one (nothing is interpolated).',
    );
  }
  if (searched.length > 0 || steady.length > 0) {
    const one = warmupPerUser(r) === 1;
    parts.push(
      'Every capacity step holds its users in steady state: each sends its next request as soon as the previous one ends; ' +
        `the first request${one ? '' : 's'} of each user a step adds ${one ? 'is' : 'are'} warm-up, ` +
        "and requests still running when a step ended ran partly under the next step's load: " +
        `both stay in the samples (tag phase) and out of the statistics (${fmtInt(warmup)} warm-up and ${fmtInt(transition)} transition requests in all).`,
    );
  }
  if (cells.length > searched.length + steady.length) {
    parts.push('Steps without warm-up sent all their requests at once (one synchronized round per user): the burst case, not users in service.');
  }
  if (searched.length === 0) parts.push('"~N" is interpolated between the last passing and the first failing step; "N+" means no tested step broke a limit.');
  else parts.push('"N+" means no step up to the search\'s maximum broke a limit.');
  return parts.join(' ');
}

function warmupPerUser(r: Report): number {
  return r.parts.find((p) => p.search)?.search?.warmupRequests ?? 1;
}

/** What users and the system get across the sweep grid: throughput, per-user speed, TTFT. */
function performanceAnalysisSection(d: DocBuilder, r: Report, charts: ReadonlySet<string>): void {
  const grid = gridCells(r);
  if (grid.length === 0) return;
  d.h(2, 'Performance Analysis');
  systemThroughputSection(d, grid, charts);
  perUserSpeedSection(d, grid, charts);
  ttftSection(d, r, grid, charts);
}

function systemThroughputSection(d: DocBuilder, grid: readonly CellStats[], charts: ReadonlySet<string>): void {
  d.h(3, 'System Throughput');
  d.p(sentences(
    'Aggregate token generation across all concurrent requests: output tokens of a cell divided by its wall time (first request start to last request end).',
    'Prompt tokens processed during prefill are excluded.',
  ));
  d.chart('throughput', charts);
  const peak = maxBy(grid, (c) => c.throughput);
  const maxN = Math.max(...grid.map((c) => c.concurrency));
  const contexts = [...new Set(grid.map((c) => c.contextTokens))].sort((a, b) => a - b);
  const rows: string[][] = [];
  const row = (condition: string, c: CellStats): string[] => [condition, fmtTokS(c.throughput), fmtMillions(c.tokensPerHour)];
  if (peak) rows.push(row(`Peak (${fmtTokens(peak.contextTokens)} context, ${plural(peak.concurrency, 'request')})`, peak));
  for (const ctx of contexts) {
    const c = grid.find((x) => x.contextTokens === ctx && x.concurrency === maxN);
    if (c && c !== peak) rows.push(row(`${fmtTokens(ctx)} context, ${plural(maxN, 'request')}`, c));
  }
  d.table(['CONDITION', 'THROUGHPUT', 'TOKENS/HOUR'], rows);
  if (peak?.tokensPerHour) {
    d.p(sentences(
      `At peak throughput, this configuration produces approximately **${fmtMillions(peak.tokensPerHour)}** tokens per hour ` +
        `(${fmtTokS(peak.throughput)} at ${where(peak)}).`,
      'This is relevant for batch workloads like document processing, synthetic data generation, or offline analysis.',
      peak.concurrency === maxN ? 'The peak is at the highest tested concurrency, so higher concurrency may increase it further.' : null,
    ));
  }
  d.note(clientBoundNote(grid) ?? '');
}

/** Decode speed per user against reading speed: the guide table and the verdict on the slowest cell read the same bands. */
function perUserSpeedSection(d: DocBuilder, grid: readonly CellStats[], charts: ReadonlySet<string>): void {
  d.h(3, 'Per-User Generation Speed');
  d.p(sentences(
    'Token generation rate experienced by each individual user: (output tokens - 1) / (e2e - TTFT), ' +
      'the speed at which text streams into their response ("decode speed").',
    'As concurrency increases, per-user speed decreases since GPU resources are shared across requests.',
  ));
  d.chart('decode_speed', charts);
  d.table(['SPEED', 'USER EXPERIENCE'], bandRows(JUDGEMENT.decodeSpeedTokS, tokSUnit, (b) => b.experience), 'How Fast is This?');
  const slow = minBy(grid, meanOf('decodeSpeed'));
  const lowestN = Math.min(...grid.map((x) => x.concurrency));
  const fastest = maxBy(grid.filter((c) => c.concurrency === lowestN), meanOf('decodeSpeed'));
  if (!slow?.metrics.decodeSpeed || !fastest?.metrics.decodeSpeed) return;
  const v = slow.metrics.decodeSpeed.mean;
  const users = fastest.concurrency === 1 ? 'Single-user' : `${fastest.concurrency}-user`;
  d.p(sentences(
    `At **${fmtTokS(v)}** (the lowest measured point: ${where(slow)}), this configuration ${bandOf(JUDGEMENT.decodeSpeedTokS, v).atSlowest}.`,
    `${users} performance at ${fmtTokens(fastest.contextTokens)} context reaches **${fmtTokS(fastest.metrics.decodeSpeed.mean)}**.`,
  ));
}

function ttftSection(d: DocBuilder, r: Report, grid: readonly CellStats[], charts: ReadonlySet<string>): void {
  d.h(3, 'Time to First Token');
  d.p(sentences(
    'Time from request submission to the first generated token of any kind (content, reasoning or tool call).',
    'The primary metric for perceived responsiveness.',
    'TTFT has two components: **queue wait** (time waiting for GPU availability, increases with concurrency) ' +
      'and **prefill** (time to process input context, increases with context length).',
  ));
  d.chart('ttft', charts);
  d.table(['TTFT', 'USER EXPERIENCE'], bandRows(JUDGEMENT.ttftMs, msUnit, (b) => b.experience), 'How Responsive is This?');
  const best = minBy(grid, meanOf('ttft'));
  const worst = maxBy(grid, meanOf('ttft'));
  if (best?.metrics.ttft && worst?.metrics.ttft) {
    d.p(`Best TTFT is ${fmtMs(best.metrics.ttft.mean)} (${where(best)}); worst is ${fmtMs(worst.metrics.ttft.mean)} (${where(worst)}).`);
  }
  cachingNote(d, r);
}

/** Whether TTFT measured fresh or cached prefill, from the prompt modes of the parts. */
function cachingNote(d: DocBuilder, r: Report): void {
  const modes = new Set(r.parts.map((p) => p.promptMode));
  if (modes.has('unique')) {
    d.p(sentences(
      '**Important note about caching.**',
      'Every request carried a unique prompt prefix, so prefix caching could not shorten prefill: these results represent worst-case TTFT.',
      'In production with caching enabled, only new tokens require processing: ' +
        'a 64K conversation where you add 1K of new context would have a TTFT similar to the 1K results, not the 64K results.',
    ));
  }
  if (modes.has('shared-prefix')) {
    d.p('**Note about caching.** Prompts shared a prefix, so the server could reuse its prefix cache: TTFT here reflects cached prefill, not fresh context.');
  }
}

/** One subsection per use case, after a paragraph on how its capacity limit is found. */
function capacityAnalysisSection(d: DocBuilder, r: Report, charts: ReadonlySet<string>): void {
  if (r.useCases.length === 0) return;
  d.h(2, 'Capacity Analysis');
  const example = r.useCases[0]!.limits[0]?.expression ?? 'avg<8000';
  d.p(sentences(
    'How many concurrent requests can this configuration handle for different workloads?',
    'Each section below shows performance metrics as concurrency increases at a specific context length.',
    'Dashed lines indicate quality thresholds.',
    'The "capacity limit" is the largest tested or interpolated concurrency at which every limit holds ' +
      `(limits checked on the ${statName(r.limitStat)} of each step with the suite's threshold code, expressions such as "${example}").`,
  ));
  for (const u of r.useCases) capacitySection(d, r, u, charts);
}

/** One use case: its thresholds, its metrics at the first step, at capacity and where a limit broke, and the verdict per step. */
function capacitySection(d: DocBuilder, r: Report, u: UseCaseCapacity, charts: ReadonlySet<string>): void {
  const uc = u.useCase;
  d.h(3, `${uc.title} (${fmtTokens(uc.contextTokens)} Context)`);
  d.p(uc.description);
  d.p(thresholdsParagraph(r, u));
  d.chart(`usecase_${uc.id}`, charts);
  const ladder = r.cells.filter((c) => u.cellIds.includes(c.id) && c.requests > 0).sort((a, b) => a.concurrency - b.concurrency);
  if (ladder.length === 0) {
    d.p('No step of this use case produced samples: capacity was not measured.');
    return;
  }
  const columns = capacityColumns(u.result, ladder);
  d.table(['METRIC', ...columns.map((c) => c.label)], capacityRows(r, u, ladder, columns));
  const res = u.result;
  const verdict = (s: LadderResult['steps'][number]): string => (s.ok ? 'pass' : `fail (${s.checks.filter((c) => !c.ok).map((c) => c.label).join(', ')})`);
  d.p(`Tested steps (concurrency: verdict): ${res.steps.map((s) => `${s.concurrency}: ${verdict(s)}`).join('; ')}.`);
  d.p(`**Capacity limit: ${capacityLimit(res)}**`);
  d.p(capacityNarrative(r, u, res));
  d.note(clientBoundNote(ladder) ?? '');
}

function thresholdsParagraph(r: Report, u: UseCaseCapacity): string {
  const uc = u.useCase;
  const success = u.limits.find((l) => l.metric === 'successRate');
  const andSuccess = success ? `, and ${success.label} of requests` : '';
  const outputTokens = r.cells.find((c) => u.cellIds.includes(c.id))?.outputTokens ?? uc.outputTokens;
  return sentences(
    `${uc.limits.length === 1 ? 'Threshold' : 'Thresholds'}: ${uc.limits.map((l) => l.label).join(', ')} (${statName(r.limitStat)} per step)${andSuccess}.`,
    `${fmtTokens(uc.contextTokens)} input and ${fmtInt(outputTokens)} output tokens per request.`,
    stepSource(u),
  );
}

/** Where a use case's steps came from when no capacity part measured it. */
function stepSource(u: UseCaseCapacity): string | null {
  if (u.source === 'sweep') return 'Measured on the sweep cells of the same context and output length (no capacity part in this run).';
  if (u.source === 'gate') return 'Measured by the gate run only (one step).';
  return null;
}

interface CapacityColumn {
  readonly n: number;
  readonly label: string;
}

/** The capacity table's columns: the first step, the capacity (when it is another step), and the first failing or else the last step. */
function capacityColumns(res: LadderResult, ladder: readonly CellStats[]): CapacityColumn[] {
  const column = (n: number, approx = false): CapacityColumn => ({ n, label: `@ ${approx ? '~' : ''}${plural(n, 'request')}` });
  const first = ladder[0]!.concurrency;
  const columns = [column(first)];
  if (res.estimate !== null && res.estimate !== first) columns.push(column(res.estimate, res.interpolated));
  const tail = res.firstFail ?? ladder[ladder.length - 1]!.concurrency;
  if (!columns.some((c) => c.n === tail)) columns.push(column(tail));
  return columns;
}

/** The use case's limited metrics, then throughput (unless decode speed is limited) and decode speed. */
function capacityMetrics(u: UseCaseCapacity): string[] {
  const limited = u.useCase.limits.map((l) => l.metric as string);
  const speeds = limited.includes('decodeSpeed') ? ['decodeSpeed'] : ['throughput', 'decodeSpeed'];
  return [...new Set([...limited, ...speeds])];
}

function capacityRows(r: Report, u: UseCaseCapacity, ladder: readonly CellStats[], columns: readonly CapacityColumn[]): string[][] {
  return capacityMetrics(u).map((m) => {
    const get = (c: CellStats): Num => metricValue(c, m, r.limitStat);
    const cell = (col: CapacityColumn): string => {
      const exact = ladder.find((c) => c.concurrency === col.n);
      // A column between tested steps is the capacity estimate: its values are interpolated.
      const v = exact ? get(exact) : valueAtCapacity(r, u, get);
      return `${exact ? '' : '~'}${fmtMetric(m, v)}${limitExceededAt(r, u, col.n, m) ? ' (threshold exceeded)' : ''}`;
    };
    return [m === 'throughput' ? 'Throughput' : metricLabel(m), ...columns.map(cell)];
  });
}

/** Whether a metric breaks its limit at n users: the tested step's own check, else (an interpolated point) the interpolated value. */
function limitExceededAt(r: Report, u: UseCaseCapacity, n: number, m: string): boolean {
  const check = u.result.steps.find((s) => s.concurrency === n)?.checks.find((c) => c.metric === m);
  if (check) return !check.ok;
  const limit = u.limits.find((l) => l.metric === m);
  if (!limit) return false;
  const v = valueAtCapacity(r, u, (c) => metricValue(c, m, r.limitStat));
  return v !== null && !compare(v, limit.operator, limit.value);
}

function capacityLimit(res: LadderResult): string {
  if (res.kind === 'beyond') return `${res.displayShort} concurrent requests`;
  if (res.kind === 'below') return `below ${plural(res.firstFail ?? 1, 'concurrent request')}`;
  return `${res.display} concurrent requests`;
}

/** What the capacity means in the use case's own metrics. */
function capacityNarrative(r: Report, u: UseCaseCapacity, res: LadderResult): string {
  const valueAt = (m: string): Num => valueAtCapacity(r, u, (c) => metricValue(c, m, r.limitStat));
  if (res.kind === 'beyond') {
    const parts = u.useCase.limits.map((l) => `${labelInSentence(l.metric)} is ${fmtMetric(l.metric, valueAt(l.metric))}`);
    return sentences(
      `At ${plural(res.estimate ?? 0, 'concurrent request')} (the largest tested), ${parts.join(' and ')}, all within the thresholds.`,
      'Capacity likely extends higher.',
    );
  }
  if (res.kind === 'below') {
    const b = res.brokenBy;
    const check = res.steps[0]?.checks.find((c) => c.metric === b?.metric);
    const metric = b?.metric ?? '';
    const value = fmtMetric(metric, check?.actual ?? null);
    return `Even at ${plural(res.firstFail ?? 1, 'concurrent request')}, ${labelInSentence(metric)} is ${value}, breaking ${b?.label ?? 'the limit'}.`;
  }
  if (res.kind === 'untested') return 'Not measured in this run.';
  const b = res.brokenBy!;
  const tilde = res.interpolated ? '~' : '';
  const crossing = res.interpolated ? ` (the crossing is interpolated between the tested ${res.lastPass} and ${res.firstFail} requests)` : '';
  const broken =
    `At ${tilde}${plural(res.estimate!, 'concurrent request')}, ${labelInSentence(b.metric)} reaches ${tilde}${fmtMetric(b.metric, valueAt(b.metric))}, ` +
    `within the ${fmtLimitValue(b.metric, b.value)} threshold; at ${plural(res.firstFail ?? 0, 'request')} it breaks ${b.label}${crossing}.`;
  const others = u.useCase.limits
    .filter((l) => l.metric !== b.metric)
    .map((l) => {
      const [side, bound] = l.operator.startsWith('>') ? ['above', 'minimum'] : ['below', 'maximum'];
      const value = `${tilde}${fmtMetric(l.metric, valueAt(l.metric))}`;
      return `${metricLabel(l.metric)} at this concurrency is ${value}, ${side} the ${fmtLimitValue(l.metric, l.value)} ${bound}.`;
    });
  return sentences(broken, ...others);
}

/** The burst part: what N requests arriving at once do to TTFT and ITL, and the deepest queue within the burst TTFT limit. */
function scaleUpSection(d: DocBuilder, r: Report, charts: ReadonlySet<string>): void {
  if (r.bursts.length === 0) return;
  d.h(2, 'When to Scale Up');
  d.p(sentences(
    'What do users experience when requests pile up?',
    'Each burst sends N requests at once, so new requests queue behind in-progress work.',
    'Use these numbers for SLA planning and capacity decisions.',
  ));
  d.chart('burst_ttft', charts);
  const safeDepth = (b: BurstCapacity): string => (b.result.kind === 'below' ? `below ${b.result.firstFail}` : `${b.result.displayShort} reqs`);
  const rows = r.bursts.map((b) => [
    b.title,
    `${fmtTokens(b.contextTokens)} / ${fmtTokens(b.outputTokens)}`,
    safeDepth(b),
    b.result.steps.map((s) => String(s.concurrency)).join(', '),
  ]);
  const caption = `Max safe queue depth: the deepest burst whose ${statName(r.limitStat)} TTFT stays at or under ${fmtSec(r.burstTtftLimitMs)}.`;
  d.table(['SCENARIO', 'INPUT / OUTPUT', 'MAX SAFE QUEUE DEPTH', 'TESTED DEPTHS'], rows, caption);
  const cells = r.cells.filter((c) => c.script === 'burst' && c.requests > 0);
  const at = (c: CellStats): string => `${r.bursts.find((b) => b.cellIds.includes(c.id))?.title ?? c.id}, queue depth ${c.concurrency}`;
  const best = minBy(cells, meanOf('ttft'));
  const worst = maxBy(cells, meanOf('ttft'));
  if (best && worst) {
    const ttft = (c: CellStats): string => `${fmtSec(c.metrics.ttft?.mean)} (${at(c)})`;
    d.p(`TTFT under queue saturation: best case ${ttft(best)}, worst case ${ttft(worst)}.`);
  }
  d.chart('burst_itl', charts);
  const worstItl = maxBy(cells, meanOf('itl'));
  if (worstItl?.metrics.itl) d.p(`The highest inter-token latency under burst load was ${fmtMsFine(worstItl.metrics.itl.mean)} (${at(worstItl)}).`);
  d.chart('burst_decode', charts);
  d.note(clientBoundNote(cells) ?? '');
}

type TitleOf = (c: CellStats) => string;

/** The mix part: each profile's fixed input and output lengths at N simultaneous requests. */
function fastestSection(d: DocBuilder, r: Report, charts: ReadonlySet<string>): void {
  if (r.mixProfiles.length === 0) return;
  d.h(2, 'When Am I the Fastest?');
  d.p(
    'Each scenario runs exactly N requests at the same time with fixed input and output lengths, ' +
      "isolating the hardware's capability at each concurrency level.",
  );
  const tested = (m: MixProfileSummary): string => r.cells.filter((c) => m.cellIds.includes(c.id) && c.requests > 0).map((c) => c.concurrency).join(', ');
  const rows = r.mixProfiles.map((m) => [m.title, `${fmtInt(m.contextTokens)} in / ${fmtInt(m.outputTokens)} out`, tested(m)]);
  d.table(['SCENARIO', 'INPUT / OUTPUT', 'CONCURRENCY TESTED'], rows);
  const cells = r.cells.filter((c) => c.script === 'mix' && c.requests > 0);
  const titleOf: TitleOf = (c) => r.mixProfiles.find((m) => m.cellIds.includes(c.id))?.title ?? c.id;
  mixSpeedAndLatency(d, cells, titleOf, charts);
  mixThroughputAndScaling(d, cells, titleOf, charts);
}

function mixSpeedAndLatency(d: DocBuilder, cells: readonly CellStats[], titleOf: TitleOf, charts: ReadonlySet<string>): void {
  d.chart('mix_decode', charts);
  const fast = maxBy(cells, meanOf('decodeSpeed'));
  const slow = minBy(cells, meanOf('decodeSpeed'));
  if (fast && slow) {
    d.p(
      `Per-user decode speed ranges from ${fmtTokS(fast.metrics.decodeSpeed?.mean)} (${titleOf(fast)}, ${plural(fast.concurrency, 'user')}) ` +
        `down to ${fmtTokS(slow.metrics.decodeSpeed?.mean)} (${titleOf(slow)}, ${slow.concurrency} concurrent).`,
    );
  }
  d.chart('mix_itl', charts);
  const low = minBy(cells, meanOf('itl'));
  const high = maxBy(cells, meanOf('itl'));
  if (low && high) {
    d.p(
      `Best inter-token latency is ${fmtMsFine(low.metrics.itl?.mean)} (${titleOf(low)}, ${plural(low.concurrency, 'user')}), ` +
        `rising to ${fmtMsFine(high.metrics.itl?.mean)} (${titleOf(high)}, ${high.concurrency} concurrent).`,
    );
  }
  d.chart('mix_ttft', charts);
}

function mixThroughputAndScaling(d: DocBuilder, cells: readonly CellStats[], titleOf: TitleOf, charts: ReadonlySet<string>): void {
  d.chart('mix_throughput', charts);
  const peak = maxBy(cells, (c) => c.throughput);
  if (peak) {
    const at = `${titleOf(peak)}, ${peak.concurrency} concurrent`;
    d.p(`Peak system throughput is ${fmtTokS(peak.throughput)} (${at}), about ${fmtMillions(peak.tokensPerHour)} tokens per hour.`);
  }
  d.chart('mix_efficiency', charts);
  const topN = Math.max(...cells.map((c) => c.concurrency));
  const atTop = cells.filter((c) => c.concurrency === topN && c.scalingEfficiency !== null);
  const hi = maxBy(atTop, (c) => c.scalingEfficiency);
  const lo = minBy(atTop, (c) => c.scalingEfficiency);
  d.note(clientBoundNote(cells) ?? '');
  if (hi && lo && topN > 1) {
    const efficiency = (c: CellStats): string => `${fmtPct(c.scalingEfficiency, 0)} (${titleOf(c)})`;
    d.p(`At ${topN} concurrent, scaling efficiency ranges from ${efficiency(hi)} to ${efficiency(lo)}.`);
  }
}

/** What explains the user-facing figures: queue wait, prefix cache, prefill, ITL, scaling efficiency and power. */
function technicalAnalysisSection(d: DocBuilder, r: Report, charts: ReadonlySet<string>): void {
  const grid = gridCells(r);
  if (grid.length === 0) return;
  d.h(2, 'Technical Analysis');
  d.p('Infrastructure-level metrics that explain user-facing performance: queue wait, prefill throughput, token-level latency, scaling efficiency and power.');
  queueWaitSection(d, grid, charts);
  prefixCacheSection(d, r);
  prefillSpeedSection(d, grid, charts);
  itlSection(d, grid, charts);
  scalingEfficiencySection(d, grid, charts);
  powerSection(d, r, grid, charts);
}

function queueWaitSection(d: DocBuilder, grid: readonly CellStats[], charts: ReadonlySet<string>): void {
  d.h(3, 'Queue Wait Times');
  const withQ = grid.filter((c) => c.server?.queueWaitMs !== null && c.server?.queueWaitMs !== undefined);
  if (withQ.length === 0) {
    d.p("Server-side queue wait was not measured in this run (no monitor samples of the engine's queue-time histogram).");
    return;
  }
  d.p(sentences(
    "Time a request waits in the engine's queue before processing begins, from the server's queue-time histogram: " +
      "the increase of its sum divided by the increase of its count over each cell's time window.",
    'Queue wait is included in TTFT.',
  ));
  d.chart('queue_wait', charts);
  const wait = (c: CellStats): Num => c.server!.queueWaitMs;
  const maxQ = maxBy(withQ, wait);
  const maxOne = maxBy(withQ.filter((c) => c.concurrency === 1), wait);
  if (maxOne) d.p(`At single concurrency, queue wait is at most ${fmtMs(wait(maxOne))} across context lengths.`);
  if (maxQ) {
    d.p(sentences(
      `At **${plural(maxQ.concurrency, 'concurrent request')}** with **${fmtTokens(maxQ.contextTokens)} context**, ` +
        `queue wait reaches **${fmtMs(wait(maxQ))}**.`,
      queueSaturated(wait(maxQ) ?? 0) ? 'Rising queue times signal GPU saturation: requests wait for resources rather than being processed immediately.' : null,
    ));
  }
  d.p(sentences(
    'Interpretation: queue wait and prefill time are measured independently by the server and may not sum exactly to TTFT.',
    "Use queue wait for capacity planning and TTFT for the user's actual wait.",
  ));
}

const HIT_RATE = "The server's prefix-cache hit rate (cached / queried prompt tokens over each cell's window)";

/** The server's prefix-cache hit rate per cell, when it exposes one: a hit skips prefill, so TTFT is only comparable at equal hit rates. */
function prefixCacheSection(d: DocBuilder, r: Report): void {
  const known = r.cells.filter((c) => c.requests > 0 && c.server?.prefixCacheHitRate != null);
  if (known.length === 0) return;
  d.h(3, 'Prefix Cache');
  const rate = (c: CellStats) => c.server!.prefixCacheHitRate!;
  const hits = known.filter((c) => prefixCacheHit(rate(c)));
  if (hits.length === 0) {
    d.p(
      `${HIT_RATE} was 0% in all ${plural(known.length, 'cell')} with server metrics: ` +
        'no prefill was skipped, so TTFT and prefill speed measure fresh context.',
    );
    return;
  }
  d.p(
    `${HIT_RATE} was above 0% in ${plural(hits.length, 'cell')} of ${known.length}: ` +
      "prefill of the cached part was skipped there, so those cells' TTFT is lower than fresh context would give.",
  );
  const row = (c: CellStats): string[] => [c.id, fmtTokens(c.contextTokens), String(c.concurrency), fmtPct(rate(c), 1), fmtMs(c.metrics.ttft?.mean)];
  d.table(['CELL', 'CONTEXT', 'CONCURRENCY', 'HIT RATE', 'TTFT MEAN'], hits.slice(0, 24).map(row));
}

function prefillSpeedSection(d: DocBuilder, grid: readonly CellStats[], charts: ReadonlySet<string>): void {
  d.h(3, 'Per-User Prefill Speed');
  d.p(
    'Rate at which the model processes input context before generating output, per request: ' +
      'input tokens / TTFT (so it includes queue wait, as the user sees it).',
  );
  d.chart('prefill_speed', charts);
  const concurrencies = [...new Set(grid.map((c) => c.concurrency))].sort((a, b) => a - b);
  const peakRows = concurrencies.flatMap((n) => {
    const best = maxBy(grid.filter((c) => c.concurrency === n), meanOf('prefillSpeed'));
    return best ? [[String(n), `${fmtTokens(best.contextTokens)} context`, `${fmtInt(best.metrics.prefillSpeed?.mean)} tok/s`]] : [];
  });
  d.table(['CONCURRENT REQUESTS', 'PEAKS AT', 'PEAK SPEED'], peakRows);
  const worst = maxBy(grid.filter((c) => c.server?.prefillTimeMs != null), (c) => c.server!.prefillTimeMs);
  if (worst) d.p(`The server's own prefill-time histogram peaks at ${fmtMs(worst.server!.prefillTimeMs)} per request (${where(worst)}).`);
}

/** ITL across the grid; the highest is judged by the ITL bands. */
function itlSection(d: DocBuilder, grid: readonly CellStats[], charts: ReadonlySet<string>): void {
  d.h(3, 'Inter-Token Latency');
  d.p(sentences(
    'Time between consecutive tokens during generation; a chunk that carries several tokens spreads its gap over them.',
    'Determines the smoothness of responses.',
  ));
  d.chart('itl', charts);
  const low = minBy(grid, meanOf('itl'));
  const high = maxBy(grid, meanOf('itl'));
  if (!low?.metrics.itl || !high?.metrics.itl) return;
  const hv = high.metrics.itl.mean;
  d.p(sentences(
    `The lowest inter-token latency is **${fmtMsFine(low.metrics.itl.mean)}** (${where(low)}).`,
    `The highest observed was **${fmtMsFine(hv)}** at **${fmtTokens(high.contextTokens)}** context ` +
      `with **${plural(high.concurrency, 'concurrent request')}**, ${bandOf(JUDGEMENT.itlMs, hv).atHighest}.`,
  ));
}

/** The spread of scaling efficiency at the highest concurrency; a low end under the contention cut-off is called out. */
function scalingEfficiencySection(d: DocBuilder, grid: readonly CellStats[], charts: ReadonlySet<string>): void {
  d.h(3, 'Scaling Efficiency');
  d.p(sentences(
    'Percentage of ideal linear scaling: throughput(N) / (N x throughput(1)) at the same context and output length.',
    '100% means doubling concurrent requests doubles total throughput.',
  ));
  d.chart('efficiency', charts);
  const topN = Math.max(...grid.map((c) => c.concurrency));
  const atTop = grid.filter((c) => c.concurrency === topN && c.scalingEfficiency !== null);
  const hi = maxBy(atTop, (c) => c.scalingEfficiency);
  const lo = minBy(atTop, (c) => c.scalingEfficiency);
  if (!hi || !lo || topN <= 1) {
    d.p('Scaling efficiency needs a concurrency-1 cell at the same context length; this run has none.');
    return;
  }
  const efficiency = (c: CellStats): string => `${fmtPct(c.scalingEfficiency, 0)} (${fmtTokens(c.contextTokens)} context)`;
  const cutOff = fmtPct(JUDGEMENT.severeContentionBelow, 0);
  const contention = `Below ${cutOff} signals severe contention for shared resources: adding requests brings diminishing returns.`;
  d.p(sentences(
    `At ${topN} concurrent requests, scaling efficiency ranges from ${efficiency(hi)} to ${efficiency(lo)}.`,
    severeContention(lo.scalingEfficiency ?? 1) ? contention : null,
  ));
}

/** GPU power and its cost, when the monitor sampled a power gauge. */
function powerSection(d: DocBuilder, r: Report, grid: readonly CellStats[], charts: ReadonlySet<string>): void {
  d.h(3, 'Power & Efficiency');
  const powered = r.cells.filter((c) => c.power !== null && c.requests > 0);
  if (powered.length === 0) {
    d.p('GPU power was not measured in this run (no power samples from the monitor): energy per token and electricity cost are not reported.');
    return;
  }
  const o = r.options;
  d.p(sentences(
    "GPU power draw under varying load, from the monitor's power gauge (summed over GPUs).",
    `Cost figures use **${fmtUsd(o.usdPerKwh)}/kWh** electricity and **${fmtUsd(o.usdPerGpuHour)}/GPU-hour** for ${plural(o.gpuCount, 'GPU')} ` +
      '(flags --usd-per-kwh, --usd-per-gpu-hour, --gpus).',
  ));
  d.chart('power', charts);
  d.chart('power_vs_concurrency', charts);
  peakAndMostEfficient(d, powered, o.usdPerKwh);
  const gridPowered = grid.filter((c) => c.power !== null);
  const row = (c: CellStats): string[] => {
    const p = c.power!;
    return [c.id, fmtWatts(p.meanWatts), fmtWatts(p.peakWatts), fmtJoules(p.joulesPerOutputToken), fmtUsd(p.totalUsdPerHour), fmtUsd(p.usdPerMillionTokens)];
  };
  d.table(['CELL', 'MEAN POWER', 'PEAK POWER', 'ENERGY / TOKEN', 'COST / HOUR', 'COST / 1M TOKENS'], (gridPowered.length > 0 ? gridPowered : powered).map(row));
}

/** The peak draw, priced as electricity (peak, not mean, is what to provision for), and the cell with the least energy per token. */
function peakAndMostEfficient(d: DocBuilder, powered: readonly CellStats[], usdPerKwh: number): void {
  const peak = maxBy(powered, (c) => c.power!.peakWatts);
  if (peak) {
    const watts = peak.power!.peakWatts;
    d.p(sentences(
      `The highest power draw observed was **${fmtWatts(watts)}** at **${fmtTokens(peak.contextTokens)}** context ` +
        `with **${plural(peak.concurrency, 'concurrent request')}**, ` +
        `costing approximately **${fmtUsd((watts / 1000) * usdPerKwh)}/hour** in electricity at ${fmtUsd(usdPerKwh)}/kWh.`,
      'For infrastructure planning, budget for peak power draw.',
    ));
  }
  const best = minBy(powered, (c) => c.power!.joulesPerOutputToken);
  if (best?.power?.joulesPerOutputToken != null) {
    d.p(
      `The most energy-efficient cell is ${best.id} (${where(best)}) at ${fmtJoules(best.power.joulesPerOutputToken)} per output token, ` +
        `or ${fmtUsd(best.power.usdPerMillionTokens)} per million output tokens including GPU time.`,
    );
  }
}

function measuredCells(r: Report): CellStats[] {
  return r.cells.filter((c) => c.requests > 0);
}

function latencyPercentilesSection(d: DocBuilder, r: Report): void {
  const cells = measuredCells(r);
  if (cells.length === 0) return;
  d.h(2, 'Latency Percentiles');
  d.p("Full percentile breakdowns per cell (k6's method: linear interpolation between closest ranks). Times in ms.");
  percentileTable(d, cells, 'ttft', 'TTFT (ms)');
  percentileTable(d, cells, 'itl', 'Inter-Token Latency (ms)');
  percentileTable(d, cells, 'tpot', 'Time per Output Token (ms)');
  percentileTable(d, cells, 'e2e', 'End-to-End Latency (ms)');
}

function percentileTable(d: DocBuilder, cells: readonly CellStats[], k: TrendKey, title: string): void {
  d.h(3, title);
  const row = (c: CellStats): string[] => {
    const m = c.metrics[k]!;
    return [c.id, String(c.concurrency), String(m.count), ...[m.mean, m.p50, m.p90, m.p95, m.p99, m.max].map((v) => v.toFixed(1))];
  };
  d.table(['CELL', 'USERS', 'SAMPLES', 'MEAN', 'P50', 'P90', 'P95', 'P99', 'MAX'], cells.filter((c) => c.metrics[k] !== null).map(row));
}

function successAndErrorsSection(d: DocBuilder, r: Report): void {
  const cells = measuredCells(r);
  if (cells.length === 0) return;
  d.h(2, 'Success Rate and Errors');
  const t = r.totals;
  const kinds = Object.entries(t.errorsByKind).filter(([, n]) => n > 0);
  const failures = kinds.length > 0 ? `; failures by kind: ${kinds.map(([k, n]) => `${k} ${n}`).join(', ')}` : ' (no errors)';
  const cut = `${fmtCount(t.cut)} more were cut by the end of their cell's time slot or by an interrupt: they are neither measured nor failed.`;
  d.p(sentences(`${fmtPct(t.successRate)} of ${fmtCount(t.requests)} requests succeeded${failures}.`, t.cut > 0 ? cut : null));
  const errors = (c: CellStats): string => Object.entries(c.errorsByKind).filter(([, n]) => n > 0).map(([k, n]) => `${k}: ${n}`).join(', ') || '-';
  const rows = cells.map((c) => [c.id, String(c.requests), String(c.cut), fmtPct(c.successRate), errors(c), c.tokenSource ?? 'n/a']);
  d.table(['CELL', 'REQUESTS', 'CUT', 'SUCCESS RATE', 'ERRORS', 'TOKEN COUNTS FROM'], rows);
  const messageRows = cells.flatMap((c) =>
    Object.entries(c.errorMessages).flatMap(([kind, list]) => list.map((m) => [c.id, kind, String(m.count), lit(m.message)])),
  );
  const caption =
    `The most frequent error messages per cell and kind (top ${ERROR_MESSAGES_SHOWN}), ` +
    'as the server or the transport gave them (first 200 characters, API key redacted).';
  d.table(['CELL', 'ERROR KIND', 'COUNT', 'SERVER MESSAGE'], messageRows, caption);
}

function allCellsSection(d: DocBuilder, r: Report): void {
  const cells = measuredCells(r);
  if (cells.length === 0) return;
  d.h(2, 'All Cells');
  d.p('Every measured cell (also in cells.csv). Times are means; throughput is output tokens / cell wall time.');
  const row = (c: CellStats): string[] => [
    `${c.id}${c.clientBound ? ' ⚠ client-bound' : ''}`,
    fmtTokens(c.contextTokens),
    fmtTokens(c.outputTokens),
    String(c.concurrency),
    String(c.requests),
    fmtMs(c.metrics.ttft?.mean),
    fmtMsFine(c.metrics.itl?.mean),
    fmtTokS(c.metrics.decodeSpeed?.mean),
    fmtTokS0(c.metrics.prefillSpeed?.mean),
    fmtTokS(c.throughput),
    fmtPct(c.scalingEfficiency, 0),
    fmtMs(c.server?.queueWaitMs),
    fmtWatts(c.power?.meanWatts),
  ];
  const head = ['CELL', 'CONTEXT', 'OUTPUT', 'USERS', 'REQ', 'TTFT', 'ITL', 'DECODE', 'PREFILL', 'THROUGHPUT', 'EFFICIENCY', 'QUEUE WAIT', 'POWER'];
  d.table(head, cells.map(row));
}

function deployGateSection(d: DocBuilder, r: Report): void {
  if (r.gates.length === 0) return;
  d.h(2, 'Deploy Gate');
  for (const g of r.gates) {
    const load = plural(g.concurrency, 'concurrent request');
    if (!g.measured) {
      d.p(`Gate ${g.cellId} (${g.title}, ${load}) produced no samples: the gate was not measured.`);
      continue;
    }
    d.p(`**${g.ok ? '✓ Passed' : '✗ Failed'}**: ${g.title} at ${load} (cell ${g.cellId}).`);
    const rows = g.checks.map((c) => [c.label, c.expression, fmtMetric(c.metric, c.actual), c.ok ? '✓ pass' : '✗ fail']);
    d.table(['LIMIT', 'EXPRESSION', 'MEASURED', 'VERDICT'], rows);
  }
}

function k6ThresholdsSection(d: DocBuilder, r: Report): void {
  const parts = r.parts.filter((p) => p.thresholds.length > 0);
  if (parts.length === 0) return;
  d.h(2, 'k6 Thresholds');
  for (const p of parts) {
    const failed = p.thresholds.filter((t) => !t.ok);
    const which = failed.length > 0 ? `; failed: ${failed.map((t) => `${t.metric} ${t.expression}`).join(', ')}` : '';
    d.p(`${p.name}: ${p.thresholds.length - failed.length} of ${p.thresholds.length} thresholds passed${which}.`);
  }
}

function comparisonSection(d: DocBuilder, r: Report): void {
  const c = r.comparison;
  if (!c) return;
  d.h(2, 'Comparison with Baseline');
  const tolerance = `${(c.tolerance * 100).toFixed(0)}%`;
  d.p(sentences(
    `Baseline: ${c.baselineRunId ?? c.baselineDir}.`,
    `Tolerance: ${tolerance} relative change in the bad direction.`,
    'Gated: capacities, max safe queue depths, success rates and the use-case limit metrics of the capacity steps.',
  ));
  d.p(c.gatedRegression ? `**${plural(c.regressions.length, 'gated regression')} found** (exit code 99):` : '**No gated regression** beyond the tolerance.');
  d.list(c.regressions);
  const capacityRows = c.capacities.map((x) => [
    x.title,
    x.baseline,
    x.current,
    x.change === null ? 'n/a' : fmtChange(x.change),
    x.regression ? '✗ regression' : '✓',
  ]);
  d.table(['USE CASE / BURST', 'BASELINE', 'CURRENT', 'CHANGE', 'VERDICT'], capacityRows);
  const verdict = (dl: MetricDelta): string => (dl.regression ? (dl.gated ? '✗ gated regression' : '✗ regression') : '✓ improvement');
  const moved = c.cells.flatMap((cell) => cell.deltas.filter((dl) => dl.change !== null && Math.abs(dl.change) > c.tolerance).map((dl) => ({ cell, dl })));
  const rows = moved.map(({ cell, dl }) => [cell.cellId, dl.label, fmtNum(dl.baseline), fmtNum(dl.current), fmtChange(dl.change!), verdict(dl)]);
  if (rows.length > 0) d.table(['CELL', 'METRIC', 'BASELINE', 'CURRENT', 'CHANGE', 'VERDICT'], rows, `Cell metrics that moved more than ${tolerance}.`);
  else d.p(`No cell metric moved more than ${tolerance} across ${plural(c.cells.length, 'matched cell')}.`);
  if (c.onlyInBaseline.length > 0) d.p(`Cells only in the baseline: ${c.onlyInBaseline.join(', ')}.`);
  if (c.onlyInCurrent.length > 0) d.p(`Cells only in this run: ${c.onlyInCurrent.join(', ')}.`);
}

/** A relative change as the comparison writes it: "+12.5%", "-3.0%". */
function fmtChange(change: number): string {
  return `${change > 0 ? '+' : ''}${(change * 100).toFixed(1)}%`;
}

function fmtNum(v: number | null): string {
  if (v === null) return 'n/a';
  return Math.abs(v) >= 100 ? v.toFixed(0) : v.toFixed(2);
}

/** How the run was made and how its figures are defined, one list item per fact. */
function methodologySection(d: DocBuilder, r: Report): void {
  d.h(2, 'Methodology');
  d.list([...runItems(r), ...requestItems(r), ...limitItems(r), ...r.parts.map(partItem), `Definitions: ${DEFINITIONS.join('; ')}.`]);
  d.p(`Generated ${r.generatedAt} by k6-llm-capacity report (report.json schema version ${r.schemaVersion}).`);
}

/** Engine, target, tokenizer and command from run.json; without it, the first plan's target and what is not recorded. */
function runItems(r: Report): string[] {
  const run = r.run;
  if (!run) {
    const t = r.parts[0]!.target;
    return [`Target: ${lit(t.model)} at ${lit(t.baseUrl)}. No run.json was found, so the engine, its version and the tokenizer are not recorded.`];
  }
  const engine = engineLabel(run, "the suite's local runner", ' (k6 bundles on Node)');
  const profile = run.target.simProfile ? ` (profile ${lit(run.target.simProfile)})` : '';
  const simulated = run.target.simulated ? ` — the suite's simulated server${profile}, not real hardware` : '';
  const items = [
    `Engine: ${engine}; run ${lit(run.runId)} from ${lit(run.startedAt)} to ${lit(run.endedAt)}${run.interrupted ? ' (interrupted)' : ''}.`,
    `Target: ${lit(run.target.model)} at ${lit(run.target.baseUrl)}${simulated}.`,
    `Tokenizer used to build exact-length prompts: ${lit(run.tokenizer)}.`,
  ];
  if (run.command.length > 0) items.push(`Command: \`${run.command.join(' ').replace(/[`\r\n]/g, ' ')}\`.`);
  return items;
}

/** What every request looked like: API and sampling, how its output length was forced, its prompt mode. */
function requestItems(r: Report): string[] {
  const t = r.parts[0]!.target;
  const api = t.api === 'chat' ? '/v1/chat/completions' : '/v1/completions';
  const seed = t.seed !== null ? `, seed ${t.seed}` : '';
  const forced = !t.ignoreEos && !t.minTokens ? ' only (the model may stop early)' : '';
  const forcing = `max_tokens${t.ignoreEos ? ' + ignore_eos' : ''}${t.minTokens ? ' + min_tokens' : ''}${forced}`;
  const modes = [...new Set(r.parts.map((p) => p.promptMode))].map((m) =>
    m === 'unique' ? 'unique prefix per request (prefix caching cannot hide prefill)' : 'shared prefix (measures a warm prefix cache)',
  );
  return [
    `API: ${api}, streaming, temperature ${t.temperature}${seed}, request timeout ${t.requestTimeoutSeconds}s.`,
    `Output length forcing: ${forcing}. Output token counts ${describeTokenSources(r)}.`,
    `Prompt mode: ${modes.join('; ')}.`,
  ];
}

// A Map, not an object: a source is a tag value from the CSV and must not reach Object.prototype.
const TOKEN_SOURCES: ReadonlyMap<string, string> = new Map([
  ['usage', "the server's usage field"],
  ['chunks', 'counting stream chunks (the server sent no usage)'],
  ['mixed', 'usage in some requests and chunk counts in others'],
]);

function describeTokenSources(r: Report): string {
  const srcs = new Set(r.cells.map((c) => c.tokenSource).filter((s): s is string => s !== null));
  if (srcs.size === 0) return 'were not recorded (no token samples)';
  return `came from ${[...srcs].map((s) => TOKEN_SOURCES.get(s) ?? s).join('; ')}`;
}

/** The statistic and limits that capacities and bursts were judged by, and how capacity was searched. */
function limitItems(r: Report): string[] {
  const st = r.limitStat;
  const minSuccess = r.options.minSuccessRate ? `; capacity steps also need ${fmtPct(r.options.minSuccessRate)} successful requests` : '';
  const burst = `burst limit TTFT <= ${fmtSec(r.burstTtftLimitMs)}`;
  const items = [`Limit statistic: the ${statName(st)} of each cell ("${st}" in k6 threshold expressions); ${burst}${minSuccess}.`];
  if (r.useCases.length > 0) items.push(`Capacity: ${capacityMethod(r)}`);
  return items;
}

function partItem(p: PartSummary): string {
  const seconds = Math.round(p.plannedSeconds);
  const schedule = p.driven ? `back to back as the bench handed out each request, ${seconds}s` : `planned ${seconds}s in k6 time slots`;
  const ran = p.testRunDurationMs !== null ? `, ran ${(p.testRunDurationMs / 1000).toFixed(0)}s` : '';
  const monitor = p.monitorEnabled ? `every ${p.monitorIntervalSeconds}s` : 'off';
  const files = p.hasSummary ? '' : '; no summary.json';
  const measured = `${p.cellsWithData} of ${p.cells} cells measured, ${schedule}${ran}`;
  return `Part ${p.name} (${p.script}, plan "${p.planName}"): ${measured}; ${fmtInt(p.csvRows)} CSV rows; server monitor ${monitor}${files}.`;
}

const DEFINITIONS = [
  'TTFT = request start to first generated token',
  'ITL = one sample per token after the first',
  'TPOT = (e2e - TTFT) / (output tokens - 1)',
  'decode speed = (output tokens - 1) / (e2e - TTFT)',
  'prefill speed = input tokens / TTFT',
  'system throughput = output tokens / cell wall time',
  'scaling efficiency = throughput(N) / (N x throughput(1))',
  'server queue wait = Δ histogram sum / Δ histogram count over the cell window',
];

/** A paragraph from its sentences; a sentence that does not apply is given as null and left out. */
function sentences(...parts: (string | null)[]): string {
  return parts.filter((s): s is string => s !== null).join(' ');
}

function where(c: CellStats): string {
  return `${fmtTokens(c.contextTokens)} context, ${plural(c.concurrency, 'concurrent request')}`;
}

const meanOf = (k: TrendKey) => (c: CellStats): Num => c.metrics[k]?.mean ?? null;

function statName(stat: string): string {
  switch (stat) {
    case 'avg':
      return 'average';
    case 'med':
      return 'median';
    default:
      return stat.replace('p(', 'P').replace(')', '');
  }
}

function statOf(c: CellStats, k: TrendKey, stat: string): Num {
  return statistic(c.metrics[k], stat);
}

/** A capacity-table metric of a cell: a Trend at the limit statistic, or the success rate, or the system throughput. */
function metricValue(c: CellStats, m: string, stat: string): Num {
  if (m === 'successRate') return c.successRate;
  if (m === 'throughput') return c.throughput;
  return statOf(c, m as TrendKey, stat);
}

function metricLabel(m: string): string {
  switch (m) {
    case 'ttft':
      return 'TTFT';
    case 'e2e':
      return 'End-to-end latency';
    case 'decodeSpeed':
      return 'Generation speed';
    case 'itl':
      return 'Inter-token latency';
    case 'tpot':
      return 'Time per output token';
    case 'successRate':
      return 'Success rate';
    default:
      return m;
  }
}

/** The label inside a sentence: lower case, except acronyms (TTFT). */
function labelInSentence(m: string): string {
  const l = metricLabel(m);
  return /^[A-Z]{2,}/.test(l) ? l : l.toLowerCase();
}

function fmtMetric(m: string, v: Num): string {
  if (v === null) return 'n/a';
  switch (m) {
    case 'ttft':
      return fmtSec(v);
    case 'e2e':
      return `${Math.round(v)}ms`;
    case 'decodeSpeed':
    case 'throughput':
      return fmtTokS0(v);
    case 'successRate':
      return fmtPct(v);
    default:
      return fmtMsFine(v);
  }
}

function clientBoundNote(cells: readonly CellStats[]): string | null {
  const bound = cells.filter((c) => c.clientBound);
  if (bound.length === 0) return null;
  return sentences(
    `⚠ Client-bound: ${bound.map((c) => `${c.id} (${c.clientBound!.reason})`).join('; ')}.`,
    'The load generator limited these cells, so their figures understate what the server can do.',
  );
}

/** A guide table's rows: each band's range, written from its bounds ("< 15 tok/s", "15–25 tok/s", "> 50 tok/s"), and its text. */
function bandRows<B extends Band>(bands: readonly B[], split: (v: number) => [string, string], text: (b: B) => string): string[][] {
  return bands.map((b, i) => {
    const prev = i > 0 ? bands[i - 1]!.below : null;
    const hi = b.below === null ? null : split(b.below);
    const lo = prev === null ? null : split(prev);
    // The unit is written once when both ends share it ("2–5s", but "500ms–2s").
    const range = !lo ? `< ${hi![0]}${hi![1]}` : !hi ? `> ${lo[0]}${lo[1]}` : `${lo[0]}${lo[1] === hi[1] ? '' : lo[1]}–${hi[0]}${hi[1]}`;
    return [range, text(b)];
  });
}

const tokSUnit = (v: number): [string, string] => [String(v), ' tok/s'];

const msUnit = (v: number): [string, string] => (v < 1000 ? [String(v), 'ms'] : [String(v / 1000), 's']);

/** "k6 v1.8.1 (go1.26.8, linux/amd64)": k6's version line already starts with its name, so it is not named twice. */
function engineLabel(run: { readonly engine: string; readonly engineVersion: string }, runnerName: string, runnerSuffix = ''): string {
  if (run.engine !== 'k6') return `${runnerName} ${run.engineVersion}${runnerSuffix}`;
  return /^k6\b/.test(run.engineVersion) ? run.engineVersion : `k6 ${run.engineVersion}`;
}
