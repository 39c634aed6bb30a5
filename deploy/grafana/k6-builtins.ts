// The series the dashboard reads that are not in lib/metrics.ts: k6's built-in metrics and Prometheus' `up`.
// Runs in Node.

import type { Matcher } from './promql';

/** k6 built-ins, already in their remote-write form. */
export const K6_BUILTIN_SERIES = {
  /** Gauge: VUs running, per runner. */
  vus: 'k6_vus',
  /**
   * Counter: one per HTTP request k6 made, pushed when it ended. k6 never sees the LLM server: each LLM request is
   * one loopback call to the measuring agent, which answers 200 with the request's record, so status, duration and
   * http_req_failed are the agent's. Read it only with AGENT_CALLS, as the number of LLM requests ended (the calls
   * the agent answered "cancelled" as the run stopped count too); never by status.
   */
  httpReqs: 'k6_http_reqs_total',
  /** Counter: iterations an arrival-rate executor could not start. */
  droppedIterations: 'k6_dropped_iterations_total',
} as const;

/**
 * The `name` tag on k6's calls to the measuring agent: AGENT_CALL_NAME of lib/k6/llm.ts, which runs in k6 only and
 * so cannot be imported here (a test holds the two equal). The bench's control calls (name=bench-control) carry a
 * cell's tags too and the monitor's scrapes have names of their own, so the name is what tells the agent calls apart.
 */
export const AGENT_CALL_NAME = 'llm-agent';

/** Selects k6's calls to the measuring agent among its HTTP samples: one per LLM request. */
export const AGENT_CALLS: Matcher = { label: 'name', op: '=', value: AGENT_CALL_NAME };

/** Prometheus' own per-target series, used to list scrape jobs. */
export const PROMETHEUS_UP = 'up';
