// Parses Go/k6 duration strings ("1m30s", "500ms", "2h"). Runs in Node.

const UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** A k6 duration in milliseconds, or why `value` is none: a Go duration string or a bare number of milliseconds (k6 accepts numbers as ms in options). */
export function toDurationMs(value: unknown): number | { readonly problem: string } {
  if (typeof value === 'number' && Number.isFinite(value) && value >= 0) return value;
  if (typeof value !== 'string') return { problem: `expected a duration string like "30s", got ${JSON.stringify(value)}` };
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h|d)/y;
  let total = 0;
  let pos = 0;
  while (pos < text.length) {
    re.lastIndex = pos;
    const m = re.exec(text);
    if (!m) return { problem: `"${value}" is not a duration (use e.g. "30s", "1m30s", "500ms")` };
    total += Number(m[1]) * UNIT_MS[m[2]!]!;
    pos = re.lastIndex;
  }
  if (text.length === 0) return { problem: 'empty duration' };
  return total;
}

/** toDurationMs, throwing `<what>: <problem>` for a value that is no duration. */
export function parseDurationMs(value: unknown, what: string): number {
  const ms = toDurationMs(value);
  if (typeof ms !== 'number') throw new Error(`${what}: ${ms.problem}`);
  return ms;
}
