// What a format parser makes of one line, and the field checks the parsers share. Runs in k6 and Node (pure).

import type { TraceRow } from './types';

/**
 * A valid line as a TraceRow still being built: index -1 and timestampMs on the file's own clock until the loader
 * sorts the rows and sets both. The loader fills these objects in place rather than copying them, so a trace of
 * millions of rows holds one object per row.
 */
export type ParsedRow = { -readonly [K in keyof TraceRow]: TraceRow[K] };

/** A new row (every row is made here, so all rows share one object shape). blockTokens is null without hash ids. */
export function newRow(
  timeMs: number, inputTokens: number, outputTokens: number, hashIds: readonly number[] | null,
  blockTokens: number | null, chatId: string | null = null, parentChatId: string | null = null,
  turn: number | null = null, agent: AgentFields = NO_AGENT,
): ParsedRow {
  return {
    index: -1, timestampMs: timeMs, inputTokens, outputTokens, hashIds,
    blockTokens: hashIds === null ? null : blockTokens, chatId, parentChatId, turn, ...agent,
  };
}

/** The fields of an agent trace's row (lib/trace/types.ts TraceRow). */
export type AgentFields = Pick<TraceRow, 'sessionId' | 'delayMs' | 'durationMs'>;
const NO_AGENT: AgentFields = { sessionId: null, delayMs: null, durationMs: null };

/**
 * One line's outcome: a row, a bad row (the message names the field and says what is wrong, the same words for every
 * line with that fault, so rows group by it), or a row the format says to skip.
 */
export type LineOutcome =
  /** category: the value of the format's category column (BurstGPT's Model, Bailian's type), null where none. */
  | { readonly kind: 'row'; readonly row: ParsedRow; readonly category: string | null }
  | { readonly kind: 'bad'; readonly message: string }
  | { readonly kind: 'skipped'; readonly message: string };

/** Parses the lines of one format. CSV formats read their header first (it throws TraceError on a missing column). */
export interface FormatParser {
  /** The category column, for TraceLoad.rowsBy. */
  readonly categoryField: string | null;
  readonly hasHeader: boolean;
  header(line: string): void;
  /** One outcome per row; a line of a format that batches rows (an OpenTelemetry export) gives a list. */
  line(line: string): LineOutcome | readonly LineOutcome[];
}

export function bad(message: string): LineOutcome {
  return { kind: 'bad', message };
}

/** A JSON value that is a whole number >= min. */
export function isWholeAtLeast(value: unknown, min: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min;
}

/** A JSON value that is a finite number. */
export function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && isFinite(value);
}

// Decimal text only: Number() alone also takes "" and "  " (as 0), "0x1f" and "Infinity".
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
// Whole numbers in CSV, also as pandas writes them when a column held a NaN ("472.0").
const WHOLE = /^\d+(?:\.0*)?$/;

/** A CSV field as a finite decimal number, or null. */
export function csvNumber(text: string): number | null {
  const t = text.trim();
  return DECIMAL.test(t) ? Number(t) : null;
}

/** A CSV field as a whole number >= 0, or null. */
export function csvWhole(text: string): number | null {
  const t = text.trim();
  return WHOLE.test(t) ? Number(t) : null;
}

/** hash_ids as a list of whole numbers >= 0, or null when it is anything else. */
export function hashIdsOf(value: unknown): number[] | null {
  if (!Array.isArray(value)) return null;
  for (const id of value) if (!isWholeAtLeast(id, 0)) return null;
  return value as number[];
}

/** A conversation id: a whole number or a non-empty string, as a string; null when it is neither. */
export function idOf(value: unknown): string | null {
  if (isWholeAtLeast(value, 0)) return String(value);
  if (typeof value === 'string' && value.trim() !== '') return value.trim();
  return null;
}
