// What the real-server e2e tests (vLLM, SGLang) check alike: streams, the gate, the suite against the server's own
// clock, the prefix cache, abandoned and killed requests, and the bench interrupted. Runs in Node (vitest).

import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { METRICS } from '../../lib/metrics';
import type { ClientBoundCause } from '../../analysis/client-bound';
import type { LeftOut } from '../../analysis/server-metrics';
import { clientBoundWords } from '../../report/capacity-words';
import { parsePrometheusText, readServerSnapshot, type ServerSnapshot } from '../../lib/prometheus';
import { groupMembers } from '../../orchestrator/process-group';
import { requestPrefix } from '../../lib/prompt-text';
import {
  extraTags, readCsv, readJson, runBenchCli, runScript, tempDir, testAgent, writePlan,
} from './helpers';
import { expectRateSearch, shortRateSearch } from './real-server-rate';

/** The part of a started vLLM or SGLang these checks use. */
export interface RealServer {
  /** http://127.0.0.1:<port> (no /v1). */
  readonly base: string;
  readonly model: string;
  readonly group: { readonly pgid: number };
  stop(): Promise<void>;
}

export interface Chunk {
  choices: { delta?: { content?: string }; finish_reason?: string | null }[];
  usage?: {
    prompt_tokens: number; completion_tokens: number; prompt_tokens_details?: { cached_tokens: number } | null;
  };
}

export interface Streamed {
  status: number;
  chunks: Chunk[];
  body: string;
}

/** The JSON body of a streamed chat completion of exactly `maxTokens` tokens, usage asked for. */
export function chatBody(model: string, content: string, maxTokens: number): string {
  return JSON.stringify({
    model, messages: [{ role: 'user', content }], max_tokens: maxTokens, ignore_eos: true, stream: true,
    stream_options: { include_usage: true },
  });
}

/** A streamed chat completion, read to the end: its chunks, in order. */
export async function streamChat(server: RealServer, content: string, maxTokens: number): Promise<Streamed> {
  const res = await fetch(`${server.base}/v1/chat/completions`, {
    method: 'POST', headers: { 'content-type': 'application/json' }, body: chatBody(server.model, content, maxTokens),
  });
  const body = await res.text();
  const data = body.split('\n').filter((l) => l.startsWith('data: ') && l !== 'data: [DONE]');
  return { status: res.status, chunks: data.map((l) => JSON.parse(l.slice(6)) as Chunk), body };
}

export interface AgentRecord {
  outcome: string; errorKind?: string; errorMessage?: string; outputTokens: number; outputTokenSource: string;
  inputTokens: number; cachedTokens: number | null; itlMs: number[]; ttftMs: number; e2eMs: number;
}

export interface AgentAnswer {
  record: AgentRecord;
  events?: { data: string }[];
}

/** One streamed chat request through the measuring agent (the path every k6 request takes). */
export async function viaAgent(
  agent: string, server: RealServer, content: string, maxTokens: number,
  opts: { timeout?: string; events?: boolean } = {},
): Promise<AgentAnswer> {
  const res = await fetch(`${agent}/stream`, {
    method: 'POST',
    body: JSON.stringify({
      url: `${server.base}/v1/chat/completions`, headers: { 'content-type': 'application/json' },
      body: chatBody(server.model, content, maxTokens), timeout: opts.timeout ?? '120s',
      requestedOutputTokens: maxTokens, events: opts.events ?? false,
    }),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as AgentAnswer;
}

/** The server's own figures now, from its /metrics. */
export async function scrape(server: RealServer): Promise<ServerSnapshot> {
  return readServerSnapshot(parsePrometheusText(await (await fetch(`${server.base}/metrics`)).text()));
}

/** Polls the server's running-requests gauge until it reads 0 (or the deadline); returns the last reading. */
export async function runningAfter(server: RealServer, deadlineMs: number): Promise<number | null> {
  const until = Date.now() + deadlineMs;
  let running = await scrape(server).then((s) => s.running);
  while (running !== 0 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 250));
    running = await scrape(server).then((s) => s.running);
  }
  return running;
}

export const TINY_USE_CASES = [
  {
    id: 'tiny_chat', title: 'Tiny chat', contextTokens: 512, outputTokens: 16,
    limits: [{ metric: 'ttft', operator: '<', value: 20_000 }],
  },
  {
    id: 'impossible', title: 'Impossible', contextTokens: 512, outputTokens: 16,
    limits: [{ metric: 'e2e', operator: '<', value: 1 }],
  },
];
export const GATE_SCHEDULE = {
  prefillTokensPerSecond: 2000, decodeTokensPerSecond: 20, safetyFactor: 3, minCellSeconds: 5, gapSeconds: 0.5,
};

/** The deploy gate on k6 against the server: exit 0 within its limits, 99 beyond them, every request completed. */
export async function expectGate(v1: string, model: string): Promise<void> {
  const env = { BASE_URL: v1, MODEL: model };
  const gate = (useCase: string, rounds: number) => runScript(
    'gate', { useCases: TINY_USE_CASES, gate: { useCase, concurrency: 2, rounds }, schedule: GATE_SCHEDULE }, env,
  );
  const pass = await gate('tiny_chat', 2);
  expect(pass.exitCode, pass.stderr.slice(-2000)).toBe(0);
  const fail = await gate('impossible', 1);
  expect(fail.exitCode, fail.stderr.slice(-2000)).toBe(99);
  // The verdict comes from the limits, not from failures.
  for (const run of [pass, fail]) {
    const ok = readCsv(path.join(run.dir, 'samples.csv')).rows.filter((r) => r.metric_name === METRICS.requestOk.name);
    expect(ok.length).toBeGreaterThan(0);
    expect(ok.every((r) => Number(r.metric_value) === 1), run.stderr.slice(-1000)).toBe(true);
  }
}

/** One cell's means as the suite and as the server's own histograms had them (report.json). */
export interface CellClock {
  readonly id: string;
  readonly requests: number;
  /** Why the report says the load generator limited the cell, or null. */
  readonly clientBound: string | null;
  readonly suite: { ttft: number; itl: number; e2e: number };
  readonly server: { ttft: number | null; itl: number | null; e2e: number | null };
}

interface ReportCell {
  id: string; succeeded: number; clientBound: ClientBoundCause | null;
  metrics: Record<'ttft' | 'itl' | 'e2e', { mean: number } | null>;
  server: { serverTtftMs: number | null; serverItlMs: number | null; serverE2eMs: number | null } | null;
}

/**
 * `npm run bench -- --url` against the running server: a sweep of 1K prompts at 1 and 4 users, monitored every 0.5 s;
 * each cell's clock from report.json.
 */
export async function clockSweep(server: RealServer) {
  const dir = tempDir('clock');
  const plan = {
    sweep: { contexts: [1024], concurrencies: [1, 4], rounds: 3, outputTokens: 64 }, monitor: { intervalSeconds: 0.5 },
  };
  const bench = await runBenchCli([
    '--url', `${server.base}/v1`, '--model', server.model, '--plan', writePlan(dir, plan), '--scripts', 'sweep',
    '--results', dir, '--run-id', 'clock',
  ]);
  expect(bench.exitCode, bench.stderr.slice(-3000)).toBe(0);
  const cells = readJson<{ cells: ReportCell[] }>(path.join(dir, 'clock', 'report.json')).cells;
  const md = readFileSync(path.join(dir, 'clock', 'report.md'), 'utf8');
  const clocks: CellClock[] = cells.filter((c) => c.succeeded > 0).map((c) => ({
    id: c.id, requests: c.succeeded, clientBound: c.clientBound && clientBoundWords(c.clientBound),
    suite: { ttft: c.metrics.ttft!.mean, itl: c.metrics.itl!.mean, e2e: c.metrics.e2e!.mean },
    server: {
      ttft: c.server?.serverTtftMs ?? null, itl: c.server?.serverItlMs ?? null, e2e: c.server?.serverE2eMs ?? null,
    },
  }));
  return { clocks, md };
}

/** How far below the server's own figure the suite's may read: see expectClockAgreement. */
const CLOCKS_MS = 1;

/**
 * Issue 31's agreement targets per cell: the suite's TTFT and e2e never below the server's own, mean TTFT within
 * 5% + 20 ms of the server's TTFT histogram beyond the time the whole request spent outside the server's clock (the
 * suite's e2e over the server's, itself within 5% + 20 ms), mean ITL within 5% of its inter-token histogram. CI of
 * 2026-12-06: SGLang's 3 requests at 1 user read TTFT 165.0 / 129.7 ms and e2e 1863.3 / 1829.5 ms, the same 34 ms
 * outside its clock in both, spent in its HTTP front end before its histograms start. "Never below" to within
 * CLOCKS_MS: the two are read on different clocks (the server's perf_counter in its own process, the agent's kernel
 * receive stamps), and SGLang's e2e mean once came out 0.26 ms (0.02%) above the suite's over three 1.5 s requests.
 * A cell the report flags client-bound must agree all the same; the flag itself is not judged: it reads how late the
 * agent was scheduled, which a busy machine sets (CI, stop 36: 11.8 ms p99 against 14 ms gaps, ITL still 17.07 against
 * vLLM's 17.1). That the server keeps off the client's core, the cause issue 31 found, is expectOnLastCore's to check.
 */
export function expectClockAgreement(name: string, clocks: readonly CellClock[]): void {
  expect(clocks.length).toBe(2);
  const lines = clocks.map((c) => {
    const f = (v: number | null) => (v === null ? 'n/a' : v.toFixed(1));
    return `${name} ${c.id} (${c.requests} req): TTFT ${f(c.suite.ttft)} / ${f(c.server.ttft)} ms, ` +
      `ITL ${c.suite.itl.toFixed(2)} / ${f(c.server.itl)} ms, e2e ${f(c.suite.e2e)} / ${f(c.server.e2e)} ms` +
      (c.clientBound ? ` (client-bound: ${c.clientBound})` : '');
  });
  console.log(lines.join('\n'));
  for (const [i, c] of clocks.entries()) {
    const { ttft, itl, e2e } = c.server;
    expect([ttft, itl, e2e], lines[i]).not.toContain(null);
    expect(c.suite.ttft, lines[i]).toBeGreaterThanOrEqual(ttft! - CLOCKS_MS);
    // Time before the server's clock starts (its HTTP front end, waiting for the one core the server is pinned to)
    // is in the suite's TTFT and e2e alike: bounded on the e2e, and not counted against the TTFT a second time.
    const outside = c.suite.e2e - e2e!;
    expect(outside, lines[i]).toBeLessThanOrEqual(0.05 * e2e! + 20);
    expect(c.suite.ttft - ttft!, lines[i]).toBeLessThanOrEqual(Math.max(0, outside) + 0.05 * ttft! + 20);
    expect(c.suite.e2e, lines[i]).toBeGreaterThanOrEqual(e2e! - CLOCKS_MS);
    expect(Math.abs(c.suite.itl - itl!), lines[i]).toBeLessThanOrEqual(0.05 * itl!);
  }
}

/** A capacity step's server figures as report.json has them, beside what its samples say. */
interface StepClock {
  readonly id: string;
  readonly users: number;
  readonly measured: number;
  readonly suiteTtft: number;
  readonly serverTtft: number | null;
  readonly leftOut: LeftOut | null;
}

interface ReportStep {
  id: string; concurrency: number; metrics: { ttft: { mean: number } | null };
  server: {
    serverTtftMs: number | null; leftOut: LeftOut | null;
    scrapes: { fromMs: number; toMs: number; requests: number }[] | null;
  } | null;
}

/**
 * Issue 46, cell by cell over a run's capacity steps, judged on the raw samples rather than the report's own reading:
 * a step with a server TTFT was read between two scrapes that hold every measured request of the step and no other
 * request of the part (any step's, any phase), the server's TTFT count grew there by exactly the requests the client
 * measured, and its mean is not above the client's (to within CLOCKS_MS); a step without one says why. Every one-user
 * step has one: the driver waits out a quiet gap at its edges. Returns a line per step.
 */
export function expectStepClocks(runDir: string): { lines: string[]; steps: StepClock[] } {
  const cells = readJson<{ cells: ReportStep[] }>(path.join(runDir, 'report.json')).cells
    .filter((c) => c.id.startsWith('capacity_'));
  const rows = readCsv(path.join(runDir, 'capacity', 'samples.csv')).rows;
  const counts = new Map(rows.filter((r) => r.metric_name === METRICS.serverTtftCount.name)
    .map((r) => [Number(r.timestamp), Number(r.metric_value)]));
  const spans = rows.filter((r) => r.metric_name === METRICS.e2e.name).map((r) => {
    const t = extraTags(r);
    const end = Number(r.timestamp);
    return { cell: t.cell!, measured: t.phase === 'measured', start: end - Number(r.metric_value), end };
  });
  const steps = cells.map((c): StepClock => {
    const own = spans.filter((x) => x.cell === c.id && x.measured);
    const step: StepClock = {
      id: c.id, users: c.concurrency, measured: own.length, suiteTtft: c.metrics.ttft!.mean,
      serverTtft: c.server?.serverTtftMs ?? null, leftOut: c.server?.leftOut ?? null,
    };
    const line = `${c.id}: ${own.length} measured, TTFT ${step.suiteTtft.toFixed(1)} / ${step.serverTtft?.toFixed(1)}`;
    if (step.serverTtft === null) {
      expect(step.leftOut, `${line}: a step without the server's TTFT says why`).not.toBeNull();
      return step;
    }
    // A step measured again is read over each stretch of its requests, each between scrapes of its own.
    const pairs = c.server!.scrapes!;
    const counted = pairs.map((p) => counts.get(p.toMs)! - counts.get(p.fromMs)!);
    expect(counted.reduce((a, b) => a + b, 0), `${line}: the server's count between its scrapes`).toBe(own.length);
    expect(pairs.map((p) => p.requests), line).toEqual(counted);
    const inside = (x: { start: number; end: number }) => pairs.some((p) => x.start >= p.fromMs && x.end <= p.toMs);
    for (const x of own) expect(inside(x), `${line}: its request inside its scrapes`).toBe(true);
    const others = spans.filter((x) => !(x.cell === c.id && x.measured));
    for (const x of others) {
      const apart = pairs.every((p) => x.end <= p.fromMs || x.start >= p.toMs);
      expect(apart, `${line}: ${x.cell} outside its scrapes`).toBe(true);
    }
    expect(step.suiteTtft, line).toBeGreaterThanOrEqual(step.serverTtft - CLOCKS_MS);
    return step;
  });
  for (const s of steps.filter((x) => x.users === 1)) expect(s.serverTtft, JSON.stringify(s)).not.toBeNull();
  const lines = steps.map((s) => `${s.id} (${s.measured} req): TTFT ${s.suiteTtft.toFixed(1)} / ` +
    `${s.serverTtft === null ? `left out: ${JSON.stringify(s.leftOut)}` : `${s.serverTtft.toFixed(1)} ms`}`);
  return { lines, steps };
}

/** The capacity search's prompts and answers on a real server: prefill-bound, so a step's e2e grows with its users. */
const SEARCH_CONTEXT = 1024;
const SEARCH_OUTPUT = 4;

/** The mean e2e of three requests alone, through the agent, with prompts as long as the search's (unique: no cache). */
async function aloneE2eMs(server: RealServer): Promise<number> {
  const agent = await testAgent();
  let total = 0;
  for (let i = 0; i < 3; i++) {
    const prompt = requestPrefix('unique', 46, 1, i) + 'word '.repeat(SEARCH_CONTEXT - 40);
    const { record } = await viaAgent(agent, server, prompt, SEARCH_OUTPUT);
    expect(record.outcome).toBe('completed');
    total += record.e2eMs;
  }
  return total / 3;
}

/**
 * Issue 46 on a real server: `npm run bench -- --scripts capacity,rate` searches a use case whose e2e limit is 2.6
 * times one request's alone, so the search climbs (1, 2, 3 users: a prefill-bound server's e2e grows about as its
 * users) until a step breaks it, and drops: to the one-user probe measured again (a real server's requests vary by more
 * than the 0.5% that asks for it), or back below a step that overshot; monitored every 0.5 s. Each step's server
 * figures are then judged cell by cell on the raw samples (expectStepClocks). vLLM, 2026-12-05, loaded machine:
 * 25 s, steps 1 2 3 1. The same bench run then searches the use case's capacity in requests per second (issue 43,
 * test/e2e/real-server-rate.ts). Returns a line per step.
 */
export async function expectSearchClocks(server: RealServer): Promise<string[]> {
  const limitMs = 2.6 * (await aloneE2eMs(server));
  const dir = tempDir('search-clock');
  const useCase = {
    id: 'tiny_search', title: 'Tiny search', contextTokens: SEARCH_CONTEXT, outputTokens: SEARCH_OUTPUT,
    limits: [{ metric: 'e2e', operator: '<', value: Math.round(limitMs) }],
  };
  const plan = {
    useCases: [useCase], monitor: { intervalSeconds: 0.5 },
    capacity: { useCases: ['tiny_search'], rounds: 1, minMeasuredSeconds: 1, maxUsers: 8, maxRepeats: 0 },
    // The same use case in requests per second (issue 43), from one request's alone time each: one in flight.
    rate: shortRateSearch('tiny_search', 1000 / (limitMs / 2.6)),
  };
  const bench = await runBenchCli([
    '--url', `${server.base}/v1`, '--model', server.model, '--plan', writePlan(dir, plan), '--scripts', 'capacity,rate',
    '--results', dir, '--run-id', 'search',
  ]);
  expect(bench.exitCode, bench.stderr.slice(-3000)).toBe(0);
  // The steps in the order the search measured them: it climbed, and it dropped after a step broke the limit.
  const users = [...bench.stderr.matchAll(/tiny_search at (\d+) users?: /g)].map((m) => Number(m[1]));
  const moves = users.slice(1).map((n, i) => n - users[i]!);
  expect(moves.some((d) => d > 0) && moves.some((d) => d < 0), `steps ${users.join(' ')}`).toBe(true);
  const { lines } = expectStepClocks(path.join(dir, 'search'));
  const rate = expectRateSearch(path.join(dir, 'search'), bench.stderr, 'tiny_search', limitMs);
  return [`e2e limit ${Math.round(limitMs)} ms; steps ${users.join(' ')}`, ...lines, ...rate];
}

/**
 * Every process of the server runs on the machine's last core only (K6_LLM_VLLM_CORES / K6_LLM_SGLANG_CORES = 1):
 * unpinned, its API server took the core k6 and the agent ran on, and every cell was flagged client-bound.
 */
export function expectOnLastCore(server: RealServer): void {
  const last = String(cpus().length - 1);
  const allowed = groupMembers(server.group.pgid).map((pid) => {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return /^Cpus_allowed_list:\s*(\S+)/m.exec(status)?.[1];
  });
  expect(allowed.length).toBeGreaterThan(1);
  expect(new Set(allowed)).toEqual(new Set([last]));
}

/**
 * Two requests the client gives up on after 1 s (4,000 tokens asked): each a timeout, and the server, seeing the
 * connections close, stops running them (its running gauge back to 0).
 */
export async function expectAbandonedFreed(agent: string, server: RealServer): Promise<void> {
  const answers = await Promise.all([0, 1].map((i) =>
    viaAgent(agent, server, `Count to a thousand, run ${i}.`, 4000, { timeout: '1s' })));
  expect(answers.map((a) => a.record.errorKind)).toEqual(['timeout', 'timeout']);
  expect(await runningAfter(server, 15_000)).toBe(0);
}

/**
 * k6 sends the same 1K prompt twice (shared-prefix mode): the second request's llm_cached_tokens are the tokens the
 * server's own counters say it found cached. Returns the server's figures before and after, and the cached tokens.
 */
export async function cachedTokensRun(server: RealServer) {
  const before = await scrape(server);
  const run = await runScript(
    'sweep',
    {
      sweep: { contexts: [1024], concurrencies: [1], rounds: 2, outputTokens: 4 }, prompts: { mode: 'shared-prefix' },
      target: { metricsUrl: null },
    },
    { BASE_URL: `${server.base}/v1`, MODEL: server.model },
  );
  expect(run.exitCode, run.stderr.slice(-2000)).toBe(0);
  const after = await scrape(server);
  const rows = readCsv(path.join(run.dir, 'samples.csv')).rows;
  const cached = rows.filter((r) => r.metric_name === METRICS.cachedTokens.name).map((r) => Number(r.metric_value));
  const requests = rows.filter((r) => r.metric_name === METRICS.requestOk.name).length;
  return { before, after, cached, requests };
}

/**
 * The server's HTTP process killed (SIGKILL) while a 4,000-token answer streams: the request ends as a stream failure,
 * nothing crashes; then stopping the server leaves none of its processes.
 */
export async function expectKilledMidStream(agent: string, server: RealServer, minProcesses: number): Promise<void> {
  const { pgid } = server.group;
  expect(groupMembers(pgid).length, 'the server runs as several processes').toBeGreaterThanOrEqual(minProcesses);
  const answer = viaAgent(agent, server, 'Tell a long story.', 4000);
  // Kill once tokens are streaming: the server reports a request running, then give it half a second of tokens.
  for (let i = 0; i < 100 && (await scrape(server)).running !== 1; i++) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 500));
  process.kill(pgid, 'SIGKILL');
  const { record } = await answer;
  expect(record.outcome).toBe('errored');
  expect(['stream_error', 'truncated']).toContain(record.errorKind);
  await server.stop();
  expect(groupMembers(pgid)).toEqual([]);
  await expect(fetch(`${server.base}/health`)).rejects.toThrow();
}

/**
 * `npm run bench -- --url --api <api>` against the running server: a sweep of 512-token prompts at 1 and 2 users, 16
 * tokens out; every request completes, with the planned prompt length by the server's own usage on that API, and
 * the planned output less `outputShortBy` (a server that keeps some of the cap for itself).
 */
export async function expectApiSweep(
  server: Pick<RealServer, 'base' | 'model'>, api: 'responses' | 'messages', outputShortBy = 0,
): Promise<void> {
  const dir = tempDir(`api-${api}`);
  const plan = { sweep: { contexts: [512], concurrencies: [1, 2], rounds: 2, outputTokens: 16 } };
  const bench = await runBenchCli([
    '--url', `${server.base}/v1`, '--model', server.model, '--api', api, '--plan', writePlan(dir, plan),
    '--scripts', 'sweep', '--results', dir, '--run-id', api,
  ]);
  expect(bench.exitCode, bench.stderr.slice(-3000)).toBe(0);
  const rows = readCsv(path.join(dir, api, 'sweep', 'samples.csv')).rows;
  expect(rows.filter((r) => r.metric_name === METRICS.requestOk.name).map((r) => Number(r.metric_value)))
    .toEqual(Array(6).fill(1));
  expectExactLengths(path.join(dir, api), ['sweep'], outputShortBy);
}

/** Every prompt and output length of the parts is the planned one, as the server's usage counted it. */
export function expectExactLengths(runDir: string, parts: readonly string[], outputShortBy = 0): void {
  const tokenMetrics: string[] = [METRICS.inputTokens.name, METRICS.outputTokens.name];
  let checked = 0;
  for (const part of parts) {
    const rows = readCsv(path.join(runDir, part, 'samples.csv')).rows;
    for (const row of rows.filter((r) => tokenMetrics.includes(r.metric_name!))) {
      const tags = extraTags(row);
      expect(tags.token_source).toBe('usage');
      const planned = row.metric_name === METRICS.inputTokens.name ? tags.context : Number(tags.output) - outputShortBy;
      expect(Number(row.metric_value), `${part} ${tags.cell} ${row.metric_name}`).toBe(Number(planned));
      checked++;
    }
  }
  expect(checked).toBeGreaterThanOrEqual(12);
}
