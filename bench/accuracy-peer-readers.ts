// What each peer of the accuracy study saved, read into the judge's per-request figures (bench/accuracy-judge.ts).
// Pure: text in, requests out; the readers check the shape at this edge. Runs in Node.
//
// How each peer measures, read from its own sources (so the differences can be explained):
//   vllm bench serve  (vLLM 0.32.0, --save-detailed) per request: TTFT from just before session.post to the first
//                     SSE message with choices (on chat the role-only chunk), ITL per chunk (the role-to-first-token
//                     gap first); no e2e, TPOT or speeds per request: e2e is taken as TTFT + the sum of its ITLs (its
//                     last chunk), TPOT as that sum over the chunks less one, decode speed as 1000 / TPOT.
//   AIPerf            (0.13.0, profile_export.jsonl) per request: time_to_first_token, inter_chunk_latency (per
//                     chunk), request_latency (e2e), inter_token_latency ((e2e - TTFT) / (tokens - 1): TPOT),
//                     output_token_throughput_per_user (decode speed), prefill_throughput_per_user (its own input
//                     length over TTFT); its X-Request-ID names the ground-truth record.
//   GuideLLM          (0.8.1, the json output) per request: time_to_first_token_ms, request_latency (e2e),
//                     time_per_output_token_ms (TPOT), output_tokens_per_second; it keeps no per-token times (only
//                     the first and last token's), so no ITL per token, and sends no request id: its requests are
//                     paired with the server's records by rank of their send time (request_start) against arrival.

import type { ClientRequest, Figures, TruthRecord } from './accuracy-judge';
import type { VllmOutput } from './peer-vllm-truth';

const NONE: Figures = {
  ttft: null, itl: null, tpot: null, e2e: null, decodeSpeed: null, prefillSpeed: null, sendLag: null,
  ttftIntended: null, e2eIntended: null,
};

/** vllm bench serve's saved requests (parseVllmResult), request i keyed by its x-request-id `${prefix}${i}`. */
export function vllmRequests(prefix: string, outputs: readonly VllmOutput[]): ClientRequest[] {
  return outputs.flatMap((o, i) => {
    if (o.error !== '') return [];
    const sum = o.itlMs.reduce((a, b) => a + b, 0);
    const tpot = o.itlMs.length > 1 ? sum / (o.itlMs.length - 1) : null;
    return [{
      key: `${prefix}${i}`,
      figures: {
        ...NONE, ttft: o.ttftMs, itl: o.itlMs, e2e: o.ttftMs + sum, tpot, decodeSpeed: tpot ? 1000 / tpot : null,
      },
    }];
  });
}

const num = (x: unknown): number | null => (typeof x === 'number' && Number.isFinite(x) ? x : null);

/** AIPerf's profile_export.jsonl: one record per line; records without a TTFT (failed) are left out. */
export function aiperfRequests(text: string): ClientRequest[] {
  const out: ClientRequest[] = [];
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    let r: { metadata?: Record<string, unknown>; metrics?: Record<string, { value?: unknown } | undefined> };
    try {
      r = JSON.parse(line) as typeof r;
    } catch {
      throw new Error('AIPerf\'s profile_export.jsonl has a line that is not JSON');
    }
    const id = r.metadata?.x_request_id;
    const m = (k: string): unknown => r.metrics?.[k]?.value;
    const ttft = num(m('time_to_first_token'));
    if (typeof id !== 'string' || ttft === null) continue;
    const chunks = m('inter_chunk_latency');
    out.push({
      key: id,
      figures: {
        ...NONE, ttft, e2e: num(m('request_latency')), tpot: num(m('inter_token_latency')),
        itl: Array.isArray(chunks) && chunks.every((x) => typeof x === 'number') ? chunks : null,
        decodeSpeed: num(m('output_token_throughput_per_user')), prefillSpeed: num(m('prefill_throughput_per_user')),
      },
    });
  }
  return out;
}

/** GuideLLM's json output: its first benchmark's successful requests, with their send times (epoch ms). */
export function guidellmRequests(text: string): { startMs: number; figures: Figures }[] {
  let d: { benchmarks?: { requests?: { successful?: Record<string, unknown>[] } }[] };
  try {
    d = JSON.parse(text) as typeof d;
  } catch {
    throw new Error('GuideLLM\'s benchmarks.json is not JSON');
  }
  const ok = d.benchmarks?.[0]?.requests?.successful;
  if (!Array.isArray(ok)) throw new Error('GuideLLM\'s benchmarks.json has no benchmarks[0].requests.successful');
  return ok.flatMap((r) => {
    const start = num(r.request_start_time);
    const ttft = num(r.time_to_first_token_ms);
    const latency = num(r.request_latency);
    if (start === null || ttft === null) return [];
    return [{
      startMs: start * 1000,
      figures: {
        ...NONE, ttft, e2e: latency === null ? null : latency * 1000, tpot: num(r.time_per_output_token_ms),
        decodeSpeed: num(r.output_tokens_per_second),
      },
    }];
  });
}

/**
 * Keys for a client that sends no request id: its requests sorted by send time and the completed truth records by
 * arrival, the k-th of each named `rank:k`. Returns the keyed requests and the key of each paired record.
 */
export function keyByRank(
  requests: readonly { startMs: number; figures: Figures }[], truth: readonly TruthRecord[],
): { requests: ClientRequest[]; keyOf: (t: TruthRecord) => string | null } {
  const records = truth.filter((t) => t.outcome === 'completed').sort((a, b) => a.arrivalEpochMs - b.arrivalEpochMs);
  const keys = new Map(records.map((t, k) => [t, `rank:${k}`]));
  const sorted = [...requests].sort((a, b) => a.startMs - b.startMs);
  return {
    requests: sorted.map((r, k) => ({ key: `rank:${k}`, figures: r.figures })),
    keyOf: (t) => keys.get(t) ?? null,
  };
}
