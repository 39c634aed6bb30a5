// The union of time spans, as its runs or its length: the time at least one span covers. Runs in k6 and Node (pure).
//
// One algorithm for the bench's "time with requests running" (orchestrator/progress.ts) and the report's busy
// time of a pooled cell (analysis/cells.ts): sort by start, merge each span into the run it overlaps or touches,
// and add up the runs, so overlaps count once and gaps not at all.

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
