// The suite's side of the accuracy study (bench/accuracy.ts): k6's CSV of a sweep or rate run read back into one
// request per record the agent answered, each keyed so bench/accuracy-judge.ts can pair it with the simulator's
// record of it. Pure: text in, requests out. Runs in Node.
//
// Every sample of a request carries its k6 user and iteration when k6 runs with `vu` and `iter` among its system
// tags (they land in the CSV's metadata column), and the suite's prompts start with a line made of the same two
// (lib/prompt-text.ts requestPrefix), which the simulator keeps (promptHead): a sweep's request is paired exactly.
// A rate cell is one VU whose iteration sends the whole schedule, request i with the prompt line of iteration i (the
// VU's count of open-loop requests, which is i in a run of one rate cell: lib/k6/slot-mode.ts); the
// CSV gives no i, so its requests are ranked by their intended send time as the client saw it (the push's time less
// the e2e from the intended send) and the k-th is paired with the k-th completed request of the schedule. Two
// requests swap only when their intended times are closer than the spread of k6's push delays (ms at these rates).

import Papa from 'papaparse';
import { ARRIVAL_METRICS, METRICS } from '../lib/metrics';
import { parseRequestPrefix } from '../lib/prompt-text';
import type { ClientRequest, Figures, TruthRecord } from './accuracy-judge';

/** The system tags k6 writes by default, and vu and iter: the CSV's metadata then names each sample's request. */
export const SYSTEM_TAGS = [
  'proto', 'subproto', 'status', 'method', 'url', 'name', 'group', 'check', 'error', 'error_code', 'tls_version',
  'scenario', 'service', 'expected_response', 'vu', 'iter',
].join(',');

/** One CSV row as read: the metric, its push time (epoch ms), its value and its metadata. */
interface Row {
  readonly metric: string;
  readonly timeMs: number;
  readonly value: number;
  readonly vu: string;
  readonly iter: string;
}

/** The rows of a k6 CSV written with timeFormat=unix_milli; a clear error when the columns are missing. */
export function readRows(text: string): Row[] {
  const rows = Papa.parse<string[]>(text, { skipEmptyLines: true }).data;
  const header = rows[0] ?? [];
  const col = (name: string): number => header.indexOf(name);
  const [name, time, value, meta] = [col('metric_name'), col('timestamp'), col('metric_value'), col('metadata')];
  if (name < 0 || time < 0 || value < 0 || meta < 0)
    throw new Error('the k6 CSV lacks metric_name, timestamp, metric_value or metadata columns');
  return rows.slice(1).map((r) => {
    const m = new URLSearchParams(r[meta] ?? '');
    return {
      metric: r[name]!, timeMs: Number(r[time]), value: Number(r[value]),
      vu: m.get('vu') ?? '', iter: m.get('iter') ?? '',
    };
  });
}

/** A request's samples gathered: its figures, and when they were pushed. */
interface Gathered {
  ok: boolean;
  pushedMs: number;
  ttft: number | null;
  itl: number[];
  tpot: number | null;
  e2e: number | null;
  decodeSpeed: number | null;
  prefillSpeed: number | null;
  outputTokens: number;
  ttftIntended: number | null;
  e2eIntended: number | null;
}

const fresh = (pushedMs: number): Gathered => ({
  ok: false, pushedMs, ttft: null, itl: [], tpot: null, e2e: null, decodeSpeed: null, prefillSpeed: null,
  outputTokens: 0, ttftIntended: null, e2eIntended: null,
});

/** Adds one row to a request; false when the row is not one of a request's figures. */
function gather(g: Gathered, r: Row): boolean {
  switch (r.metric) {
    case METRICS.requestOk.name: g.ok = r.value === 1; return true;
    case METRICS.ttft.name: g.ttft = r.value; return true;
    case METRICS.itl.name: g.itl.push(r.value); return true;
    case METRICS.tpot.name: g.tpot = r.value; return true;
    case METRICS.e2e.name: g.e2e = r.value; return true;
    case METRICS.decodeSpeed.name: g.decodeSpeed = r.value; return true;
    case METRICS.prefillSpeed.name: g.prefillSpeed = r.value; return true;
    case METRICS.outputTokens.name: g.outputTokens += r.value; return true;
    case ARRIVAL_METRICS.ttftIntended.name: g.ttftIntended = r.value; return true;
    case ARRIVAL_METRICS.e2eIntended.name: g.e2eIntended = r.value; return true;
    default: return false;
  }
}

function figures(g: Gathered, sendLag: number | null): Figures {
  return {
    ttft: g.ttft, itl: g.itl, tpot: g.tpot, e2e: g.e2e, decodeSpeed: g.decodeSpeed, prefillSpeed: g.prefillSpeed,
    sendLag, ttftIntended: g.ttftIntended, e2eIntended: g.e2eIntended,
  };
}

/** What a run's CSV says beside the requests: tokens received, requests that failed. */
export interface SuiteRead {
  readonly requests: ClientRequest[];
  readonly outputTokens: number;
  readonly failed: number;
}

/** A sweep run's completed requests, keyed `vu:iteration`. */
export function closedLoopRequests(text: string): SuiteRead {
  const byRequest = new Map<string, Gathered>();
  let failed = 0;
  for (const r of readRows(text)) {
    if (r.metric === METRICS.errors.name) failed += r.value;
    if (r.vu === '') continue;
    const key = `${r.vu}:${r.iter}`;
    const g = byRequest.get(key) ?? fresh(r.timeMs);
    if (gather(g, r)) byRequest.set(key, g);
  }
  const done = [...byRequest].filter(([, g]) => g.ok);
  return {
    requests: done.map(([key, g]) => ({ key, figures: figures(g, null) })),
    outputTokens: done.reduce((a, [, g]) => a + g.outputTokens, 0), failed,
  };
}

/** The key a truth record's prompt line gives: `vu:iteration`, null when it is not one of the suite's lines. */
export function suiteKey(t: TruthRecord): string | null {
  const ids = parseRequestPrefix(t.promptHead);
  return ids === null ? null : `${ids.vu}:${ids.iteration}`;
}

/**
 * A rate run's completed requests, keyed by rank (above) with the keys of the requests the server completed, given in
 * schedule order (suiteKey of each record, by its iteration). Each request's send lag is llm_schedule_lag's sample of
 * its index: pushed at each send, in order.
 */
export function openLoopRequests(
  text: string, completed: readonly { readonly key: string; readonly index: number }[],
): SuiteRead {
  const blocks: Gathered[] = [];
  const lags: number[] = [];
  let failed = 0;
  for (const r of readRows(text)) {
    if (r.metric === ARRIVAL_METRICS.scheduleLag.name) lags.push(r.value);
    else if (r.metric === METRICS.errors.name) failed += r.value;
    else if (r.metric === METRICS.requestOk.name) blocks.push(fresh(r.timeMs));
    // A request's samples follow its llm_request_ok: one VU pushes them in one go.
    if (r.metric !== ARRIVAL_METRICS.scheduleLag.name && blocks.length > 0) gather(blocks[blocks.length - 1]!, r);
  }
  const done = blocks.filter((g) => g.ok && g.e2eIntended !== null);
  const intendedSeen = (g: Gathered): number => g.pushedMs - g.e2eIntended!;
  done.sort((a, b) => intendedSeen(a) - intendedSeen(b));
  const order = [...completed].sort((a, b) => a.index - b.index);
  const requests = done.slice(0, order.length).map((g, k) => ({
    key: order[k]!.key, figures: figures(g, lags[order[k]!.index] ?? null),
  }));
  return { requests, outputTokens: done.reduce((a, g) => a + g.outputTokens, 0), failed };
}
