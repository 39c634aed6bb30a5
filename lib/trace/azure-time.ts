// Reads the Azure LLM inference traces' TIMESTAMP ("2023-11-16 18:15:46.6805900") as ms. Runs in k6 and Node (pure).
//
// Written out by hand rather than with Date.parse: engines disagree on a space before the time and on more than
// three fractional digits, and Azure writes seven (100 ns ticks). A time without an offset is read as UTC; only the
// differences between rows matter, and a fixed zone keeps them free of daylight-saving jumps.

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?\s*(Z|[+-]\d{2}:?\d{2})?$/;

/** A date-time split into its whole second and the part after it, both in ms. */
export interface AzureTime {
  /** The whole second, as ms since 1970-01-01 UTC (offset applied). */
  readonly secondMs: number;
  /** The fractional digits as ms, 0 <= fractionMs < 1000 (Azure's 100 ns ticks give 4 decimals). */
  readonly fractionMs: number;
}

/**
 * The date-time, or null when the text is not one. Kept in two parts because ms since 1970 (about 1.7e12) leave a
 * double only about 0.2 µs of precision: the loader subtracts the seconds first, then adds the fractions.
 */
export function parseAzureTimestamp(text: string): AzureTime | null {
  const m = DATE_TIME.exec(text.trim());
  if (m === null) return null;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as
    [number, number, number, number, number, number];
  if (hour > 23 || minute > 59 || second > 59) return null;
  const dayMs = dayStartMs(year, month, day);
  if (dayMs === null) return null;
  const secondMs = dayMs + ((hour * 60 + minute) * 60 + second) * 1000 - offsetMs(m[8]);
  return { secondMs, fractionMs: m[7] === undefined ? 0 : Number(`0.${m[7]}`) * 1000 };
}

// A trace has millions of rows and few days: remember the last day rather than build two Dates a row.
let lastDay = '';
let lastDayMs: number | null = null;

/** Midnight UTC of the date as ms since 1970, or null when the date does not exist. */
function dayStartMs(year: number, month: number, day: number): number | null {
  const key = `${year}-${month}-${day}`;
  if (key === lastDay) return lastDayMs;
  const ms = Date.UTC(year, month - 1, day);
  // Date.UTC rolls 2023-02-30 over to March; a date that does not survive the round trip does not exist.
  const back = new Date(ms);
  const exists = back.getUTCFullYear() === year && back.getUTCMonth() === month - 1 && back.getUTCDate() === day;
  lastDay = key;
  lastDayMs = exists ? ms : null;
  return lastDayMs;
}

/** "+02:00" -> 2 h in ms; "Z" or none -> 0. */
function offsetMs(zone: string | undefined): number {
  if (zone === undefined || zone === 'Z') return 0;
  const digits = zone.slice(1).replace(':', '');
  const minutes = Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2));
  return (zone[0] === '-' ? -1 : 1) * minutes * 60_000;
}
