// The trace a plan replays: its file loaded, the window selected, and each row as the sender needs it.
// Runs in k6 and Node (pure: it is given the file's text).
//
// The plan resolves it once to size its cells (rows, duration, longest request) and to record what the trace was;
// the trace script loads it again in k6 (once per process) for the rows it sends. Both go through this one function,
// so what the plan says and what is sent are the same rows.

import {
  describeRowIssue, loadTrace, selectRows, traceStats, TraceError, type TraceFormat, type TraceRow, type TraceStats,
} from './trace/index';

/** Block length for rows without hash ids: their blocks are all their own, so it only sets how text is drawn. */
const UNSHARED_BLOCK_TOKENS = 512;

/** What of a trace to replay (the plan's `trace` section, its file path made absolute by the caller). */
export interface ReplaySource {
  readonly file: string;
  readonly format: TraceFormat | null;
  readonly startSeconds: number;
  readonly durationSeconds: number | null;
  readonly maxRequests: number | null;
  /** Rows that break the format are skipped and counted when true; else the first bad row kind is an error. */
  readonly skipBadRows: boolean;
}

/** One request of the replay, at speed 1. */
export interface ReplayRow {
  /** Intended send time, ms from the replay's start, at speed 1. */
  readonly atMs: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** The row's hash ids (equal ids, equal prompt blocks), [] when the format has none. */
  readonly keys: readonly number[];
  readonly blockTokens: number;
  /** Position in the replay of the turn this one follows (Bailian conversations), -1 for none. */
  readonly parent: number;
  /** The row's index in the whole loaded trace (file order after sorting): its prompt's own blocks are keyed by it. */
  readonly traceIndex: number;
}

/** What a replay holds: the rows and what the plan records of them. */
export interface Replay {
  readonly format: TraceFormat;
  readonly rows: readonly ReplayRow[];
  readonly summary: ReplaySummary;
}

/** What plan.json records of the replayed trace, for the report: counts and the selection's own statistics. */
export interface ReplaySummary {
  readonly format: TraceFormat;
  /** Valid rows in the file, rows skipped as bad, rows the format leaves out. */
  readonly loadedRows: number;
  readonly badRows: number;
  readonly skippedRows: number;
  /** Rows in the window, conversation turns dropped with their parent, rows past maxRequests. */
  readonly inWindow: number;
  readonly droppedTurns: number;
  readonly cappedRows: number;
  /**
   * The replayed rows' statistics at speed 1 (lengths, pace, prefix reuse): its durationMs is the first row's to the
   * last's, its length maxima the longest prompt and output (never null: a replay has a row).
   */
  readonly stats: TraceStats;
  /** The replayed rows' prompt and output tokens, summed: what a replay that sent every row exactly sends. */
  readonly inputTokensTotal: number;
  readonly outputTokensTotal: number;
  /**
   * Rows per bin of prompt length, output length and time (ms at speed 1), for the report to set beside what was sent.
   */
  readonly histograms: {
    readonly inputTokens: Histogram;
    readonly outputTokens: Histogram;
    readonly arrivalsMs: Histogram;
  };
}

/** counts[i] values fell in [edges[i], edges[i + 1]); the last bin holds its upper edge too. */
export interface Histogram {
  readonly edges: readonly number[];
  readonly counts: readonly number[];
}

/** Bins a report draws: enough to show a shape, few enough to read. */
const HISTOGRAM_BINS = 24;

/** `bins` equal bins from 0 to max (at least 1 wide), as edges. */
export function evenEdges(max: number, bins = HISTOGRAM_BINS): number[] {
  const width = Math.max(max, 1) / bins;
  return Array.from({ length: bins + 1 }, (_, i) => Math.round(i * width * 1000) / 1000);
}

/** How many values fall in each bin of `edges`; values outside the edges are not counted. */
export function histogram(values: Iterable<number>, edges: readonly number[]): number[] {
  const counts = new Array<number>(Math.max(0, edges.length - 1)).fill(0);
  const last = edges.length - 1;
  for (const v of values) {
    if (last < 1 || v < edges[0]! || v > edges[last]!) continue;
    let lo = 0;
    let hi = last;
    // The last edge index whose edge is <= v, by bisection (edges ascend).
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (edges[mid]! <= v) lo = mid;
      else hi = mid;
    }
    counts[Math.min(lo, last - 1)]!++;
  }
  return counts;
}

/** What of a trace file to load: its path (for messages), its format (null: detected) and the bad-row policy. */
export type TraceFileSource = Pick<ReplaySource, 'file' | 'format' | 'skipBadRows'>;

/**
 * Loads a trace's text; throws TraceError with one line naming the file: the loader's own, or the first bad row kind
 * unless bad rows are skipped (then counted). The trace and the agentic replay load through this one function.
 */
export function loadTraceFile(text: string, source: TraceFileSource): ReturnType<typeof loadTrace> {
  let load: ReturnType<typeof loadTrace>;
  try {
    load = loadTrace(text, source.format ? { format: source.format } : {});
  } catch (e) {
    // The loader's messages say what is wrong with the text; the replay says which file.
    if (e instanceof TraceError) throw new TraceError(`${source.file}: ${e.message}`);
    throw e;
  }
  const badRows = load.badRows.reduce((n, i) => n + i.count, 0);
  if (badRows > 0 && !source.skipBadRows)
    throw new TraceError(
      `${source.file}: ${describeRowIssue(load.badRows[0]!)}` +
      `${load.badRows.length > 1 ? ` (and ${load.badRows.length - 1} more kinds)` : ''}; ` +
      'npm run trace:check lists them, skipBadRows replays without them',
    );
  return load;
}

/** Loads and selects a trace's text; throws TraceError with one line (the first bad row kind, unless skipped). */
export function loadReplay(text: string, source: ReplaySource): Replay {
  const load = loadTraceFile(text, source);
  const badRows = load.badRows.reduce((n, i) => n + i.count, 0);
  const selection = selectRows(load.rows, {
    startSeconds: source.startSeconds,
    ...(source.durationSeconds !== null ? { durationSeconds: source.durationSeconds } : {}),
    ...(source.maxRequests !== null ? { maxRequests: source.maxRequests } : {}),
  });
  if (selection.rows.length === 0) throw new TraceError(`${source.file}: no row falls in the replay window`);
  const rows = replayRows(selection.rows);
  const stats = traceStats(selection.rows);
  return {
    format: load.format,
    rows,
    summary: {
      format: load.format,
      loadedRows: load.rows.length,
      badRows,
      skippedRows: load.skippedRows.reduce((n, i) => n + i.count, 0),
      inWindow: selection.inWindow,
      droppedTurns: selection.droppedTurns,
      cappedRows: selection.cappedRows,
      stats,
      inputTokensTotal: rows.reduce((n, r) => n + r.inputTokens, 0),
      outputTokensTotal: rows.reduce((n, r) => n + r.outputTokens, 0),
      histograms: replayHistograms(rows),
    },
  };
}

function replayHistograms(rows: readonly ReplayRow[]): ReplaySummary['histograms'] {
  const of = (values: number[]): Histogram => {
    const edges = evenEdges(values.reduce((m, v) => Math.max(m, v), 0));
    return { edges, counts: histogram(values, edges) };
  };
  return {
    inputTokens: of(rows.map((r) => r.inputTokens)),
    outputTokens: of(rows.map((r) => r.outputTokens)),
    arrivalsMs: of(rows.map((r) => r.atMs)),
  };
}

/** The selected rows, re-based to the first (a window need not start on a row), parents as positions. */
function replayRows(selected: readonly TraceRow[]): ReplayRow[] {
  const t0 = selected[0]!.timestampMs;
  const positionOf = new Map<string, number>();
  return selected.map((r, i) => {
    if (r.chatId !== null) positionOf.set(r.chatId, i);
    return {
      atMs: Math.round((r.timestampMs - t0) * 1000) / 1000,
      inputTokens: r.inputTokens,
      outputTokens: r.outputTokens,
      keys: r.hashIds ?? [],
      blockTokens: r.blockTokens ?? UNSHARED_BLOCK_TOKENS,
      parent: r.parentChatId !== null ? (positionOf.get(r.parentChatId) ?? -1) : -1,
      traceIndex: r.index,
    };
  });
}

/** The replay's send times at a speed: 2 sends every row at half its time. */
export function replayScheduleMs(rows: readonly Pick<ReplayRow, 'atMs'>[], speed: number): number[] {
  return rows.map((r) => r.atMs / speed);
}
