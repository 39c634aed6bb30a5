// Every default of a plan, in one object. Runs in k6 and Node.
// It is what a run does for each field its plan leaves out (docs/reference/plan.md).
//
// Three defaults depend on other fields and are filled in while resolving (lib/plan.ts): the
// target's metricsUrl (<origin of baseUrl>/metrics), monitor.enabled (whether there is a metrics
// URL) and the capacity ladders and output lengths (each use case's own).

import { BURST_DEPTHS, BURST_TTFT_LIMIT_MS, CONTEXT_GRID, USE_CASES } from '../thresholds/use-cases';
import { SUMMARY_TREND_STATS } from './metrics';

const PROFILES = ['chatbot', 'rag', 'agentic', 'tool_calling'];

/**
 * The share of a cell's requests that must succeed for its figures to count against a use case's limits: the report's
 * capacity and the bench's search judge a step alike with it (analysis/capacity.ts ladderLimits).
 */
export const MIN_SUCCESS_RATE = 0.99;

export const PLAN_DEFAULTS = {
  target: {
    baseUrl: 'http://127.0.0.1:8000/v1',
    model: 'Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8',
    api: 'chat',
    ignoreEos: true,
    minTokens: false,
    temperature: 0,
    seed: 42,
    requestTimeoutSeconds: 600,
    // A loaded server can queue a request for minutes before its first token, but it sends the
    // response head as soon as it accepts the request, and vLLM/SGLang write a chunk per decode step.
    connectTimeoutSeconds: 10,
    firstByteTimeoutSeconds: 60,
    idleTimeoutSeconds: 120,
    powerMetricsUrl: null,
    insecureSkipTLSVerify: false,
  },
  prompts: { mode: 'unique', file: null, prefixGroups: null },
  limitStat: 'avg',
  minGoodput: null as number | null,
  sweep: { contexts: CONTEXT_GRID, concurrencies: [1, 2, 4, 6], rounds: 3, outputTokens: 1024 },
  /** The capacity search; `rounds` is measured requests per user of a step (after warm-up). */
  capacity: {
    rounds: 2, warmupRequests: 1, minMeasuredSeconds: 10, startUsers: 1, maxUsers: 256, exactBelow: 16,
    resolutionPercent: 5, maxRepeats: 4,
  },
  /**
   * The sessions script: the search's fields as capacity's, counted in turns; the plain-k6 ladder of active users and
   * how long it holds each step (conversations per use case: thresholds/sessions.ts).
   */
  sessions: {
    rounds: 2, warmupRequests: 1, minMeasuredSeconds: 10, startUsers: 1, maxUsers: 256, exactBelow: 16,
    resolutionPercent: 5, rampSeconds: 10, warmupSeconds: 10, holdSeconds: 60,
  },
  /**
   * The agentic script: steps of 1 to 8 agents, each held a ramp of 5 s, 10 s of warm-up and a minute measured (the
   * agent model and the tiers: thresholds/agentic.ts).
   */
  agentic: { agents: [1, 2, 4, 8], seed: 42, rampSeconds: 5, warmupSeconds: 10, holdSeconds: 60 },
  /**
   * The agents' search (`agentic.search`): from 4 agents, climbing at most x2 a step, each tier to one agent below 8
   * and to 10% above (a step of agents is held a ramp, a warm-up and a hold: tens of seconds each).
   */
  agenticSearch: { startAgents: 4, maxAgents: 256, exactBelow: 8, resolutionPercent: 10 },
  /** The plain-k6 ladder of active users of a use case the plan gives none for. */
  sessionUsers: [1, 2, 4, 8, 16, 32, 64],
  burst: { profiles: PROFILES, depths: BURST_DEPTHS, ttftLimitMs: BURST_TTFT_LIMIT_MS },
  mix: { profiles: PROFILES, concurrencies: [1, 2, 4, 8, 16, 32], rounds: 2 },
  /**
   * The rate script: Poisson arrivals at each rate for a minute per cell. The lag limit flags a sender that kept its
   * schedule worse than the open-loop benchmark's target (5 ms p99 at 50 requests/s) with room for a shared machine.
   * One VU sends a cell. Its first 2 s are warm-up: a server filling from empty holds its steady number of requests in
   * flight only after about one request's time, and the quick plan's code completion takes about 2 s at its capacity.
   */
  rate: {
    rates: [0.5, 1, 2, 4], durationSeconds: 60, arrival: 'poisson', burstiness: 1, seed: 42, lagLimitMs: 10,
    senders: 1, warmupSeconds: 2,
  },
  /** The rate search (`rate.search`): from 1 request/s, climbing at most x2 a step, to 5%. */
  rateSearch: { startRate: 1, maxRate: 1000, resolutionPercent: 5 },
  /** The trace's speed search (`trace.search`): from its recorded speed, to 5%. */
  traceSearch: { startSpeed: 1, maxSpeed: 100, resolutionPercent: 5 },
  /**
   * The trace script: the trace at its recorded speed, judged by a chat use case's limits (TTFT and streaming speed
   * are what a trace's mixed requests share).
   */
  trace: { speeds: [1], useCase: 'short_chatbot' },
  /**
   * The embed script: 512-token inputs one and sixteen to a request, up to 32 users; a second at p99 is a retrieval
   * step a RAG answer can wait for.
   */
  embed: {
    kind: 'embeddings', inputTokens: [512], batchSizes: [1, 16], concurrencies: [1, 4, 16, 32], rounds: 5,
    limit: { p99LatencyMs: 1000 },
  },
  /** Used by the gate script, and by any script whose plan has a gate section. */
  gate: { useCase: 'general_chatbot', concurrency: 4, rounds: 2, minSuccessRate: 0.99 },
  schedule: {
    gapSeconds: 2, prefillTokensPerSecond: 5000, decodeTokensPerSecond: 50, safetyFactor: 2, minCellSeconds: 10,
    cellSeconds: null, predictedCellSeconds: null,
  },
  monitor: { intervalSeconds: 1 },
  useCases: USE_CASES,
  /** The ladder of a use case the plan defines without one. */
  useCaseConcurrencies: [1, 2, 4, 8],
  summaryTrendStats: SUMMARY_TREND_STATS,
} as const;
