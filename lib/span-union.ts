// The union of time spans, as its runs or its length: the time at least one span covers. Runs in k6 and Node (pure).
//
// One algorithm for the bench's "time with requests running" (orchestrator/progress.ts) and the report's busy
// time of a pooled cell (analysis/cells.ts): sort by start, merge each span into the run it overlaps or touches,
// and add up the runs, so overlaps count once and gaps not at all. And how much of a span lies inside the runs: a
// step's requests in flight over its measured time (orchestrator/step-in-flight.ts).

/** A span of time, [start, end], in ms; a span whose end is not after its start covers nothing. */
export type Span = readonly [startMs: number, endMs: number];

/** The union of the spans as its runs, in time order: spans that overlap or touch merged into one. */
export function spanUnion(spans: readonly Span[]): Span[] {
  const runs: [number, number][] = [];
  for (const [start, end] of [...spans].sort((a, b) => a[0] - b[0])) {
    if (end <= start) continue;
    const last = runs[runs.length - 1];
    if (last !== undefined && start <= last[1]) last[1] = Math.max(last[1], end);
    else runs.push([start, end]);
  }
  return runs;
}

/** Time covered by at least one of the spans (the length of their union), ms. */
export function spanUnionMs(spans: readonly Span[]): number {
  return spanUnion(spans).reduce((total, [start, end]) => total + end - start, 0);
}

/** The time of `span` inside `runs` (disjoint and in time order, as spanUnion gives them), ms. */
export function timeInside([start, end]: Span, runs: readonly Span[]): number {
  let inside = 0;
  for (const [from, to] of runs) {
    if (from >= end) break;
    inside += Math.max(0, Math.min(end, to) - Math.max(start, from));
  }
  return inside;
}
