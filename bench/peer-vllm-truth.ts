// Each client's times against the simulator's ground truth, for bench/peer-vllm-bench.ts: the server's own times,
// requests matched by id, the errors of TTFT and ITL, and the readers of what k6 and vllm bench serve wrote. Pure:
// the benchmark runs the clients, this only compares. Runs in Node.

import Papa from 'papaparse';
import { METRICS } from '../lib/metrics';
import { percentile, sortValues } from '../analysis/stats';

/** Under this gap, a value means "read together" (one read, one time). */
const TOGETHER_MS = 1;
/** A ground-truth record as GET /debug/ground-truth gives it (sim/ground-truth.ts), the fields used here. */
export interface TruthRecord {
  readonly requestId: string;
  readonly promptTokens: number;
  readonly arrivalEpochMs: number;
  readonly tokenEpochMs: readonly number[];
  readonly outcome: string;
}

/** What a client measured, in ms: one TTFT per completed request, every ITL value of them. */
export interface ClientTimes {
  readonly ttftMs: readonly number[];
  readonly itlMs: readonly number[];
}

/** The server's side of some requests: TTFT = first token written - headers read; ITL = every gap between writes. */
export function truthTimes(records: readonly TruthRecord[]): ClientTimes {
  const ttftMs: number[] = [];
  const itlMs: number[] = [];
  for (const r of records) {
    const w = r.tokenEpochMs;
    if (w.length === 0) continue;
    ttftMs.push(w[0]! - r.arrivalEpochMs);
    for (let i = 1; i < w.length; i++) itlMs.push(w[i]! - w[i - 1]!);
  }
  return { ttftMs, itlMs };
}

/** One request as vllm bench serve saved it (--save-detailed), in ms. `error` is '' when it succeeded. */
export interface VllmOutput {
  readonly ttftMs: number;
  readonly itlMs: readonly number[];
  readonly error: string;
}

export interface Matched {
  readonly client: ClientTimes;
  readonly truth: readonly TruthRecord[];
  /** Successful client requests with no completed ground-truth record of that id. */
  readonly unmatched: number;
  /**
   * Pairs whose client TTFT is shorter than the server's: impossible when the pair is right (the client's interval
   * holds the server's), so a count above 0 means the order of the saved results is not the order of the ids.
   */
  readonly clientShorter: number;
}

/** Pairs vllm bench serve's i-th saved request with the ground-truth record `${prefix}${i}` (its x-request-id). */
export function matchByRequestId(
  prefix: string, outputs: readonly VllmOutput[], truth: readonly TruthRecord[],
): Matched {
  const byId = new Map(truth.filter((r) => r.outcome === 'completed').map((r) => [r.requestId, r]));
  const ttftMs: number[] = [];
  const itlMs: number[] = [];
  const records: TruthRecord[] = [];
  let unmatched = 0;
  let clientShorter = 0;
  outputs.forEach((o, i) => {
    if (o.error !== '') return;
    const r = byId.get(`${prefix}${i}`);
    if (r === undefined || r.tokenEpochMs.length === 0) {
      unmatched++;
      return;
    }
    if (o.ttftMs < r.tokenEpochMs[0]! - r.arrivalEpochMs) clientShorter++;
    ttftMs.push(o.ttftMs);
    itlMs.push(...o.itlMs);
    records.push(r);
  });
  return { client: { ttftMs, itlMs }, truth: records, unmatched, clientShorter };
}

/** A figure as the client saw it and as the server did; error = client - truth. */
export interface Versus {
  readonly client: number;
  readonly truth: number;
  readonly error: number;
}

export interface Comparison {
  readonly requests: number;
  readonly truthRequests: number;
  /** Mean prompt tokens as the simulator counted them (the chat template included). */
  readonly promptTokens: number;
  readonly ttftMean: Versus;
  readonly ttftMedian: Versus;
  readonly itlP99: Versus;
  /** ITL values per request. */
  readonly itlPerRequest: { readonly client: number; readonly truth: number };
  /** Share of ITL values under TOGETHER_MS. */
  readonly together: { readonly client: number; readonly truth: number };
}

const meanOf = (xs: readonly number[]): number => (xs.length === 0 ? NaN : xs.reduce((a, b) => a + b, 0) / xs.length);
/** k6's (and numpy's default) linear percentile, p in 0..1; NaN for no values. */
export const pctOf = (xs: readonly number[], p: number): number =>
  xs.length === 0 ? NaN : percentile(sortValues(xs), p);
const versus = (client: number, truth: number): Versus => ({ client, truth, error: client - truth });
const shareBelow = (xs: readonly number[], limit: number): number =>
  xs.length === 0 ? NaN : xs.filter((x) => x < limit).length / xs.length;

/** A client's figures against the ground truth of its own requests. */
export function compare(client: ClientTimes, truth: readonly TruthRecord[]): Comparison {
  const t = truthTimes(truth);
  return {
    requests: client.ttftMs.length,
    truthRequests: t.ttftMs.length,
    promptTokens: meanOf(truth.map((r) => r.promptTokens)),
    ttftMean: versus(meanOf(client.ttftMs), meanOf(t.ttftMs)),
    ttftMedian: versus(pctOf(client.ttftMs, 0.5), pctOf(t.ttftMs, 0.5)),
    itlP99: versus(pctOf(client.itlMs, 0.99), pctOf(t.itlMs, 0.99)),
    itlPerRequest: { client: client.itlMs.length / client.ttftMs.length, truth: t.itlMs.length / t.ttftMs.length },
    together: { client: shareBelow(client.itlMs, TOGETHER_MS), truth: shareBelow(t.itlMs, TOGETHER_MS) },
  };
}

// ---------------------------------------------------------------------------------------------
// Reading what the clients wrote (the edge: checked here, trusted afterwards)

/** vllm bench serve's saved JSON (--save-result --save-detailed): per request in seconds, turned into ms. */
export function parseVllmResult(text: string): { outputs: VllmOutput[]; meanTtftMs: number; p99ItlMs: number } {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new Error('vllm bench serve\'s result is not JSON');
  }
  const { ttfts, itls, errors } = o;
  const numbers = (x: unknown): x is number[] => Array.isArray(x) && x.every((n) => typeof n === 'number');
  if (!numbers(ttfts)) throw new Error('vllm bench serve\'s result has no "ttfts" list (was --save-detailed given?)');
  if (!Array.isArray(itls) || itls.length !== ttfts.length || !itls.every(numbers))
    throw new Error('vllm bench serve\'s result: "itls" is not one list of numbers per request');
  if (!Array.isArray(errors) || errors.length !== ttfts.length || !errors.every((e) => typeof e === 'string'))
    throw new Error('vllm bench serve\'s result: "errors" is not one string per request');
  const outputs = ttfts.map((t, i) => ({ ttftMs: t * 1000, itlMs: itls[i]!.map((s) => s * 1000), error: errors[i]! }));
  const ms = (key: string): number => (typeof o[key] === 'number' ? o[key] : NaN);
  return { outputs, meanTtftMs: ms('mean_ttft_ms'), p99ItlMs: ms('p99_itl_ms') };
}

/** llm_ttft and llm_itl of a k6 CSV (--out csv), and the llm_errors count. */
export function parseK6Csv(text: string): ClientTimes & { errors: number } {
  const rows = Papa.parse<string[]>(text, { skipEmptyLines: true }).data;
  const header = rows[0] ?? [];
  const name = header.indexOf('metric_name');
  const value = header.indexOf('metric_value');
  if (name < 0 || value < 0) throw new Error('the k6 CSV has no metric_name and metric_value columns');
  const ttftMs: number[] = [];
  const itlMs: number[] = [];
  let errors = 0;
  for (const r of rows.slice(1)) {
    const v = Number(r[value]);
    if (r[name] === METRICS.ttft.name) ttftMs.push(v);
    else if (r[name] === METRICS.itl.name) itlMs.push(v);
    else if (r[name] === METRICS.errors.name) errors += v;
  }
  return { ttftMs, itlMs, errors };
}
