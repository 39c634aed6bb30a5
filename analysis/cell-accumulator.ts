// A cell's figures as its samples stream in: the Trends' values, counts, tokens, errors and its time window, kept in
// float64 lists so that memory stays bounded. Runs in Node. Filled through report/samples-collector.ts (from k6's CSV
// by report/read-samples.ts, from a prediction's records by report/predicted-samples.ts), and by the bench's capacity
// search from its own records.

import { CELL_TAGS, SAMPLE_TAGS, type ArrivalMetricKey, type RequestMetricKey } from '../lib/metrics';
import { FloatList } from './stats';
import { detach, parseErrorMessage } from './sample-text';
import { addEmbedSample, newEmbedSamples, type EmbedSamples } from './embed-samples';
import type { SessionAccumulator } from './session-samples';
import type { AgentAccumulator } from './agentic-samples';

/**
 * Request metrics recorded as Trends (one value per request, or per token for ITL); scheduleLag and the intended
 * ones, rate cells only; the cache hit and miss TTFTs, requests whose usage said how many prompt tokens were cached.
 */
export const TREND_KEYS = [
  'ttft', 'ttfc', 'itl', 'tpot', 'e2e', 'decodeSpeed', 'prefillSpeed', 'scheduleLag', 'ttftIntended', 'e2eIntended',
  'ttftCacheHit', 'ttftCacheMiss',
] as const satisfies readonly (RequestMetricKey | ArrivalMetricKey)[];
export type TrendKey = (typeof TREND_KEYS)[number];

/** Everything the CSV says about one cell. Times are epoch milliseconds. */
export interface CellAccumulator {
  readonly id: string;
  /** The cell's scenario tags (cell, script, context, output, concurrency, use_case, profile) from the first sample. */
  readonly tags: Record<string, string>;
  readonly trends: Record<TrendKey, FloatList>;
  inputTokens: number;
  outputTokens: number;
  /** Output-token samples per token_source tag ("usage" | "chunks" | "unknown"). */
  readonly tokenSources: Record<string, number>;
  okCount: number;
  failCount: number;
  /** llm_goodput samples: requests judged against the cell's use-case limits, and those that met them all. */
  readonly goodput: { judged: number; good: number };
  /** llm_errors counts per error_kind. */
  readonly errorsByKind: Record<string, number>;
  /**
   * Per error_kind, the error messages of llm_errors samples (metadata error_message) and their counts; at most
   * MAX_MESSAGES_PER_KIND distinct.
   */
  readonly errorMessages: Record<string, Map<string, number>>;
  /** error_kind of failed llm_request_ok samples, used when no llm_errors samples exist. */
  readonly failedByKind: Record<string, number>;
  /** First request start (llm_e2e sample time minus its value) and last request end, epoch ms. */
  windowStartMs: number;
  windowEndMs: number;
  /** Each request's end (its llm_e2e sample time), in the order of trends.e2e: with it, when each request ran. */
  readonly requestEnds: FloatList;
  /** Requests left out of the statistics by their phase tag (lib/drive.ts): warm-up and transition. */
  readonly excluded: { warmup: number; transition: number };
  /** Each request's longest read lag, ms (llm_client_read_lag). */
  readonly readLag: FloatList;
  /** Each request's longest stall of the machine under the agent, ms (llm_client_stall). */
  readonly stall: FloatList;
  /**
   * Tokens the agent read together with the chunk before them (llm_client_read_together), tokens the server sent
   * several to a chunk (llm_client_chunked_tokens), and the requests that reported them (an older agent does not).
   */
  readonly reading: { readTogether: number; chunked: number; requests: number };
  /** The earliest and latest llm_client_cpu_seconds samples: epoch ms and per-core CPU seconds. */
  cpuFirst: { atMs: number; seconds: number } | null;
  cpuLast: { atMs: number; seconds: number } | null;
  /** The sessions script's turns (analysis/session-samples.ts); absent in other cells. */
  sessions?: SessionAccumulator;
  /** The agentic script's agents (analysis/agentic-samples.ts); absent in other cells. */
  agentic?: AgentAccumulator;
  /**
   * A rate cell's llm_achieved_rate (requests/s), the sum of its senders' (each pushes its share's once its last
   * request went); null until one did or elsewhere.
   */
  achievedRate: number | null;
  /** How many senders pushed an achieved rate: the sum is the cell's once every sender of the plan has. */
  achievedSenders: number;
  /** Each request's prompt and output tokens as the server counted them: a replayed trace's lengths as sent. */
  readonly inputLengths: FloatList;
  readonly outputLengths: FloatList;
  /** Prompt tokens the server served from its prefix cache (llm_cached_tokens), and how many requests said. */
  cachedTokens: number;
  cachedReported: number;
  /** Thinking tokens of the completed requests that said (llm_reasoning_tokens), and how many said. */
  reasoningTokens: number;
  reasoningReported: number;
  /** The embed script's requests (lib/k6/embed.ts): their latencies and what they carried; absent elsewhere. */
  embed?: EmbedSamples;
}

/** Distinct messages kept per cell and error kind: bounded memory when every message differs (ids, timestamps). */
export const MAX_MESSAGES_PER_KIND = 100;

const TAG_SET: ReadonlySet<string> = new Set<string>(CELL_TAGS);

/** An empty accumulator for one cell (the bench's capacity search fills one from its own records). */
export function newCellAccumulator(id: string, tags: Record<string, string>): CellAccumulator {
  const scenarioTags: Record<string, string> = {};
  for (const [key, value] of Object.entries(tags)) if (TAG_SET.has(key)) scenarioTags[key] = value;
  const trends = {} as Record<TrendKey, FloatList>;
  for (const trend of TREND_KEYS) trends[trend] = new FloatList(trend === 'itl' ? 4096 : 64);
  return {
    id,
    tags: scenarioTags,
    trends,
    inputTokens: 0,
    outputTokens: 0,
    tokenSources: {},
    okCount: 0,
    failCount: 0,
    goodput: { judged: 0, good: 0 },
    errorsByKind: {},
    errorMessages: {},
    failedByKind: {},
    windowStartMs: Infinity,
    windowEndMs: -Infinity,
    requestEnds: new FloatList(),
    excluded: { warmup: 0, transition: 0 },
    readLag: new FloatList(64),
    stall: new FloatList(64),
    reading: { readTogether: 0, chunked: 0, requests: 0 },
    cpuFirst: null,
    cpuLast: null,
    achievedRate: null,
    achievedSenders: 0,
    inputLengths: new FloatList(64),
    outputLengths: new FloatList(64),
    cachedTokens: 0,
    cachedReported: 0,
    reasoningTokens: 0,
    reasoningReported: 0,
  };
}

/** A Trend sample; an e2e sample also widens the cell's window (its request ran from time - e2e to time). */
export function addTrendSample(cell: CellAccumulator, trend: TrendKey, timestampMs: number, value: number): void {
  cell.trends[trend].push(value);
  if (trend !== 'e2e') return;
  cell.requestEnds.push(timestampMs);
  const start = timestampMs - value;
  if (start < cell.windowStartMs) cell.windowStartMs = start;
  if (timestampMs > cell.windowEndMs) cell.windowEndMs = timestampMs;
}

/** A counter, rate or gauge sample of a request: tokens, read lag, CPU, success, goodput and errors. */
export function addRequestSample(
  cell: CellAccumulator,
  key: string,
  tags: Record<string, string>,
  timestampMs: number,
  value: number,
  metadata: string,
): void {
  switch (key) {
    case 'inputTokens':
      cell.inputTokens += value;
      cell.inputLengths.push(value);
      return;
    case 'cachedTokens':
      cell.cachedTokens += value;
      cell.cachedReported++;
      return;
    case 'reasoningTokens':
      cell.reasoningTokens += value;
      cell.reasoningReported++;
      return;
    case 'achievedRate':
      cell.achievedRate = (cell.achievedRate ?? 0) + value;
      cell.achievedSenders++;
      return;
    case 'outputTokens': {
      cell.outputTokens += value;
      cell.outputLengths.push(value);
      const source = tags[SAMPLE_TAGS.tokenSource] ?? 'unknown';
      cell.tokenSources[source] = (cell.tokenSources[source] ?? 0) + 1;
      return;
    }
    case 'readLag':
    case 'stall':
    case 'readTogether':
    case 'chunkedTokens':
    case 'cpuSeconds':
      addClientSample(cell, key, timestampMs, value);
      return;
    case 'requestOk':
      if (value !== 0) cell.okCount++;
      else addFailure(cell, tags[SAMPLE_TAGS.errorKind] ?? 'unknown');
      return;
    case 'errors':
      addErrorSample(cell, tags[SAMPLE_TAGS.errorKind] ?? 'unknown', value, metadata);
      return;
    case 'goodput':
      cell.goodput.judged++;
      if (value !== 0) cell.goodput.good++;
      return;
    case 'embedLatency':
    case 'embedItems':
    case 'embedInputTokens':
      addEmbedSample((cell.embed ??= newEmbedSamples()), key, tags[SAMPLE_TAGS.tokenSource], timestampMs, value);
      return;
  }
}

/** A failed request, counted by kind. */
function addFailure(cell: CellAccumulator, kind: string): void {
  cell.failCount++;
  addCount(cell.failedByKind, kind, 1);
}

/** An llm_errors sample: counted by kind; its message (metadata column) kept, up to MAX_MESSAGES_PER_KIND a kind. */
function addErrorSample(cell: CellAccumulator, kind: string, count: number, metadata: string): void {
  addCount(cell.errorsByKind, kind, count);
  const message = metadata === '' ? null : parseErrorMessage(metadata);
  if (message === null) return;
  const messages = (cell.errorMessages[kind] ??= new Map());
  const seen = messages.get(message);
  if (seen !== undefined) messages.set(message, seen + count);
  else if (messages.size < MAX_MESSAGES_PER_KIND) messages.set(detach(message), count);
}

/** The agent's health: read lag, stalls, CPU, tokens read together (one sample per completed request) and chunked. */
export function addClientSample(
  cell: CellAccumulator, key: 'readLag' | 'stall' | 'readTogether' | 'chunkedTokens' | 'cpuSeconds', atMs: number,
  value: number,
): void {
  if (key === 'readLag') cell.readLag.push(value);
  else if (key === 'stall') cell.stall.push(value);
  else if (key === 'cpuSeconds') addCpuSample(cell, { atMs, seconds: value });
  else if (key === 'chunkedTokens') cell.reading.chunked += value;
  else {
    cell.reading.readTogether += value;
    cell.reading.requests++;
  }
}

/** Keeps the earliest and the latest llm_client_cpu_seconds sample of a cell. */
function addCpuSample(cell: CellAccumulator, sample: { atMs: number; seconds: number }): void {
  if (cell.cpuFirst === null || sample.atMs < cell.cpuFirst.atMs) cell.cpuFirst = sample;
  if (cell.cpuLast === null || sample.atMs >= cell.cpuLast.atMs) cell.cpuLast = sample;
}

function addCount(counts: Record<string, number>, key: string, count: number): void {
  counts[key] = (counts[key] ?? 0) + count;
}
