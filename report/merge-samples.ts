// Merges the samples of a split run's runners into one part's samples, cell by cell. Runs in Node (pure).
//
// Every figure of the report is a function of a cell's raw samples, so merging is concatenating:
// the union of the runners' values per Trend (percentiles are then taken over the union, never
// averaged), sums of counts, the widest window. Two figures are per process and are not summed:
// the CPU share (each runner's agent on its own cores: the busiest runner's share is kept, since one
// saturated runner is enough to distort a cell) and the monitor series (one runner scrapes).

import type { SamplesData, Series } from './read-samples';
import type { CellAccumulator } from '../analysis/cell-accumulator';
import { MAX_MESSAGES_PER_KIND } from '../analysis/cell-accumulator';
import { cpuShareBetween } from '../analysis/client-bound';
import type { ServerMetricKey } from '../lib/metrics';
import { newSessionAccumulator, type SessionAccumulator } from '../analysis/session-samples';
import type { RequestSpans } from '../analysis/request-spans';
import { FloatList } from '../analysis/stats';

function addCounts(into: Record<string, number>, from: Readonly<Record<string, number>>): void {
  for (const [key, n] of Object.entries(from)) into[key] = (into[key] ?? 0) + n;
}

function appendAll(into: FloatList, from: FloatList): void {
  into.pushAll(from.values());
}

/** The CPU samples of the runner that used the larger share of its cores over the cell. */
function busierCpu(a: CellAccumulator, b: CellAccumulator): Pick<CellAccumulator, 'cpuFirst' | 'cpuLast'> {
  const share = (c: CellAccumulator): number =>
    (c.cpuFirst && c.cpuLast ? (cpuShareBetween(c.cpuFirst, c.cpuLast) ?? -1) : -1);
  return share(b) > share(a) ? b : a;
}

/** Every runner's requests: what was in flight during a step is the union of theirs. */
function mergeSpans(a: RequestSpans, b: RequestSpans): RequestSpans {
  appendAll(a.starts, b.starts);
  appendAll(a.ends, b.ends);
  return a;
}

/** A sessions cell's turns over the runners: each turn's TTFTs and token counts added up. */
function mergeSessions(into: SessionAccumulator, from: SessionAccumulator): void {
  for (const [turn, t] of from.turns) {
    const mine = into.turns.get(turn);
    if (!mine) {
      into.turns.set(turn, t);
      continue;
    }
    appendAll(mine.ttft, t.ttft);
    mine.inputTokens += t.inputTokens;
    mine.cachedTokens += t.cachedTokens;
    mine.cachedReported += t.cachedReported;
  }
}

/** Folds cell `from` (another runner's samples of the same cell) into `into`. */
export function mergeCell(into: CellAccumulator, from: CellAccumulator): void {
  for (const [key, values] of Object.entries(from.trends)) {
    appendAll(into.trends[key as keyof typeof from.trends], values);
  }
  appendAll(into.readLag, from.readLag);
  appendAll(into.stall, from.stall);
  into.reading.readTogether += from.reading.readTogether;
  into.reading.chunked += from.reading.chunked;
  into.reading.requests += from.reading.requests;
  // In the order of trends.e2e, appended just above: each request's end stays beside its e2e.
  appendAll(into.requestEnds, from.requestEnds);
  into.inputTokens += from.inputTokens;
  into.outputTokens += from.outputTokens;
  appendAll(into.inputLengths, from.inputLengths);
  appendAll(into.outputLengths, from.outputLengths);
  into.cachedTokens += from.cachedTokens;
  into.cachedReported += from.cachedReported;
  into.reasoningTokens += from.reasoningTokens;
  into.reasoningReported += from.reasoningReported;
  addCounts(into.tokenSources, from.tokenSources);
  into.okCount += from.okCount;
  into.failCount += from.failCount;
  into.goodput.judged += from.goodput.judged;
  into.goodput.good += from.goodput.good;
  addCounts(into.errorsByKind, from.errorsByKind);
  addCounts(into.failedByKind, from.failedByKind);
  for (const [kind, messages] of Object.entries(from.errorMessages)) {
    const mine = (into.errorMessages[kind] ??= new Map());
    for (const [message, n] of messages) {
      const seen = mine.get(message);
      if (seen !== undefined) mine.set(message, seen + n);
      else if (mine.size < MAX_MESSAGES_PER_KIND) mine.set(message, n);
    }
  }
  into.windowStartMs = Math.min(into.windowStartMs, from.windowStartMs);
  into.windowEndMs = Math.max(into.windowEndMs, from.windowEndMs);
  // Each runner's senders pushed their shares' achieved rates: the cell's is their sum.
  if (from.achievedRate !== null) into.achievedRate = (into.achievedRate ?? 0) + from.achievedRate;
  into.achievedSenders += from.achievedSenders;
  into.excluded.warmup += from.excluded.warmup;
  into.excluded.transition += from.excluded.transition;
  const cpu = busierCpu(into, from);
  into.cpuFirst = cpu.cpuFirst;
  into.cpuLast = cpu.cpuLast;
  if (from.sessions) mergeSessions((into.sessions ??= newSessionAccumulator()), from.sessions);
  // A cell's tags are the same on every runner (the plan's); a runner that saw the cell first sets them.
  if (Object.keys(into.tags).length === 0) Object.assign(into.tags, from.tags);
}

/** Two monitor series as one, in time order (normally only one runner has any). */
function mergeSeries(a: Series, b: Series): Series {
  const times = [...a.times.values(), ...b.times.values()];
  const values = [...a.values.values(), ...b.values.values()];
  const order = times.map((_, i) => i).sort((i, j) => times[i]! - times[j]!);
  const capacity = Math.max(1, order.length);
  const merged: Series = { times: new FloatList(capacity), values: new FloatList(capacity) };
  for (const i of order) {
    merged.times.push(times[i]!);
    merged.values.push(values[i]!);
  }
  return merged;
}

/**
 * One part's samples from its runners' samples: `into` (the first runner's, changed in place and
 * returned) with `from` folded in. Rows and damaged rows add up; a cut last line is a runner's own
 * problem, named by the caller, so the merged data keeps none.
 */
export function mergeSamples(into: SamplesData, from: SamplesData): SamplesData {
  const cells = into.cells as Map<string, CellAccumulator>;
  for (const [id, cell] of from.cells) {
    const mine = cells.get(id);
    if (mine) mergeCell(mine, cell);
    else cells.set(id, cell);
  }
  const monitor: Partial<Record<ServerMetricKey, Series>> = { ...into.monitor };
  for (const [key, series] of Object.entries(from.monitor) as [ServerMetricKey, Series][]) {
    const mine = monitor[key];
    monitor[key] = mine ? mergeSeries(mine, series) : series;
  }
  return {
    cells,
    monitor,
    rows: into.rows + from.rows,
    skippedRows: into.skippedRows + from.skippedRows,
    partialTailBytes: 0,
    malformedRows: into.malformedRows + from.malformedRows,
    requestSpans: mergeSpans(into.requestSpans, from.requestSpans),
  };
}
