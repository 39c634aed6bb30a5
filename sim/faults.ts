// Fault injection for reliability tests: parses fault specs and picks the faults of a request. Runs in Node, pure.
// Specs come from the header x-sim-fault and from CLI flags.
//
// Spec grammar: faults separated by commas, each `kind[;key=value]...`, e.g.
//   "reset-mid-stream;after=5", "stall;ms=2000;after=3", "error-status;status=503", "no-done,no-usage",
//   "error-status;status=500;p=0.1" (p = probability per request, server-wide faults only; default 1).
// json-error answers 200 with a JSON error object instead of a stream (some gateways do); error-event
// ends the stream with an SSE `event: error` carrying the message (TGI and some proxies do).

export const FAULT_KINDS = [
  'error-status', 'json-error', 'reset-mid-stream', 'stall', 'malformed-chunk', 'no-done', 'no-usage',
  'error-in-stream', 'error-event',
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export interface Fault {
  readonly kind: FaultKind;
  /** error-status: the HTTP status to answer with (default 500). */
  readonly status: number;
  /** Stream faults: after how many content tokens the fault happens (default: reset half-way, others after 1). */
  readonly afterTokens: number | null;
  /** stall: how long the stream goes silent, ms (default 2000). */
  readonly stallMs: number;
  /** Probability per request, 0..1 (default 1). */
  readonly probability: number;
}

export const FAULT_HEADER = 'x-sim-fault';

/** Parses a fault spec; throws an error naming what is wrong. */
export function parseFaultSpec(spec: string): Fault[] {
  const out: Fault[] = [];
  for (const part of spec.split(',')) {
    const trimmed = part.trim();
    if (trimmed === '') continue;
    const [kindRaw, ...params] = trimmed.split(';').map((s) => s.trim());
    const kind = kindRaw as FaultKind;
    if (!FAULT_KINDS.includes(kind)) throw new Error(`fault "${kindRaw}" is not one of: ${FAULT_KINDS.join(', ')}`);
    let status = 500;
    let afterTokens: number | null = null;
    let stallMs = 2000;
    let probability = 1;
    for (const p of params) {
      const [k, v] = p.split('=').map((s) => s.trim());
      const n = Number(v);
      if (v === undefined || v === '' || !Number.isFinite(n)) {
        throw new Error(`fault "${kind}": parameter "${p}" must be key=number`);
      }
      switch (k) {
        case 'status':
          if (!Number.isInteger(n) || n < 400 || n > 599) {
            throw new Error(`fault "${kind}": status must be an integer 400..599`);
          }
          status = n;
          break;
        case 'after':
          if (!Number.isInteger(n) || n < 0) throw new Error(`fault "${kind}": after must be an integer >= 0`);
          afterTokens = n;
          break;
        case 'ms':
          if (n < 0) throw new Error(`fault "${kind}": ms must be >= 0`);
          stallMs = n;
          break;
        case 'p':
          if (n < 0 || n > 1) throw new Error(`fault "${kind}": p must be within 0..1`);
          probability = n;
          break;
        default:
          throw new Error(`fault "${kind}": unknown parameter "${k}" (allowed: status, after, ms, p)`);
      }
    }
    out.push({ kind, status, afterTokens, stallMs, probability });
  }
  return out;
}

/**
 * The faults that apply to one request: server-wide faults drawn by probability, plus the request's own header faults.
 */
export function pickFaults(
  serverFaults: readonly Fault[], headerFaults: readonly Fault[], random: () => number,
): Fault[] {
  const picked = serverFaults.filter((f) => f.probability >= 1 || random() < f.probability);
  return [...picked, ...headerFaults];
}

/** Where a stream fault strikes, in content tokens already sent. */
export function faultPoint(f: Fault, contentTokens: number): number {
  if (f.afterTokens !== null) return Math.min(f.afterTokens, contentTokens);
  return f.kind === 'reset-mid-stream' ? Math.max(1, Math.floor(contentTokens / 2)) : Math.min(1, contentTokens);
}
