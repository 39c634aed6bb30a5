// The length of a union of time spans: the time at least one span covers. Runs in k6 and Node (pure).
//
// One algorithm for the bench's "time with requests running" (orchestrator/progress.ts) and the report's busy
// time of a pooled cell (analysis/cells.ts): sort by start, merge each span into the run it overlaps or touches,
// and add up the runs, so overlaps count once and gaps not at all.

/** A span of time, [start, end], in ms; a span whose end is not after its start covers nothing. */
export type Span = readonly [startMs: number, endMs: number];

/** Time covered by at least one of the spans (the length of their union), ms. */
export function spanUnionMs(spans: readonly Span[]): number {
  const sorted = [...spans].sort((a, b) => a[0] - b[0]);
  let total = 0;
  let runStart = -Infinity;
  let runEnd = -Infinity;
  for (const [start, end] of sorted) {
    if (start > runEnd) {
      if (runEnd > runStart) total += runEnd - runStart;
      runStart = start;
      runEnd = end;
    } else if (end > runEnd) runEnd = end;
  }
  return runEnd > runStart ? total + (runEnd - runStart) : total;
}
