// One streaming request through the measuring agent, and its llm_* samples. Runs in k6 (bundled; also
// built alone as dist/llm.js for users' own scripts).
//
// The agent (agent/, Go) beside k6 opens the request, stamps every token with the kernel's receive time and
// answers with the request's record (docs/reference/agent-api.md). Here: one loopback call per request with
// http.asyncRequest, then one push of the record's samples. No token is handled in JavaScript.

import exec from 'k6/execution';
import http from 'k6/http';
import { calibrateCallClock, epochAt } from './call-clock';
import { createMetric, type K6Metric } from './metric-object';
import { withSampleMetadata } from './sample-metadata';
import {
  CLIENT_METRICS, REQUEST_METRICS, SAMPLE_METADATA, SAMPLE_TAGS, type ClientMetricKey,
  type RequestMetricKey,
} from '../metrics';
import type { CompletedRecord, ErroredRecord, RequestRecord } from '../record';

/** One limit of params.slo, in the metric's unit (ms; tokens/s for decodeSpeed); other fields are ignored. */
export interface StreamLimit {
  readonly metric: 'ttft' | 'ttfc' | 'e2e' | 'decodeSpeed' | 'itl' | 'tpot';
  readonly operator: '<' | '<=' | '>' | '>=';
  readonly value: number;
}

export interface StreamParams {
  readonly url: string;
  /** Default POST. */
  readonly method?: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /** Whole request, start to end of stream: a duration string ("600s", "1m30s", "1d") or seconds; 0 = no limit. */
  readonly timeout?: string | number;
  /** Until a connection is ready (TCP and TLS). */
  readonly connectTimeout?: string | number;
  /** From the request written to the response head. */
  readonly headerTimeout?: string | number;
  /** No byte read for this long while the body streams. */
  readonly idleTimeout?: string | number;
  /** The prompt length asked for: the record's input tokens when the server sends no usage. */
  readonly requestedInputTokens?: number;
  /** The output length asked for (max_tokens), kept in the record. */
  readonly requestedOutputTokens?: number;
  /** Tags on this request's llm_* samples, added to the VU's tags. */
  readonly tags?: Record<string, string | number | boolean>;
  /** Push no llm_* sample now: the script calls result.pushMetrics(tags) once it knows their tags. */
  readonly deferMetrics?: boolean;
  /** Gather the generated content into result.text (a conversation's next turn). */
  readonly keepText?: boolean;
  /** Hand back every event of the stream with its receive time (result.events), read after the stream. */
  readonly events?: boolean;
  /** Limits to judge the request's goodput by: record.goodput and one llm_goodput sample. */
  readonly slo?: readonly StreamLimit[];
}

/** One event of the stream: when the bytes that completed it arrived (ms, the currentTestRunDuration scale). */
export interface StreamEvent {
  readonly time: number;
  /** The `event:` field, '' when absent. */
  readonly name: string;
  /** The `data:` lines joined with "\n". */
  readonly data: string;
}

/** The agent's own figures with each request (llm_client_*). */
export interface AgentHealth {
  /** How long the call took to reach the request's start, ms; null unless the VU ran calibrateCallClock. */
  readonly handoffMs: number | null;
  readonly readLagMs: number | null;
  /** The longest the machine did not run the agent in the request (agent/stall.go), ms; absent from older agents. */
  readonly stallMs?: number | null;
  readonly cpuPerCore: number | null;
  /** A completed request's tokens read with the chunk before them, and those the server sent several to a chunk. */
  readonly tokensReadTogether?: number;
  readonly tokensChunked?: number;
}

export interface StreamResult {
  readonly record: RequestRecord;
  /** HTTP status of the LLM server; 0 when no response head arrived. */
  readonly status: number;
  readonly headers: Record<string, string>;
  /** The transport's message and code ('' when the response ended normally). */
  readonly error: string;
  readonly errorCode: string;
  /** First 4 KiB of a non-2xx or non-event-stream body. */
  readonly body: string;
  readonly startTime: number;
  /** When the request was written whole; 0 when it was not. */
  readonly sentTime: number;
  readonly headersTime: number;
  readonly endTime: number;
  readonly invalidLines: number;
  readonly firstInvalidLine: string;
  /** With keepText: the generated content. */
  readonly text?: string;
  /** With events: every event with its time. */
  readonly events?: readonly StreamEvent[];
  readonly health: AgentHealth;
  /** With deferMetrics: pushes the record's samples once, with these tags added. */
  readonly pushMetrics?: (tags?: Record<string, string>) => void;
}

// Created in the init context, as k6 requires, from the one metric table.
const requestMetrics = {} as Record<RequestMetricKey, K6Metric>;
for (const key of Object.keys(REQUEST_METRICS) as RequestMetricKey[]) {
  requestMetrics[key] = createMetric(REQUEST_METRICS[key]);
}
const clientMetrics = {} as Record<ClientMetricKey, K6Metric>;
for (const key of Object.keys(CLIENT_METRICS) as ClientMetricKey[]) {
  clientMetrics[key] = createMetric(CLIENT_METRICS[key]);
}

/** The tag the calls to the agent carry on k6's own http_req_* samples, so none is taken for the LLM server's. */
export const AGENT_CALL_NAME = 'llm-agent';

/** The agent's errorCode for a request it ended because it was shutting down or its caller left. */
const CANCELLED = 'cancelled';

/** The agent's /stream URL from LLM_AGENT; null when unset. */
function agentStreamUrl(): string | null {
  const base = (__ENV.LLM_AGENT ?? '').trim();
  return base === '' ? null : `${base.replace(/\/+$/, '')}/stream`;
}

/** Seconds in a timeout param, for k6's own limit on the agent call; NaN when it is a duration string. */
function timeoutSeconds(t: string | number | undefined): number {
  if (t === undefined) return 0;
  if (typeof t === 'number') return t;
  const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(t);
  if (!m) return Number.NaN;
  const scale = { ms: 0.001, s: 1, m: 60, h: 3600 }[m[2] ?? 's'] ?? 1;
  return Number(m[1]) * scale;
}

/**
 * k6's limit on the call: the request's own timeout plus a minute, so the agent always answers first and the
 * record says what happened; without one (or one k6 cannot read here), a day.
 */
function callTimeout(t: string | number | undefined): string {
  const s = timeoutSeconds(t);
  return s > 0 ? `${Math.ceil(s) + 60}s` : '24h';
}

/** The request as the agent's API takes it (docs/reference/agent-api.md). */
function agentParams(p: StreamParams): string {
  const calledAtMs = exec.instance.currentTestRunDuration;
  return JSON.stringify({
    url: p.url, method: p.method, headers: p.headers, body: p.body,
    timeout: p.timeout, connectTimeout: p.connectTimeout, headerTimeout: p.headerTimeout, idleTimeout: p.idleTimeout,
    requestedInputTokens: p.requestedInputTokens, requestedOutputTokens: p.requestedOutputTokens,
    keepText: p.keepText, events: p.events, slo: p.slo,
    timeOriginMs: calledAtMs,
    // With it the agent starts the record's clock at the request's real start, the hand-off included.
    callEpochMs: epochAt(calledAtMs),
    // One connection pool per user, as an application's HTTP client pool would have.
    pool: `vu-${exec.vu.idInTest}`,
    insecureSkipTLSVerify: exec.test.options.insecureSkipTLSVerify === true,
  });
}

function stringTags(tags: Record<string, string | number | boolean> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (tags) for (const k of Object.keys(tags)) out[k] = String(tags[k]);
  return out;
}

/**
 * Sends one streaming request through the agent and, unless deferMetrics, pushes its llm_* samples. A failing
 * LLM server never throws: the record says what failed. A misuse (bad params) throws the agent's message; an
 * agent that is not set or does not answer aborts the test, since nothing can be measured without it.
 */
export async function stream(params: StreamParams): Promise<StreamResult> {
  const url = agentStreamUrl();
  if (url === null) {
    exec.test.abort(
      'LLM_AGENT is not set: start the agent (npm run agent) and run k6 with -e LLM_AGENT=http://127.0.0.1:PORT',
    );
  }
  const res = await http.asyncRequest('POST', url!, agentParams(params), {
    headers: { 'Content-Type': 'application/json' },
    responseType: 'text',
    timeout: callTimeout(params.timeout),
    tags: { name: AGENT_CALL_NAME },
  });
  if (res.status === 400) throw new Error(String((JSON.parse(String(res.body)) as { error?: string }).error));
  if (res.status !== 200) {
    const why = `status ${res.status}${res.error ? `: ${res.error}` : ''}`;
    exec.test.abort(`the measuring agent at ${url!} did not answer (${why}): is it running?`);
  }
  const answer = JSON.parse(String(res.body)) as Omit<StreamResult, 'pushMetrics'>;
  const tags = stringTags(params.tags);
  // Cut, not failed: the agent shut down under it (the run is stopping). Neither a failure nor a measurement.
  if (answer.errorCode === CANCELLED) return { ...answer, pushMetrics: () => {} };
  const requestId = answer.headers?.['x-request-id'] ?? null;
  if (!params.deferMetrics) {
    pushRecordSamples(answer.record, answer.health, tags, requestId);
    return answer;
  }
  let pushed = false;
  return {
    ...answer,
    pushMetrics: (extra?: Record<string, string>) => {
      if (pushed) throw new Error('llm: pushMetrics: this request\'s metrics were already pushed');
      pushed = true;
      pushRecordSamples(answer.record, answer.health, extra ? { ...tags, ...extra } : tags, requestId);
    },
  };
}

/**
 * Runs `push` with `tags` set on the VU's own tags, then puts back what was there. A sample added without a tags
 * argument costs k6 about 40% less than one with it (no tag set to build per sample), and a request adds one per
 * token; the push is synchronous, so nothing else of the VU can add a sample meanwhile.
 */
function withVuTags(tags: Record<string, string>, push: () => void): void {
  const vuTags = exec.vu.metrics.tags;
  const saved: [string, string | number | boolean | undefined][] = [];
  for (const k of Object.keys(tags)) {
    saved.push([k, vuTags[k]]);
    vuTags[k] = tags[k]!;
  }
  try {
    push();
  } finally {
    for (const [k, v] of saved) {
      if (v === undefined) delete vuTags[k];
      else vuTags[k] = v;
    }
  }
}

/**
 * The record's samples (docs/reference/metrics.md), tagged with the VU's tags and `tags`: a completed request
 * gives its figures, one llm_itl per token after the first; a failed one only llm_request_ok 0 and llm_errors 1 tagged
 * error_kind, with the message as sample metadata (never a tag, so never a Prometheus label). Failures never enter
 * latency Trends. A request judged against params.slo adds llm_goodput; one whose usage said how many prompt tokens
 * were cached, llm_cached_tokens and its TTFT as llm_ttft_cache_hit (some) or llm_ttft_cache_miss (none). Then the
 * agent's health. The server's x-request-id (`requestId`) goes on every sample but llm_itl and llm_errors as metadata
 * request_id, so a request can be found in the server's own log and record.
 */
export function pushRecordSamples(
  rec: RequestRecord, health: AgentHealth, tags: Record<string, string>, requestId: string | null = null,
): void {
  withVuTags(tags, () => {
    // Before the id is set: one sample per token, each of which it would lengthen; and the failure's message, which
    // must be its sample's only metadata (analysis/sample-text.ts).
    if (rec.outcome === 'errored') pushErrorKind(rec);
    else pushTokenGaps(rec);
    withSampleMetadata(SAMPLE_METADATA.requestId, requestId, () => {
      if (rec.outcome === 'errored') pushFailure(rec);
      else pushFigures(rec);
      pushHealth(rec, health);
    });
  });
}

function pushErrorKind(rec: ErroredRecord): void {
  // error_kind goes on llm_errors only: on the Rate it would split each cell's success ratio by kind.
  withSampleMetadata(SAMPLE_METADATA.errorMessage, rec.errorMessage, () => {
    requestMetrics.errors.add(1, { [SAMPLE_TAGS.errorKind]: rec.errorKind });
  });
}

function pushFailure(rec: ErroredRecord): void {
  requestMetrics.requestOk.add(0);
  if (rec.goodput !== null) requestMetrics.goodput.add(0);
}

function pushTokenGaps(rec: CompletedRecord): void {
  const itl = rec.itlMs;
  const itlMetric = requestMetrics.itl;
  for (let i = 0; i < itl.length; i++) itlMetric.add(itl[i]!);
}

function pushFigures(rec: CompletedRecord): void {
  const m = requestMetrics;
  m.requestOk.add(1);
  if (rec.goodput !== null) m.goodput.add(rec.goodput ? 1 : 0);
  m.ttft.add(rec.ttftMs);
  if (rec.ttfcMs !== null) m.ttfc.add(rec.ttfcMs);
  m.e2e.add(rec.e2eMs);
  if (rec.tpotMs !== null) m.tpot.add(rec.tpotMs);
  if (rec.decodeTokensPerSecond !== null) m.decodeSpeed.add(rec.decodeTokensPerSecond);
  if (rec.prefillTokensPerSecond !== null) m.prefillSpeed.add(rec.prefillTokensPerSecond);
  m.inputTokens.add(rec.inputTokens, { [SAMPLE_TAGS.tokenSource]: rec.inputTokenSource });
  m.outputTokens.add(rec.outputTokens, { [SAMPLE_TAGS.tokenSource]: rec.outputTokenSource });
  if (rec.reasoningTokens !== null) m.reasoningTokens.add(rec.reasoningTokens);
  // Only when the server reported it: a server that never does leaves no series at all.
  if (rec.cachedTokens !== null) {
    m.cachedTokens.add(rec.cachedTokens);
    (rec.cachedTokens > 0 ? m.ttftCacheHit : m.ttftCacheMiss).add(rec.ttftMs);
  }
}

function pushHealth(rec: RequestRecord, health: AgentHealth): void {
  if (health.handoffMs !== null) clientMetrics.handoff.add(health.handoffMs);
  if (health.readLagMs !== null) clientMetrics.readLag.add(health.readLagMs);
  if (typeof health.stallMs === 'number') clientMetrics.stall.add(health.stallMs);
  if (health.cpuPerCore !== null) clientMetrics.cpuSeconds.add(health.cpuPerCore);
  // An agent older than these counts leaves them out: no sample rather than a false 0.
  if (rec.outcome === 'completed' && typeof health.tokensReadTogether === 'number') {
    clientMetrics.readTogether.add(health.tokensReadTogether);
    clientMetrics.chunkedTokens.add(health.tokensChunked ?? 0);
  }
}

/**
 * Open-loop senders call calibrateCallClock once per VU (or per cell) so the agent counts the hand-off; epochAt then
 * gives a run-clock time on the wall clock (lib/k6/call-clock.ts).
 */
export { calibrateCallClock, epochAt } from './call-clock';

export default { stream, calibrateCallClock, epochAt };
