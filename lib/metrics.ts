// The metric table: every k6 metric the suite emits, defined once (name, kind, unit, formula). Runs in k6 and Node.
//
// Scenarios create their k6 metric objects from this table, thresholds refer to its keys, and the
// report reads k6's output through it, so no metric name is written as a literal anywhere else.
// The server's llm_server_* part is in lib/server-metrics.ts, what a definition holds in lib/metric-definition.ts.

import type { MetricDefinition } from './metric-definition';
import { SERVER_METRICS } from './server-metrics';
import { LIMIT_METRICS } from '../thresholds/use-cases';

/** Per-request client-side measurements (docs/design/architecture.md, "Measurement definitions"). */
export const REQUEST_METRICS = {
  ttft: {
    name: 'llm_ttft',
    kind: 'trend',
    isTime: true,
    unit: 'ms',
    description:
      'Time to first token: request start to the first generated token of any kind (content, reasoning or ' +
      'tool-call delta); the role-only chunk is not a token.',
  },
  ttfc: {
    name: 'llm_ttfc',
    kind: 'trend',
    isTime: true,
    unit: 'ms',
    description:
      'Time to first content token: request start to the first content delta; differs from TTFT when the model ' +
      'reasons first.',
  },
  itl: {
    name: 'llm_itl',
    kind: 'trend',
    isTime: true,
    unit: 'ms',
    description:
      'Inter-token latency: one sample per generated token after the first; a chunk carrying k tokens spreads its ' +
      'gap over k samples.',
  },
  tpot: {
    name: 'llm_tpot',
    kind: 'trend',
    isTime: true,
    unit: 'ms',
    description:
      'Time per output token: (e2e - ttft) / (output_tokens - 1); undefined (no sample) for fewer than 2 output ' +
      'tokens.',
  },
  e2e: {
    name: 'llm_e2e',
    kind: 'trend',
    isTime: true,
    unit: 'ms',
    description: 'End-to-end latency: request start to the end of the stream.',
  },
  decodeSpeed: {
    name: 'llm_decode_speed',
    kind: 'trend',
    isTime: false,
    unit: 'tokens/s',
    description: 'Per-user decode speed: (output_tokens - 1) / (e2e - ttft) in tokens per second.',
  },
  prefillSpeed: {
    name: 'llm_prefill_speed',
    kind: 'trend',
    isTime: false,
    unit: 'tokens/s',
    description:
      'Per-user prefill speed: input_tokens / ttft in tokens per second (includes queue wait, as a user sees it).',
  },
  inputTokens: {
    name: 'llm_input_tokens',
    kind: 'counter',
    isTime: false,
    unit: 'tokens',
    description:
      'Prompt tokens of completed requests (usage.prompt_tokens, else the requested length; tag token_source says ' +
      'which).',
  },
  cachedTokens: {
    name: 'llm_cached_tokens',
    kind: 'counter',
    isTime: false,
    unit: 'tokens',
    description:
      "Prompt tokens of completed requests that the server's prefix cache served (usage.prompt_tokens_details." +
      'cached_tokens: vLLM with --enable-prompt-tokens-details, SGLang with --enable-cache-report), one sample per ' +
      'request whose usage has the field (vLLM before 0.32 leaves it out when it is 0); beside llm_input_tokens ' +
      'it gives the hit rate, cached / input tokens.',
  },
  ttftCacheHit: {
    name: 'llm_ttft_cache_hit',
    kind: 'trend',
    isTime: true,
    unit: 'ms',
    description:
      "TTFT (llm_ttft) of a completed request whose usage said the server's prefix cache served some of its prompt " +
      '(cached_tokens > 0); nothing when the usage says no cached tokens (beside llm_ttft_cache_miss).',
  },
  ttftCacheMiss: {
    name: 'llm_ttft_cache_miss',
    kind: 'trend',
    isTime: true,
    unit: 'ms',
    description:
      "TTFT (llm_ttft) of a completed request whose usage said the prefix cache served none of its prompt " +
      '(cached_tokens = 0); a server that leaves the field out (vLLM before 0.32 at 0) gives no sample.',
  },
  outputTokens: {
    name: 'llm_output_tokens',
    kind: 'counter',
    isTime: false,
    unit: 'tokens',
    description:
      'Generated tokens of completed requests (usage.completion_tokens, else counted deltas; tag token_source says ' +
      'which).',
  },
  reasoningTokens: {
    name: 'llm_reasoning_tokens',
    kind: 'counter',
    isTime: false,
    unit: 'tokens',
    description:
      'Generated tokens of completed requests that were thinking, part of llm_output_tokens: usage.completion_tokens_' +
      'details.reasoning_tokens (Responses: output_tokens_details), else the tokens of the reasoning deltas ' +
      '(Messages\' ' +
      'thinking blocks); no sample from a request with neither.',
  },
  requestOk: {
    name: 'llm_request_ok',
    kind: 'rate',
    isTime: false,
    unit: 'ratio',
    description:
      'One sample per request: 1 when the stream completed with at least one token, 0 when it errored or was cut.',
  },
  goodput: {
    name: 'llm_goodput',
    kind: 'rate',
    isTime: false,
    unit: 'ratio',
    description:
      "One sample per request judged against a use case's limits (llm.stream params.slo): 1 when it completed and " +
      "its own " +
      'TTFT, e2e, decode speed, TPOT and mean ITL each met the limit on it, 0 otherwise (a failed request is not ' +
      'good). ' +
      'Goodput of a cell = good requests / judged requests.',
  },
  errors: {
    name: 'llm_errors',
    kind: 'counter',
    isTime: false,
    unit: 'requests',
    description: 'Failed requests, tagged error_kind (see ErrorKind in lib/record.ts).',
  },
} as const satisfies Record<string, MetricDefinition>;

/**
 * The load generator's own health, reported by the agent with each request's record and pushed with its samples (same
 * tags), so the report can tell a cell the client limited from one the server limited.
 */
export const CLIENT_METRICS = {
  handoff: {
    name: 'llm_client_handoff',
    kind: 'trend',
    isTime: true,
    unit: 'ms',
    description:
      "Per request of an open-loop sender, how long the call took to reach the request's start in the measuring " +
      'agent: k6 writing the call, the loopback, the agent reading and parsing the params. Counted in the schedule ' +
      'lag and the latencies from the intended send.',
  },
  readLag: {
    name: 'llm_client_read_lag',
    kind: 'trend',
    isTime: true,
    unit: 'ms',
    description:
      "Per request, the longest time its bytes waited in the socket before the agent read them (read time - the " +
      "kernel's " +
      "receive time). Event times are the receive times, so lag costs no accuracy until it reaches the inter-token " +
      "gap: then tokens are read together and share one time.",
  },
  stall: {
    name: 'llm_client_stall',
    kind: 'trend',
    isTime: true,
    unit: 'ms',
    description:
      'Per request, the longest the machine did not run the measuring agent while the request ran, though the ' +
      "agent was not waiting for a core: a paused or starved VM, a stopped process (0 below 2 ms). The kernel's " +
      'receive times stall with it, so a stall moves every time the request measured across it.',
  },
  cpuSeconds: {
    name: 'llm_client_cpu_seconds',
    kind: 'gauge',
    isTime: false,
    unit: 'seconds',
    description:
      "CPU time the measuring agent has used since it started (user + system), divided by the cores it may use " +
      "(GOMAXPROCS), sampled as each request ends: its rise over a cell's window divided by the window is the " +
      "share of the load generator's CPU the cell used.",
  },
  readTogether: {
    name: 'llm_client_read_together',
    kind: 'counter',
    isTime: false,
    unit: 'tokens',
    description:
      'Per completed request, the tokens whose chunk the agent read in the same read as the chunk before it: they ' +
      'share its receive time and give ITL samples of 0 that the server did not send (a reader a whole gap late, or ' +
      'a network that merged two writes into one packet).',
  },
  chunkedTokens: {
    name: 'llm_client_chunked_tokens',
    kind: 'counter',
    isTime: false,
    unit: 'tokens',
    description:
      "Per completed request, the tokens the server sent in a chunk with another token (output tokens - token " +
      "chunks: SGLang's stream interval, speculative decoding): the server's chunking, which the client's reading " +
      'is judged apart from.',
  },
} as const satisfies Record<string, MetricDefinition>;

/**
 * What the rate script (open-loop arrivals, lib/arrivals.ts) adds to each request's samples, same tags: when the
 * request was meant to go against when it went. Latency from the intended send is what a user arriving on the
 * schedule sees: a late sender cannot hide a slow server from it (coordinated omission, docs/guides/open-loop.md).
 */
export const ARRIVAL_METRICS = {
  scheduleLag: {
    name: 'llm_schedule_lag',
    kind: 'trend',
    isTime: true,
    unit: 'ms',
    description:
      'Schedule lag: when the measuring agent started the request (the hand-off from k6 included) minus its intended ' +
      'send time from the seeded arrival schedule; one sample per request of a rate cell, pushed when it ends (a ' +
      'request the cell\'s end cut has none).',
  },
  ttftIntended: {
    name: 'llm_ttft_intended',
    kind: 'trend',
    isTime: true,
    unit: 'ms',
    description:
      'TTFT from the intended send time: llm_ttft + (the agent\'s start stamp - the intended send), per completed ' +
      'request of a rate cell; the schedule lag plus the tenths of a ms k6 takes to dispatch the call.',
  },
  e2eIntended: {
    name: 'llm_e2e_intended',
    kind: 'trend',
    isTime: true,
    unit: 'ms',
    description: 'End-to-end latency from the intended send time, as llm_ttft_intended is, per completed request.',
  },
  achievedRate: {
    name: 'llm_achieved_rate',
    kind: 'gauge',
    isTime: false,
    unit: 'requests/s',
    description:
      'One sample per rate cell, when its last request was sent: requests sent / (the cell\'s duration + the last ' +
      "request's schedule lag); the offered rate is the plan's (lib/arrivals.ts holds exactly rate x duration " +
      "requests).",
  },
} as const satisfies Record<string, MetricDefinition>;

/** What a bench-driven capacity search decided, pushed by the script as each use case's search ends. */
export const SEARCH_METRICS = {
  capacityUsers: {
    name: 'llm_capacity_users',
    kind: 'gauge',
    isTime: false,
    unit: 'count',
    description:
      'A use case\'s capacity as the bench\'s search found it, in users, one series per bound (tag bound: capacity, ' +
      'interval_low, interval_high of its 95% interval) with the limit that set it (tag limit); tag use_case.',
  },
} as const satisfies Record<string, MetricDefinition>;

/** The tags of llm_capacity_users. */
export const CAPACITY_TAGS = { useCase: 'use_case', bound: 'bound', limit: 'limit' } as const;

/** What the sessions script says of its users, beside each turn's request samples (same tags). */
export const SESSION_METRICS = {
  activeUsers: {
    name: 'llm_active_users',
    kind: 'gauge',
    isTime: false,
    unit: 'count',
    description:
      'Active users of the sessions step running (each in a conversation: in a request or thinking), sampled by ' +
      'every ' +
      "user at each turn's start: the step's users when the bench drives it, those arrived so far over a plain k6 " +
      "step's ramp.",
  },
} as const satisfies Record<string, MetricDefinition>;

/**
 * What the agentic script says of its agents (docs/guides/agentic.md): per request the cache a perfect prefix cache
 * would give, per agent step and per session their times and tokens; same cell tags, tag phase as its requests'.
 */
export const AGENT_METRICS = {
  idealCachedTokens: {
    name: 'llm_agent_ideal_cached_tokens',
    kind: 'counter',
    isTime: false,
    unit: 'tokens',
    description:
      'Prompt tokens of a completed request a perfect prefix cache serves: a continued conversation\'s previous ' +
      'prompt and answer, a new one\'s shared system prompt and tools (lib/agentic.ts idealCachedTokens).',
  },
  agentStepTime: {
    name: 'llm_agent_step_time',
    kind: 'trend',
    isTime: true,
    unit: 'ms',
    description:
      'Time of one agent step: a model call\'s start to the end of the tools (or sub-agents) it called, when the ' +
      'next call can go; a turn\'s last call is a step of its own.',
  },
  agentSessionTime: {
    name: 'llm_agent_session_time',
    kind: 'trend',
    isTime: true,
    unit: 'ms',
    description: 'Time of one whole agent session, from its first call to its last answer, think time included.',
  },
  agentSessionTokens: {
    name: 'llm_agent_session_tokens',
    kind: 'trend',
    isTime: false,
    unit: 'tokens',
    description: 'Prompt plus output tokens of every model call of one session, its sub-agents\' included (usage).',
  },
  agentModelShare: {
    name: 'llm_agent_model_share',
    kind: 'trend',
    isTime: false,
    unit: 'ratio',
    description:
      'Share of a session\'s time in which at least one of its model calls was running (the union of their spans ' +
      'over the session\'s time): what the agent waits on the model, against tools and thinking.',
  },
} as const satisfies Record<string, MetricDefinition>;

/**
 * What the embed script measures of each non-streaming embeddings or rerank request (docs/guides/embeddings.md),
 * tagged with its cell and `batch`; success and failures go to llm_request_ok and llm_errors as every request's do.
 */
export const EMBED_METRICS = {
  embedLatency: {
    name: 'llm_embed_latency',
    kind: 'trend',
    isTime: true,
    unit: 'ms',
    description:
      'Embeddings or rerank request latency: request start to the whole response body read, one sample per ' +
      'successful request (k6 http.asyncRequest timings: sending + waiting + receiving).',
  },
  embedInputTokens: {
    name: 'llm_embed_input_tokens',
    kind: 'counter',
    isTime: false,
    unit: 'tokens',
    description:
      'Input tokens of a successful embeddings or rerank request: usage.prompt_tokens (else total_tokens), else the ' +
      'requested count (input tokens x batch); tag token_source says which.',
  },
  embedItems: {
    name: 'llm_embed_items',
    kind: 'counter',
    isTime: false,
    unit: 'count',
    description: 'Inputs embedded (or documents reranked) by a successful request: its batch size.',
  },
} as const satisfies Record<string, MetricDefinition>;

/**
 * The metrics whose sample is a request's whole time, start to end, at its end: a stream's e2e, an embed request's
 * latency (it streams nothing). What ran when (the bench's time line, the spans that window the server's metrics).
 */
export const REQUEST_SPAN_KEYS = ['e2e', 'embedLatency'] as const;

export const METRICS = {
  ...REQUEST_METRICS, ...CLIENT_METRICS, ...ARRIVAL_METRICS, ...SERVER_METRICS, ...SEARCH_METRICS, ...SESSION_METRICS,
  ...AGENT_METRICS, ...EMBED_METRICS,
} as const;
export type MetricKey = keyof typeof METRICS;
/** Each metric a use-case limit may be on (thresholds/use-cases.ts), as one of the table's: a compile-time check. */
export const LIMIT_METRIC_KEYS: readonly MetricKey[] = LIMIT_METRICS;
export type RequestMetricKey = keyof typeof REQUEST_METRICS;
export type ServerMetricKey = keyof typeof SERVER_METRICS;
export type ClientMetricKey = keyof typeof CLIENT_METRICS;
export type ArrivalMetricKey = keyof typeof ARRIVAL_METRICS;
export type SessionMetricKey = keyof typeof SESSION_METRICS;
export type EmbedMetricKey = keyof typeof EMBED_METRICS;
export type AgentMetricKey = keyof typeof AGENT_METRICS;

/** The k6 metric name for a key, e.g. metricName('ttft') === 'llm_ttft'. */
export function metricName(key: MetricKey): string {
  return METRICS[key].name;
}

const BY_NAME: ReadonlyMap<string, MetricKey> = new Map(
  (Object.keys(METRICS) as MetricKey[]).map((key) => [METRICS[key].name, key]),
);

/** The table key for a k6 metric name, or undefined for a metric the suite does not define (k6 built-ins). */
export function metricKeyOf(name: string): MetricKey | undefined {
  return BY_NAME.get(name);
}

/**
 * Tags every request sample carries (docs/design/architecture.md). They are set on each cell's scenario, so k6 puts
 * them on every sample of that scenario (CSV: in extra_tags) and they become Prometheus labels.
 */
export const CELL_TAGS = ['cell', 'script', 'context', 'output', 'concurrency', 'use_case', 'profile'] as const;
export type CellTag = (typeof CELL_TAGS)[number];

/** Tags set per sample rather than per scenario. */
export const SAMPLE_TAGS = {
  errorKind: 'error_kind',
  tokenSource: 'token_source',
  /**
   * On request samples of steady-state steps: measured, warmup or transition (lib/drive.ts); only measured ones enter
   * statistics.
   */
  phase: 'phase',
  /** On request samples of the sessions script: the turn of its conversation, capped (lib/sessions.ts turnTag). */
  turn: 'turn',
  /** On request samples of the sessions script: the user's n-th conversation, capped (lib/sessions.ts sessionTag). */
  session: 'session',
  /** On the agentic script's request samples: main, sub (a sub-agent's) or compact (a compaction's summary). */
  agentCall: 'agent_call',
  /** On the agentic script's request samples: the prompt's size class, a power of two (lib/agentic.ts contextClass). */
  contextClass: 'context_class',
  /** On the embed script's samples: inputs (rerank: documents) per request. */
  batch: 'batch',
} as const;

/**
 * Sample metadata keys (k6's exec.vu.metrics.metadata): carried by the sample into the CSV `metadata`
 * column and the JSON output, but never indexed, so never a Prometheus label.
 */
export const SAMPLE_METADATA = {
  /**
   * On llm_errors samples: the server's (or transport's) message, secret redacted, one line, at most ERROR_MESSAGE_MAX
   * characters.
   */
  errorMessage: 'error_message',
  /**
   * The response's x-request-id, when it had one: on llm_embed_latency, and on a stream request's samples but llm_itl
   * and llm_errors. A user finds the request in the server's log by it, a test pairs it with the simulator's record
   * (metadata, never a tag: one value per request).
   */
  requestId: 'request_id',
} as const;
export const ERROR_MESSAGE_MAX = 200;

/** Trend statistics every summary carries: the report and the thresholds need p50..p99 and count. */
export const SUMMARY_TREND_STATS = ['avg', 'min', 'med', 'max', 'p(90)', 'p(95)', 'p(99)', 'count'] as const;
