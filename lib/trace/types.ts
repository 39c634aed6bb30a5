// The trace loader's shared vocabulary: formats, the one row type, the load result and its error. Runs in k6 and Node
// (pure, types and constants only).

/** The production trace formats the loader reads (docs/design/traces.md). */
export const TRACE_FORMATS = ['mooncake', 'azure', 'burstgpt', 'bailian', 'otel'] as const;
export type TraceFormat = (typeof TRACE_FORMATS)[number];

/** Tokens per hash id where a format's rows carry hash_ids: Mooncake hashes 512-token blocks, Bailian 16-token ones. */
export const BLOCK_TOKENS: Readonly<Record<TraceFormat, number | null>> = {
  mooncake: 512, azure: null, burstgpt: null, bailian: 16, otel: null,
};

/**
 * One request of a trace, the same shape for every format. Fields a format does not have are null.
 * `index` is the row's 0-based position in the loaded trace (time order); a selection keeps it, so a selected row
 * still says which loaded row it was.
 */
export interface TraceRow {
  readonly index: number;
  /** ms from the earliest row of the trace (or, after selectRows, from the window start, divided by the speed). */
  readonly timestampMs: number;
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** One id per prompt block of blockTokens tokens; equal ids mean equal blocks (prefix reuse). */
  readonly hashIds: readonly number[] | null;
  readonly blockTokens: number | null;
  /** Bailian only: this request's id, the request it follows in its conversation (null for a first turn), its turn. */
  readonly chatId: string | null;
  readonly parentChatId: string | null;
  readonly turn: number | null;
  /**
   * Agent traces: the session (agent run) the call belongs to (Mooncake's session_id as AIPerf writes it, an
   * OpenTelemetry trace's gen_ai.conversation.id or trace id); null where the format has none.
   */
  readonly sessionId: string | null;
  /** Mooncake's `delay`: ms the session waited after its previous call's answer before this call; null if absent. */
  readonly delayMs: number | null;
  /** A span's recorded duration (end - start), ms: where the previous call ended, for the gap after it. */
  readonly durationMs: number | null;
}

/** Rows skipped for one reason: how many, and the first file line (1-based) that had it. */
export interface RowIssue {
  readonly message: string;
  readonly count: number;
  readonly firstLine: number;
}

/** Row counts per value of one column. */
export interface RowsBy {
  readonly field: string;
  readonly counts: readonly { readonly value: string; readonly rows: number }[];
}

/** What loading a trace gives. */
export interface TraceLoad {
  readonly format: TraceFormat;
  /** The valid rows, sorted by time, re-based to the earliest. */
  readonly rows: readonly TraceRow[];
  /** Rows that broke the format, one entry per kind, in order of first appearance. The caller decides if fatal. */
  readonly badRows: readonly RowIssue[];
  /** Rows the format says to leave out (BurstGPT's failed requests, 0 response tokens): skipped, not bad. */
  readonly skippedRows: readonly RowIssue[];
  /** Valid rows whose time was earlier than the valid row before them in the file; 0 when the file was sorted. */
  readonly outOfOrderRows: number;
  /** Rows per value of the format's category column (BurstGPT "Model", Bailian "type"), most rows first. */
  readonly rowsBy: RowsBy | null;
}

/** A trace that cannot be used at all (empty, unknown format, no valid row, a bad header); the message is one line. */
export class TraceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TraceError';
  }
}

/** The one line that reports a row issue: `12 rows (first: line 40): input_length is not a whole number >= 1`. */
export function describeRowIssue(issue: RowIssue): string {
  const where = issue.count === 1
    ? `1 row (line ${issue.firstLine})`
    : `${issue.count} rows (first: line ${issue.firstLine})`;
  return `${where}: ${issue.message}`;
}
