// Number formats of the reports ("599.6 tok/s", "76ms", "47.6s", "2.2 million", "5.4K", "1K context"). Runs in Node.

/** Tokens per second with one decimal: "599.6 tok/s". */
export function fmtTokS(v: number | null | undefined, digits = 1): string {
  if (v === null || v === undefined || !isFinite(v)) return 'n/a';
  return `${v.toFixed(digits)} tok/s`;
}

/** Whole tokens per second: "165 tok/s" (tables of the capacity sections). */
export function fmtTokS0(v: number | null | undefined): string {
  return fmtTokS(v, 0);
}

/**
 * A duration in ms as the reports write it: under 1 s in whole ms ("76ms"), else seconds with one decimal ("47.6s").
 */
export function fmtMs(v: number | null | undefined): string {
  if (v === null || v === undefined || !isFinite(v)) return 'n/a';
  if (Math.abs(v) < 1000) return `${Math.round(v)}ms`;
  return `${(v / 1000).toFixed(1)}s`;
}

/** A duration in ms, always in seconds with one decimal ("0.2s", "8.1s"). */
export function fmtSec(v: number | null | undefined): string {
  if (v === null || v === undefined || !isFinite(v)) return 'n/a';
  return `${(v / 1000).toFixed(1)}s`;
}

/** Small durations with one decimal of ms ("5.8ms"), used for ITL/TPOT. */
export function fmtMsFine(v: number | null | undefined): string {
  if (v === null || v === undefined || !isFinite(v)) return 'n/a';
  if (Math.abs(v) >= 1000) return fmtMs(v);
  return `${v.toFixed(1)}ms`;
}

/** Percent with one decimal: "100.0%". */
export function fmtPct(ratio: number | null | undefined, digits = 1): string {
  if (ratio === null || ratio === undefined || !isFinite(ratio)) return 'n/a';
  return `${(ratio * 100).toFixed(digits)}%`;
}

/** Large counts: "2.2 million", "550,800" below a million. */
export function fmtMillions(v: number | null | undefined): string {
  if (v === null || v === undefined || !isFinite(v)) return 'n/a';
  if (v >= 1e9) return `${(v / 1e9).toFixed(1)} billion`;
  if (v >= 1e6) return `${(v / 1e6).toFixed(1)} million`;
  return fmtInt(v);
}

/** Compact request counts: "5.4K", "980". */
export function fmtCount(v: number): string {
  if (v >= 1e6) return `${(v / 1e6).toFixed(1)}M`;
  if (v >= 1e3) return `${(v / 1e3).toFixed(1)}K`;
  return String(Math.round(v));
}

/** Whole number with thousands separators: "45,004". */
export function fmtInt(v: number | null | undefined): string {
  if (v === null || v === undefined || !isFinite(v)) return 'n/a';
  return Math.round(v).toLocaleString('en-US');
}

/** Token counts as the reports name contexts: 1024 -> "1K", 98304 -> "96K", 1500 -> "1.5K". */
export function fmtTokens(tokens: number): string {
  if (tokens >= 1024 && tokens % 1024 === 0) return `${tokens / 1024}K`;
  if (tokens >= 1000) return `${(tokens / 1000).toFixed(1).replace(/\.0$/, '')}K`;
  return String(tokens);
}

export function fmtWatts(v: number | null | undefined): string {
  if (v === null || v === undefined || !isFinite(v)) return 'n/a';
  return `${Math.round(v)}W`;
}

export function fmtUsd(v: number | null | undefined): string {
  if (v === null || v === undefined || !isFinite(v)) return 'n/a';
  if (v !== 0 && Math.abs(v) < 0.01) return `$${v.toFixed(4)}`;
  return `$${v.toFixed(2)}`;
}

export function fmtJoules(v: number | null | undefined): string {
  if (v === null || v === undefined || !isFinite(v)) return 'n/a';
  return `${v.toFixed(v < 10 ? 2 : 1)} J`;
}

/** "1 request" / "4 requests". */
export function plural(n: number | string, one: string, many = `${one}s`): string {
  return `${n} ${Number(n) === 1 ? one : many}`;
}

/** Human label of a threshold value in the metric's unit: "8s", "2,000ms", "15 tok/s". */
export function fmtLimitValue(metric: string, value: number): string {
  if (metric === 'decodeSpeed') return `${value} tok/s`;
  if (metric === 'successRate') return fmtPct(value);
  if (metric === 'e2e') return `${fmtInt(value)}ms`;
  return value >= 1000 ? `${+(value / 1000).toFixed(2)}s` : `${value}ms`;
}

/** Escapes text for Markdown table cells. */
export function mdCell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\r\n|[\r\n]/g, ' ');
}

/**
 * Untrusted text as literal Markdown: HTML-significant characters as entities (no raw HTML reaches
 * a Markdown renderer), Markdown punctuation backslash-escaped, line breaks as spaces. "|" is left
 * to mdCell in tables.
 */
export function mdLiteral(s: string): string {
  return s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/[\\`*_[\]#!]/g, '\\$&')
    .replace(/\r\n|[\r\n]/g, ' ');
}

/** Escapes text for HTML. */
export function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** "2.00 req/s", "120 req/s". */
export function fmtRate(rate: number | null | undefined): string {
  if (rate === null || rate === undefined || !isFinite(rate)) return 'n/a';
  return `${rate >= 100 ? rate.toFixed(0) : rate.toFixed(2)} req/s`;
}
