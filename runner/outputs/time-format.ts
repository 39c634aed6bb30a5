// Sample timestamp formats of k6's outputs (unix seconds, milli, micro, nano; RFC3339 and RFC3339Nano). Runs in Node.

export type TimeFormat = 'unix' | 'unix_milli' | 'unix_micro' | 'unix_nano' | 'rfc3339' | 'rfc3339_nano';
export const TIME_FORMATS: readonly TimeFormat[] = ['unix', 'unix_milli', 'unix_micro', 'unix_nano', 'rfc3339', 'rfc3339_nano'];

/** Go's RFC3339Nano: fraction of up to 9 digits with trailing zeros removed (none when whole), in UTC. */
export function rfc3339Nano(epochMs: number): string {
  const whole = Math.floor(epochMs);
  const ns = Math.round((epochMs - whole) * 1e6);
  const iso = new Date(whole).toISOString(); // 2026-11-22T05:17:42.586Z
  const frac = `${iso.slice(20, 23)}${String(ns).padStart(6, '0')}`.replace(/0+$/, '');
  return `${iso.slice(0, 19)}${frac ? `.${frac}` : ''}Z`;
}

export function formatTime(epochMs: number, format: TimeFormat): string {
  switch (format) {
    case 'unix':
      return String(Math.floor(epochMs / 1000));
    case 'unix_milli':
      return String(Math.floor(epochMs));
    case 'unix_micro':
      return String(Math.floor(epochMs * 1000));
    case 'unix_nano': {
      // Past 2^53: build the digits from whole ms and the sub-ms nanoseconds.
      const whole = Math.floor(epochMs);
      const ns = Math.min(999_999, Math.round((epochMs - whole) * 1e6));
      return `${whole}${String(ns).padStart(6, '0')}`;
    }
    case 'rfc3339':
      return new Date(Math.floor(epochMs)).toISOString().replace(/\.\d+Z$/, 'Z');
    case 'rfc3339_nano':
      return rfc3339Nano(epochMs);
  }
}
