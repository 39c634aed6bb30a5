// The report object (with schemaVersion) built from a run's inputs and samples; every renderer reads only this. Runs in Node.

import { MIX_PROFILES, type UseCase } from '../thresholds/use-cases';
import type { PartInput, RunInput } from './inputs';
import type { SamplesData } from './read-samples';
import { applyScalingEfficiency, buildCellStats, type CellStats } from './cells';
import {
  burstCapacity,
  checkLimit,
  interpolateMetric,
  ladderLimits,
  useCaseCapacity,
  type BurstCapacity,
  type UseCaseCapacity,
} from './capacity';
import { DEFAULT_COST } from './power';
import { capacityFinding } from './judgement';
import { maxBy, minBy } from './stats';
import { fmtCount, fmtMs, fmtMillions, fmtPct, fmtTokS, fmtTokens, plural } from './format';
import {
  REPORT_SCHEMA_VERSION,
  type Finding,
  type GateResult,
  type PartSummary,
  type Report,
  type ReportOptions,
  type Totals,
} from './report-types';

export const DEFAULT_REPORT_OPTIONS: ReportOptions = { ...DEFAULT_COST, minSuccessRate: 0.99 };

function addCounts(into: Record<string, number>, from: Readonly<Record<string, number>>): void {
  for (const [k, v] of Object.entries(from)) into[k] = (into[k] ?? 0) + v;
}

function byConcurrency(a: CellStats, b: CellStats): number {
  return a.contextTokens - b.contextTokens || a.concurrency - b.concurrency;
}

/** Sweep cells, or (when there is no sweep part) every cell: the grid the performance sections describe. */
export function gridCells(r: Pick<Report, 'cells'>): CellStats[] {
  const sweep = r.cells.filter((c) => c.script === 'sweep' && c.requests > 0);
  return (sweep.length > 0 ? sweep : r.cells.filter((c) => c.requests > 0 && c.script !== 'burst')).slice().sort(byConcurrency);
}



function buildFindings(cells: readonly CellStats[], grid: readonly CellStats[], useCases: readonly UseCaseCapacity[], bursts: readonly BurstCapacity[], totals: Totals): { highlights: Finding[]; keyFindings: Finding[] } {
  const highlights: Finding[] = [];
  const key: Finding[] = [];
  const peak = maxBy(grid, (c) => c.throughput);
  if (peak && peak.throughput !== null) {
    highlights.push({ label: `Tok/s Peak Throughput @ ${plural(peak.concurrency, 'Concurrent Request')}`, value: peak.throughput.toFixed(1) });
    key.push({ label: 'Peak System Throughput', value: `${fmtTokS(peak.throughput)} @ ${plural(peak.concurrency, 'concurrent request')}, ${fmtTokens(peak.contextTokens)} context (${fmtMillions(peak.tokensPerHour)} tokens per hour)` });
  }
  if (totals.requests > 0) highlights.push({ label: 'Success Rate Across All Scenarios', value: fmtPct(totals.successRate) });
  const chat = useCases.find((u) => u.useCase.id === 'general_chatbot' && u.result.kind !== 'untested') ?? useCases.find((u) => u.result.kind !== 'untested');
  if (chat) {
    highlights.push({ label: `Concurrent Users @ ${fmtTokens(chat.useCase.contextTokens)} Context (${chat.useCase.title})`, value: chat.result.displayShort });
  }
  const singles = grid.filter((c) => c.concurrency === 1);
  const lo = minBy(singles, (c) => c.contextTokens);
  const hi = maxBy(singles, (c) => c.contextTokens);
  if (lo && hi && lo.metrics.ttft && hi.metrics.ttft) {
    key.push({ label: 'TTFT Single Request', value: lo === hi ? `${fmtMs(lo.metrics.ttft.mean)} (${fmtTokens(lo.contextTokens)} context)` : `${fmtMs(lo.metrics.ttft.mean)} (${fmtTokens(lo.contextTokens)} context) → ${fmtMs(hi.metrics.ttft.mean)} (${fmtTokens(hi.contextTokens)} context)` });
  }
  if (lo && hi && lo.metrics.decodeSpeed && hi.metrics.decodeSpeed) {
    key.push({ label: 'Generation Speed Single Request', value: lo === hi ? `${fmtTokS(lo.metrics.decodeSpeed.mean)} (${fmtTokens(lo.contextTokens)} context)` : `${fmtTokS(lo.metrics.decodeSpeed.mean)} (${fmtTokens(lo.contextTokens)} context) → ${fmtTokS(hi.metrics.decodeSpeed.mean)} (${fmtTokens(hi.contextTokens)} context)` });
  }
  if (chat) key.push({ label: `${chat.useCase.title} Capacity`, value: capacityFinding(chat) });
  if (lo) {
    const sameCtx = grid.filter((c) => c.contextTokens === lo.contextTokens && c.outputTokens === lo.outputTokens && c.script === lo.script);
    const top = maxBy(sameCtx, (c) => c.concurrency);
    if (top && top.concurrency > 1 && top.throughput !== null && lo.throughput) {
      key.push({ label: 'Throughput Scaling', value: `${(top.throughput / lo.throughput).toFixed(1)}× from 1 to ${top.concurrency} concurrent requests (${fmtTokens(lo.contextTokens)} context, ${fmtPct(top.scalingEfficiency, 0)} scaling efficiency)` });
    }
  }
  const bestBurst = maxBy(bursts.filter((b) => b.result.kind !== 'untested'), (b) => b.result.estimate ?? 0);
  if (bestBurst) {
    key.push({ label: 'Max Safe Queue Depth', value: `${bestBurst.result.display} requests (${bestBurst.title}, ${bestBurst.limit.label})` });
  }
  const powered = cells.filter((c) => c.power !== null);
  const peakPower = maxBy(powered, (c) => c.power?.peakWatts ?? null);
  if (peakPower?.power) key.push({ label: 'Peak Power Draw', value: `${Math.round(peakPower.power.peakWatts)}W (${fmtTokens(peakPower.contextTokens)} context, ${plural(peakPower.concurrency, 'concurrent request')})` });
  if (totals.requests > 0) {
    const failures = Object.entries(totals.errorsByKind).filter(([, n]) => n > 0).map(([k, n]) => `${n} ${k}`);
    key.push({ label: 'Success Rate', value: `${fmtPct(totals.successRate)} across ${fmtCount(totals.requests)} requests${failures.length > 0 ? ` (errors: ${failures.join(', ')})` : ''}` });
  }
  return { highlights, keyFindings: key };
}

/** Builds the report object from the loaded run and each part's samples (same order as run.parts). */
export function buildReport(input: RunInput, samples: readonly SamplesData[], options: ReportOptions = DEFAULT_REPORT_OPTIONS, now = new Date()): Report {
  const cells: CellStats[] = [];
  const warnings: string[] = [];
  const parts: PartSummary[] = [];
  const missingCells: string[] = [];
  let incomplete = input.run?.interrupted === true;
  input.parts.forEach((part: PartInput, i) => {
    const data = samples[i]!;
    const planIds = new Set(part.plan.cells.map((c) => c.id));
    let withData = 0;
    for (const cell of part.plan.cells) {
      const acc = data.cells.get(cell.id);
      if (acc) withData++;
      cells.push(buildCellStats(cell, acc, data.monitor, options, part.plan.monitor.intervalSeconds * 1000));
    }
    const strays = [...data.cells.keys()].filter((id) => !planIds.has(id));
    if (strays.length > 0) warnings.push(`${part.name}/samples.csv has samples for ${plural(strays.length, 'cell')} not in its plan.json (${strays.slice(0, 3).join(', ')}${strays.length > 3 ? ', …' : ''}); they are left out.`);
    const lacking = part.plan.cells.filter((c) => !data.cells.has(c.id)).map((c) => c.id);
    missingCells.push(...lacking);
    if (part.summaryProblem !== null || data.partialTailBytes > 0) {
      incomplete = true;
      const why = [part.summaryProblem, data.partialTailBytes > 0 ? `a samples.csv cut mid-line (the partial last line, ${data.partialTailBytes} bytes, was dropped)` : null].filter((x) => x !== null).join(' and ');
      warnings.push(`${part.name}: the run did not finish (killed?): ${why}. This part is reported from plan.json and samples.csv alone${part.summaryProblem !== null ? '; k6 threshold results are not available' : ''}.`);
    }
    if (data.malformedRows > 0) warnings.push(`${part.name}/samples.csv: ${plural(data.malformedRows, 'damaged row')} (wrong column count) dropped.`);
    if (lacking.length > 0) {
      incomplete = true;
      warnings.push(`${part.name}: ${lacking.length} of ${part.plan.cells.length} planned cells have no samples (the run stopped early or those cells failed to start): ${lacking.slice(0, 12).join(', ')}${lacking.length > 12 ? `, … (${lacking.length - 12} more)` : ''}.`);
    }
    parts.push({
      name: part.name,
      script: part.plan.script,
      planName: part.plan.name,
      cells: part.plan.cells.length,
      cellsWithData: withData,
      limitStat: part.plan.limitStat,
      promptMode: part.plan.prompts.mode,
      target: part.plan.target,
      monitorEnabled: part.plan.monitor.enabled,
      monitorIntervalSeconds: part.plan.monitor.intervalSeconds,
      plannedSeconds: part.plan.totalSeconds,
      testRunDurationMs: part.summary?.testRunDurationMs ?? null,
      thresholds: part.summary?.thresholds ?? [],
      hasSummary: part.summary !== null,
      csvRows: data.rows,
      search: part.plan.cells.some((c) => c.driven?.search) ? (part.plan.search ?? null) : null,
      driven: part.plan.cells.some((c) => c.driven !== undefined),
    });
  });
  applyScalingEfficiency(cells);
  for (const c of cells) if (c.clientBound) warnings.push(`Cell ${c.id} was client-bound (${c.clientBound.reason}): its figures understate the server.`);

  const firstPlan = input.parts[0]!.plan;
  const limitStat = firstPlan.limitStat;
  const limitStats = new Set(input.parts.map((p) => p.plan.limitStat));
  if (limitStats.size > 1) warnings.push(`Parts use different limit statistics (${[...limitStats].join(', ')}); capacity uses "${limitStat}" from ${input.parts[0]!.name}.`);
  const useCaseList: UseCase[] = [];
  for (const p of input.parts) for (const uc of p.plan.useCases) if (!useCaseList.some((u) => u.id === uc.id)) useCaseList.push(uc);
  const useCases = useCaseList.map((uc) => useCaseCapacity(uc, cells, limitStat, options.minSuccessRate)).filter((u) => u.source !== null);

  const burstPart = input.parts.find((p) => p.plan.script === 'burst');
  const burstTtftLimitMs = burstPart?.plan.burstTtftLimitMs ?? firstPlan.burstTtftLimitMs;
  const burstProfiles = [...new Set(cells.filter((c) => c.script === 'burst' && c.profile).map((c) => c.profile as string))];
  const titleOf = (id: string): string => MIX_PROFILES.find((p) => p.id === id)?.title ?? id;
  const bursts = burstProfiles.map((p) => burstCapacity(p, titleOf(p), cells, limitStat, burstTtftLimitMs));
  const mixProfiles = [...new Set(cells.filter((c) => c.script === 'mix' && c.profile).map((c) => c.profile as string))].map((p) => {
    const mine = cells.filter((c) => c.script === 'mix' && c.profile === p);
    return { profile: p, title: titleOf(p), contextTokens: mine[0]!.contextTokens, outputTokens: mine[0]!.outputTokens, cellIds: mine.map((c) => c.id) };
  });

  const gates: GateResult[] = [];
  for (const part of input.parts) {
    const g = part.plan.gate;
    if (part.plan.script !== 'gate' || !g) continue;
    const uc = part.plan.useCases.find((u) => u.id === g.useCase);
    if (!uc) continue;
    for (const c of cells.filter((x) => x.script === 'gate' && x.useCase === uc.id)) {
      const checks = c.requests > 0 ? ladderLimits(uc.limits, part.plan.limitStat, g.minSuccessRate).map((l) => checkLimit(c, l)) : [];
      gates.push({ useCaseId: uc.id, title: uc.title, cellId: c.id, concurrency: c.concurrency, measured: c.requests > 0, checks, ok: c.requests > 0 && checks.every((k) => k.ok) });
    }
  }

  const errorsByKind: Record<string, number> = {};
  let requests = 0, succeeded = 0, cut = 0, outputTokens = 0;
  for (const c of cells) {
    requests += c.requests;
    succeeded += c.succeeded;
    cut += c.cut;
    outputTokens += c.outputTokensTotal;
    addCounts(errorsByKind, c.errorsByKind);
  }
  const totals: Totals = { requests, succeeded, failed: requests - succeeded, cut, successRate: requests > 0 ? succeeded / requests : null, errorsByKind, outputTokens };
  if (requests === 0) warnings.push('No request samples were found: every figure below is absent. Check that the run reached its first cell.');
  if (input.run?.interrupted) warnings.push('The run was interrupted: cells after the interruption are missing or partial.');
  const missingParts = input.run ? input.run.parts.filter((p) => !input.parts.some((x) => x.name === p)) : [];
  if (missingParts.length > 0) warnings.push(`run.json lists ${plural(missingParts.length, 'part')} with no folder: ${missingParts.join(', ')}.`);
  if (missingParts.length > 0) incomplete = true;
  // First, so it leads the report's warnings.
  if (incomplete) warnings.unshift(`The run is incomplete: ${missingCells.length > 0 ? `${plural(missingCells.length, 'planned cell')} ${missingCells.length === 1 ? 'has' : 'have'} no samples` : 'every planned cell has samples, but the last may be partial'}${missingParts.length > 0 ? `, and ${plural(missingParts.length, 'part')} never started` : ''}; see the notes below.`);

  const model = input.run?.target.model || firstPlan.target.model;
  const grid = gridCells({ cells });
  const { highlights, keyFindings } = buildFindings(cells, grid, useCases, bursts, totals);
  return {
    schemaVersion: REPORT_SCHEMA_VERSION,
    generatedAt: now.toISOString(),
    title: `Benchmark Report: ${model}`,
    model,
    runDir: input.dir,
    run: input.run,
    parts,
    missingParts,
    limitStat,
    burstTtftLimitMs,
    options,
    cells,
    useCases,
    bursts,
    mixProfiles,
    gates,
    totals,
    highlights,
    keyFindings,
    warnings,
    incomplete,
    missingCells,
    comparison: null,
  };
}

/** Value of a metric on a use case's ladder at its capacity estimate (interpolated between steps). */
export function valueAtCapacity(report: Pick<Report, 'cells'>, u: UseCaseCapacity, get: (c: CellStats) => number | null): number | null {
  if (u.result.estimate === null) return null;
  const ladder = report.cells.filter((c) => u.cellIds.includes(c.id) && c.requests > 0);
  return interpolateMetric(ladder, u.result.estimate, get);
}
