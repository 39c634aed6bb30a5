// The k6 side of an entry script. Runs in k6 (bundled).
// It loads the plan and prompts in init, runs one request per iteration, runs the monitor and writes the summary.

import exec from 'k6/execution';
import http from 'k6/http';
import { sleep } from 'k6';
import { SharedArray } from 'k6/data';
import { applyEnvToPlan } from '../env';
import { buildOptions, cellTags, plannedRequests, type SuiteOptions } from '../options';
import {
  drawnArrivals, PlanError, planPromptForm, promptForm, resolvePlan, usesBlockPrompts, type Cell, type Plan,
  type PlanInput,
  type ScriptName,
  type TraceConfig,
} from '../plan';
import {
  approximatePromptSet, findFollowUp, findPrompt, preparedLength, promptText, readPromptSet, requestPrefix, type PreparedPrompt,
} from '../prompt-set';
import { parsePrometheusText, readServerSnapshot, type ServerSnapshot } from '../prometheus';
import { buildStreamingRequest } from '../request';
import { readSummaryData } from '../summary-data';
import { renderTextSummary } from '../summary-text';
import { nowMs, pause } from './clock';
import { recordCapacities, recordServerSnapshot } from './metrics';
import { sendRequest, type SentRequest } from './llm-request';
import {
  CONTROL_PATHS, parseDoneAnswer, parseNextAnswer, parseStatusAnswer, type DoneReport, type StatusAnswer, type Ticket,
} from '../drive';
import type { RequestRecord } from '../record';
import { CELL_TAGS, SAMPLE_TAGS } from '../metrics';
import { segmentPosition } from '../segments';
import { cellShare, cellsWithoutShare, RUNNER_FILE, runnerLabel, runnerOf, type RunnerInfo, type SegmentOptions } from '../runner';
import { runOpenLoop, type OpenLoopSchedule } from './open-loop';
import {
  approximateVocabulary, cellSalt, createBlockPrompter, groupPromptText, type BlockPrompter, type BlockVocabulary,
} from '../block-prompt';
import { arrivalTimesMs } from '../arrivals';
import { FILLER_WORDS } from '../prompt-text';
import { loadReplay, replayScheduleMs, type ReplayRow } from '../trace-replay';
import { sessionUser, type SessionUser } from './sessions';
import { sendEmbed, type EmbedResult } from './embed';

/**
 * Passed from setup() to every VU and to handleSummary: a per-run number that makes prompt prefixes unique
 * across runs, and in a split run which runner this process is (written to runner.json at the end).
 */
export interface SetupData {
  readonly runNonce: number;
  readonly runner?: RunnerInfo | null;
}

/**
 * In a split run the monitor's runner sees only its own share end; the other runners' last requests end
 * about then too (every runner has its share of every cell, started together), so it scrapes this much
 * longer to cover them, within the last cell's slot.
 */
const SPLIT_MONITOR_TAIL_MS = 5000;

/**
 * In a split run each runner's cells start when its setup() returns, and setup() starts only after k6
 * has initialised a VU for it, which takes each runner its own time (tens of ms on a busy machine). So
 * setup() returns this long after the runner was resumed: runners resumed together start their cells
 * together, and the first round of a cell is one burst across runners, as in one process.
 */
const SPLIT_START_AFTER_RESUME_MS = 1000;
/** The monitor's last scrape comes at least this long after the last request. */
const FINAL_SCRAPE_AFTER_MS = 1000;
/** The server's figures now, from its /metrics (and the power exporter's); null when the scrape failed. */
async function scrapeServer(target: Plan['target']): Promise<ServerSnapshot | null> {
  try {
    const res = await http.asyncRequest('GET', target.metricsUrl!, null, { tags: { name: 'metrics' }, timeout: '10s' });
    if (res.status !== 200 || typeof res.body !== 'string') return null;
    let text = res.body;
    if (target.powerMetricsUrl) {
      const power = await http.asyncRequest('GET', target.powerMetricsUrl, null, {
        tags: { name: 'power-metrics' }, timeout: '10s',
      });
      if (power.status === 200 && typeof power.body === 'string') text += '\n' + power.body;
    }
    return readServerSnapshot(parsePrometheusText(text));
  } catch {
    // A failing metrics endpoint must not end the monitor: the scrape is recorded as failed.
    return null;
  }
}

/** This process's place in a split run, from k6's options (VU context only: k6 has no options in init). */
function splitRunner(): ReturnType<typeof runnerOf> {
  return runnerOf(exec.test.options as unknown as SegmentOptions);
}

export interface Suite {
  readonly plan: Plan;
  readonly options: SuiteOptions;
  setup(): SetupData;
  request(data: SetupData): Promise<void>;
  monitor(): Promise<void>;
  teardown(): Promise<void>;
  handleSummary(data: unknown): Record<string, string>;
}

function readJsonFile(path: string, what: string): unknown {
  let text: string;
  try {
    text = open(path);
  } catch (e) {
    throw new PlanError(`${what} "${path}" cannot be read: ${String(e)}`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new PlanError(`${what} "${path}" is not valid JSON: ${String(e)}`);
  }
}

/**
 * Loads and validates the plan once per k6 process, in the first VU's init: every other VU takes a copy of the
 * resolved plan from a SharedArray and never builds the plan's schemas (about 2 MB per VU when each VU resolved
 * it). A plan error crosses as its message, to be thrown as the same PlanError in every VU.
 */
function loadPlan(script: ScriptName): Plan {
  type Entry = { plan?: Plan; error?: string };
  const shared = new SharedArray(`plan:${script}`, (): Entry[] => {
    try {
      const file: PlanInput = __ENV.PLAN ? (readJsonFile(__ENV.PLAN, 'PLAN') as PlanInput) : {};
      return [{ plan: resolvePlan(applyEnvToPlan(file, __ENV), script, (path) => open(path)) }];
    } catch (e) {
      if (e instanceof PlanError) return [{ error: e.message }];
      throw e;
    }
  });
  const entry = shared[0]!;
  if (entry.error !== undefined) throw new PlanError(entry.error);
  return entry.plan!;
}

interface PromptStore {
  readonly tokenizer: string;
  readonly exact: boolean;
  /** The prompt for a context length; SharedArray hands out a copy per access, so only the one needed is copied. */
  get(contextTokens: number): PreparedPrompt;
  /** The follow-up message of a length (the sessions script's later turns). */
  followUp(tokens: number): PreparedPrompt;
  /**
   * Builds prompts of one-token words (trace replay, prefix groups: lib/block-prompt.ts) from the prepared vocabulary,
   * approximate when the set has none; null when the plan builds none. Its pool is drawn in init (about 0.1 s), so an
   * open-loop cell's first request is not late by it.
   */
  readonly blockPrompt: BlockPrompter | null;
}

function loadPrompts(plan: Plan): PromptStore {
  // A trace cell's prompts are built per row from the vocabulary: its context is only the longest row's.
  const contexts = Array.from(new Set(plan.cells.filter((c) => c.script !== 'trace').map((c) => c.contextTokens)));
  const followUps = Array.from(new Set(Object.values(plan.sessions?.models ?? {}).map((m) => m.growthTokens)));
  const file = plan.prompts.file;
  // Element 0 describes the set; elements 1.. are the prompts in `contexts` order, then the follow-ups in
  // `followUps` order. VUs share one copy of the (large) bodies, and a request copies only the element it reads.
  const shared = new SharedArray('prompts', () => {
    // Chat prompts are counted with the chat template around them: the other form would be off by its length.
    // An embed plan's inputs are raw text whatever its API (lib/plan.ts planPromptForm).
    const form = planPromptForm(plan);
    const api = form === promptForm(plan.target.api) ? plan.target.api : 'completions';
    const set = file
      ? readPromptSet(readJsonFile(file, 'PROMPTS'), file)
      : approximatePromptSet(plan.target.model, api, contexts, followUps);
    if (promptForm(set.api) !== form)
      throw new PlanError(
        `PROMPTS "${file}" were prepared for the ${set.api} API but the plan uses ${api}; run npm run ` +
        `prepare-prompts -- --api ${api}`,
      );
    const chat = form === 'chat';
    const vocabulary = set.blockVocabulary ?? approximateVocabulary(FILLER_WORDS, chat);
    // Without a prepared vocabulary block prompts' lengths are approximate: say so as for any approximate prompt.
    const exact = set.exact && (!usesBlockPrompts(plan) || set.blockVocabulary !== undefined);
    const info = { tokenizer: set.tokenizer, exact, vocabulary };
    const found = contexts.map((c) => findPrompt(set, c));
    const groups = plan.prompts.prefixGroups;
    // A prompt fitted to the server's window may have left no room for a suffix behind the group's prefix.
    const short = groups ? found.find((p) => preparedLength(p) <= groups.prefixTokens) : undefined;
    if (short)
      throw new PlanError(
        `plan field "prompts.prefixGroups.prefixTokens" ${groups!.prefixTokens} leaves no suffix in the ` +
        `${preparedLength(short)}-token prompts of context ${short.contextTokens}, fitted to the server's window`,
      );
    return [info, ...found, ...followUps.map((f) => findFollowUp(set, f))];
  });
  const info = shared[0] as { tokenizer: string; exact: boolean; vocabulary: BlockVocabulary };
  return {
    tokenizer: info.tokenizer,
    exact: info.exact,
    blockPrompt: usesBlockPrompts(plan) ? createBlockPrompter(info.vocabulary) : null,
    get(contextTokens: number): PreparedPrompt {
      return shared[contexts.indexOf(contextTokens) + 1] as PreparedPrompt;
    },
    followUp(tokens: number): PreparedPrompt {
      return shared[contexts.length + followUps.indexOf(tokens) + 1] as PreparedPrompt;
    },
  };
}

/** Who sends a request: the run's nonce, the user and its iteration (its prefix line), and its number in the cell. */
interface RequestIds {
  readonly runNonce: number;
  readonly vu: number;
  readonly iteration: number;
  /** Unique within the cell, in the order its requests are sent: a prefix group's request n goes to group n mod N. */
  readonly n: number;
}

/**
 * A request's prompt, of the prepared length: the prepared body behind its prefix line, or with prefix groups its
 * group's prefix and a suffix of its own (lib/block-prompt.ts groupPromptText).
 */
function requestPrompt(
  plan: Plan, prompts: PromptStore, cell: Pick<Cell, 'id' | 'contextTokens'>, ids: RequestIds,
): string {
  const prompt = prompts.get(cell.contextTokens);
  const groups = plan.prompts.prefixGroups;
  if (groups === null) return promptText(prompt, requestPrefix(plan.prompts.mode, ids.runNonce, ids.vu, ids.iteration));
  return groupPromptText(groups, ids.n, preparedLength(prompt), cellSalt(ids.runNonce, cell.id), prompts.blockPrompt!);
}

/** The replayed trace's rows, loaded once per k6 process (the plan already checked the file). */
function loadTraceRows(trace: TraceConfig | null): readonly ReplayRow[] {
  if (trace === null) return [];
  return new SharedArray('trace-rows', () => [...loadReplay(open(trace.file), trace).rows]);
}

/** A trace cell's schedule: the rows' times at its speed, each turn after the turn it follows. */
function traceSchedule(rows: readonly ReplayRow[], speed: number): OpenLoopSchedule {
  const atMs = replayScheduleMs(rows, speed);
  return { atMs, durationMs: Math.max(1, atMs[atMs.length - 1]!), after: (i) => rows[i]!.parent };
}

/** Creates the suite for one entry script. Must be called in the init context. */
export function createSuite(script: ScriptName): Suite {
  const plan = loadPlan(script);
  const prompts = loadPrompts(plan);
  const traceRows = loadTraceRows(plan.trace);
  // Set by the bench when it drives the run (lib/drive.ts): VUs ask it for every request.
  const control = __ENV.CONTROL_URL ? controlClient(__ENV.CONTROL_URL.replace(/\/+$/, '')) : null;
  const options = buildOptions(plan, control ? { vus: drivenVus(__ENV.DRIVE_VUS), cellThresholds: __ENV.DRIVE_CELLS !== 'search' } : null);
  const cellsById = new Map<string, Cell>(plan.cells.map((c) => [c.id, c]));
  // The key is read from the environment only; it goes into a request header and nowhere else.
  const apiKey = __ENV.API_KEY || null;
  // EVENT_CALLBACK=1 hands every event to the script as well (bench/engine-overhead.ts prices that path).
  const eventCallback = __ENV.EVENT_CALLBACK === '1';
  const resultsDir = (__ENV.RESULTS_DIR || 'results/latest').replace(/\/+$/, '');

  // A cell of a use case (capacity steps, gate cells) has each request judged against its limits: goodput.
  const sloOf = new Map(plan.useCases.map((u) => [u.id, u.limits]));
  /**
   * Builds one request of a cell and returns what sends it: an open-loop cell builds the next request (a long
   * prompt's body takes milliseconds) before its intended time comes. `phase` tags its llm_* samples, and null
   * defers them until the bench names it.
   */
  const prepare = (
    cell: Pick<Cell, 'id' | 'contextTokens' | 'outputTokens' | 'useCase'>, ids: RequestIds,
    phase: string | null | undefined,
  ): (() => Promise<SentRequest>) => {
    const prompt = prompts.get(cell.contextTokens);
    const spec = buildStreamingRequest(
      plan.target, { prompt: requestPrompt(plan, prompts, cell, ids), maxTokens: cell.outputTokens }, apiKey,
    );
    const tags: Record<string, string> = phase ? { [SAMPLE_TAGS.phase]: phase } : {};
    return () => sendRequest(
      spec, { requestedInputTokens: preparedLength(prompt), requestedOutputTokens: cell.outputTokens }, plan.target, tags,
      phase === null, cell.useCase ? (sloOf.get(cell.useCase) ?? null) : null, eventCallback,
    );
  };
  const send = (...args: Parameters<typeof prepare>): Promise<SentRequest> => prepare(...args)();
  // The sessions script's user of this VU: conversations with think time (lib/k6/sessions.ts).
  const sessions: SessionUser | null = plan.sessions
    ? sessionUser({
        plan, apiKey, firstPrompt: (n) => prompts.get(n), followUp: (n) => prompts.followUp(n),
        slo: (useCase) => sloOf.get(useCase) ?? null,
      })
    : null;
  const warnOnce = new Set<string>();
  const warnFailure = (cellId: string, record: RequestRecord): void => {
    if (record.outcome !== 'errored' || warnOnce.has(cellId)) return;
    warnOnce.add(cellId);
    // The message is already redacted and cut to one line by the agent.
    console.warn(`${cellId}: request failed (${record.errorKind}): ${record.errorMessage}`);
  };

  const warned = (cellId: string, sent: SentRequest): SentRequest => {
    warnFailure(cellId, sent.record);
    return sent;
  };

  /**
   * Replays the trace at a speed: each row's prompt of its exact length from its blocks (salted per cell and run, so
   * a cell's prefix-cache hits are its own), its output length forced.
   */
  const replayTrace = (cell: Cell, speed: number, runNonce: number): Promise<void> => {
    const salt = cellSalt(runNonce, cell.id);
    return runOpenLoop(traceSchedule(traceRows, speed), (i) => {
      const row = traceRows[i]!;
      const prompt = prompts.blockPrompt!(
        { keys: row.keys, blockTokens: row.blockTokens, inputTokens: row.inputTokens, salt, uniqueId: row.traceIndex },
      );
      const spec = buildStreamingRequest(plan.target, { prompt, maxTokens: row.outputTokens }, apiKey);
      const lengths = { requestedInputTokens: row.inputTokens, requestedOutputTokens: row.outputTokens };
      const slo = sloOf.get(cell.useCase!) ?? null;
      return () => sendRequest(spec, lengths, plan.target, {}, false, slo, eventCallback).then((s) => warned(cell.id, s));
    });
  };

  /**
   * One embed request of a cell: its batch is that many prepared prompts, each behind its own prefix line (this
   * user's iteration times the batch, plus its place), so no cache serves one input from another's work.
   */
  const embedRequest = async (cell: Cell, kind: 'embeddings' | 'rerank', runNonce: number): Promise<void> => {
    const prompt = prompts.get(cell.contextTokens);
    const batch = cell.batch ?? 1;
    const { idInTest: vu, iterationInInstance: iteration } = exec.vu;
    const inputs = Array.from({ length: batch }, (_, i) =>
      promptText(prompt, requestPrefix(plan.prompts.mode, runNonce, vu, iteration * batch + i)));
    const result: EmbedResult = await sendEmbed({
      kind, target: plan.target, apiKey, inputs, requestedTokens: preparedLength(prompt) * batch,
    });
    if (result.ok || warnOnce.has(cell.id)) return;
    warnOnce.add(cell.id);
    console.warn(`${cell.id}: request failed (${result.errorKind}): ${result.message}`);
  };

  /** The bench-driven loop: one iteration per VU, one request per ticket, until the bench says stop. */
  const drive = async (data: SetupData, c: ControlClient): Promise<void> => {
    const vu = exec.vu.idInTest;
    const tags = exec.vu.metrics.tags;
    // In a split run the bench gives each runner its share of a step's users (as k6 splits a scenario's).
    const runner = data.runner ? data.runner.runner - 1 : 0;
    for (let n = 0; ; n++) {
      const answer = await c.next(vu, runner);
      if (answer.stop) return;
      const t = answer.ticket;
      setCellTags(tags, t.cell);
      const sent = sessions
        ? await sessions.turn(t.cell, t.joined === true, data.runNonce)
        : await send(t.cell, { runNonce: data.runNonce, vu, iteration: n, n: t.ticket }, null);
      warnFailure(t.cell.id, sent.record);
      // The bench says which phase the request belongs to only now: a step may have ended meanwhile.
      const phase = await c.done(doneReport(t, sent.record));
      sent.pushMetrics(phase === null ? {} : { [SAMPLE_TAGS.phase]: phase });
      // A user thinks after each turn, its request already reported: the bench's step counts it out of flight.
      if (sessions) await sessions.think();
    }
  };

  return {
    plan,
    options,
    setup(): SetupData {
      if (!prompts.exact) console.warn(`prompts are approximate (${prompts.tokenizer}); run npm run prepare-prompts for exact lengths`);
      // setup() runs on every runner of a split run: it only draws this runner's nonce and says what it will do.
      const split = splitRunner();
      // Driven by the bench, a runner's users of a step are handed out by the bench: no cell is known up front.
      const idle = split && !control ? cellsWithoutShare(split.position, plan.cells) : [];
      if (split && idle.length > 0) {
        const listed = `${idle.slice(0, 6).join(', ')}${idle.length > 6 ? `, … (${idle.length - 6} more)` : ''}`;
        console.warn(
          `${runnerLabel(split.info)} has no users in ${idle.length} cell(s) with fewer users than runners ` +
          `(k6 gives a cell's users to the first runners): ${listed}`,
        );
      }
      // exec.instance's run clock starts at the resume (k6 marks the run started before setup()).
      if (split && !control) sleep(Math.max(0, SPLIT_START_AFTER_RESUME_MS - nowMs()) / 1000);
      return { runNonce: Math.floor(Math.random() * 1_000_000), runner: split?.info ?? null };
    },

    async request(data: SetupData): Promise<void> {
      if (control) return drive(data, control);
      const cell = cellsById.get(exec.scenario.name);
      if (!cell) {
        exec.test.abort(`scenario "${exec.scenario.name}" is not a cell of the plan`);
        return;
      }
      if (sessions) return sessions.runStep(cell, data.runNonce);
      if (plan.embed) return embedRequest(cell, plan.embed.kind, data.runNonce);
      if (cell.arrivals?.process === 'trace') return replayTrace(cell, cell.arrivals.speed ?? 1, data.runNonce);
      if (cell.arrivals) {
        const atMs = arrivalTimesMs(drawnArrivals(cell.arrivals));
        return runOpenLoop({ atMs, durationMs: cell.arrivals.durationSeconds * 1000 }, (i) => {
          const fire = prepare(cell, { runNonce: data.runNonce, vu: exec.vu.idInTest, iteration: i, n: i }, undefined);
          return () => fire().then((sent) => warned(cell.id, sent));
        });
      }
      // A steady-state cell's first requests per user are its warm-up: kept, tagged, left out of its statistics.
      const phase = cell.warmupRounds > 0 ? (exec.vu.iterationInScenario < cell.warmupRounds ? 'warmup' : 'measured') : undefined;
      const { idInTest: vu, iterationInInstance: iteration } = exec.vu;
      const ids = { runNonce: data.runNonce, vu, iteration, n: exec.scenario.iterationInTest };
      const sent = await send(cell, ids, phase);
      warnFailure(cell.id, sent.record);
    },

    async monitor(): Promise<void> {
      const url = plan.target.metricsUrl;
      if (!url) return;
      const split = control ? null : splitRunner();
      // Iterations are counted per k6 process: a runner of a split run waits for its own share.
      const expected = split ? plannedRequests(plan, (cell) => cellShare(split.position, cell)) : plannedRequests(plan);
      const endMs = plan.totalSeconds * 1000;
      const intervalMs = plan.monitor.intervalSeconds * 1000;
      let ownShareEndedMs: number | null = null;
      // Ends when every planned request has finished (iterations are counted instance-wide; a split run's
      // runner adds a tail for the others) or the last slot is over; when the bench drives, when it says so.
      // Each capacity the bench's search decides is pushed as it is decided, so Grafana shows it while the run goes on.
      let announced = 0;
      const running = async (): Promise<boolean> => {
        if (control) {
          const status = await control.status();
          recordCapacities(status.capacities.slice(announced));
          announced = Math.max(announced, status.capacities.length);
          return !status.finished;
        }
        const now = nowMs();
        if (now >= endMs) return false;
        if (exec.instance.iterationsCompleted + exec.instance.iterationsInterrupted < expected) return true;
        if (ownShareEndedMs === null) ownShareEndedMs = now;
        return split !== null && now - ownShareEndedMs < Math.max(SPLIT_MONITOR_TAIL_MS, 3 * intervalMs);
      };
      while (await running()) {
        const started = nowMs();
        recordServerSnapshot(await scrapeServer(plan.target));
        await pause(intervalMs - (nowMs() - started));
      }
      // A last scrape a while after the last request ended: the last cell's window then has a sample after its end,
      // as every other cell's has, late enough for a server that counts a request after its last byte (SGLang, up to
      // 0.5 s here), so its histograms can be read over exactly the cell's requests.
      await pause(Math.max(intervalMs, FINAL_SCRAPE_AFTER_MS));
      recordServerSnapshot(await scrapeServer(plan.target));
    },

    /** After a driven run: every capacity the search decided, again, so a run without the monitor still pushes them. */
    async teardown(): Promise<void> {
      const status = control ? await control.finalStatus() : null;
      if (status) recordCapacities(status.capacities);
    },

    handleSummary(raw: unknown): Record<string, string> {
      const data = readSummaryData(raw, 'handleSummary data');
      const runner = (data.setup_data as SetupData | undefined)?.runner ?? null;
      const position = runner ? segmentPosition(runner.segment, runner.sequence) : null;
      const usersOf = position ? (cell: Cell) => cellShare(position, cell) : undefined;
      const files: Record<string, string> = {
        [`${resultsDir}/summary.json`]: JSON.stringify(data, null, 1),
        [`${resultsDir}/plan.json`]: JSON.stringify(plan, null, 1),
        stdout: renderTextSummary(data, plan, resultsDir, usersOf),
      };
      if (runner) {
        files[`${resultsDir}/${RUNNER_FILE}`] = JSON.stringify(runner, null, 1);
        // Each runner's thresholds and figures are its share's: say so before they are read as the run's.
        files.stdout =
          `${runnerLabel(runner)}: the figures and thresholds below are this runner's share; ` +
          `npm run report merges the runners' folders\n${files.stdout}`;
      }
      return files;
    },
  };
}

function drivenVus(text: string | undefined): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new Error(`DRIVE_VUS must be a whole number of VUs, got "${text ?? ''}"`);
  return n;
}

/** Puts a cell's tags on the VU (so every sample of its request, the transport's too, carries them); a tag the cell lacks is removed. */
function setCellTags(tags: Record<string, string | number | boolean>, cell: Ticket['cell']): void {
  const values = cellTags(cell);
  for (const k of CELL_TAGS) {
    const v = values[k];
    if (v === undefined) delete tags[k];
    else tags[k] = v;
  }
}

function doneReport(t: Ticket, r: RequestRecord): DoneReport {
  const ok = r.outcome === 'completed';
  return {
    ticket: t.ticket,
    ok,
    startMs: r.startMs,
    endMs: r.endMs,
    ttftMs: ok ? r.ttftMs : null,
    ttfcMs: ok ? r.ttfcMs : null,
    e2eMs: ok ? r.e2eMs : null,
    tpotMs: ok ? r.tpotMs : null,
    decodeTokensPerSecond: ok ? r.decodeTokensPerSecond : null,
    prefillTokensPerSecond: ok ? r.prefillTokensPerSecond : null,
    outputTokens: ok ? r.outputTokens : 0,
    itlMs: ok ? r.itlMs : [],
    goodput: r.goodput,
  };
}

interface ControlClient {
  /** `runner`: this process's 0-based index in a split run (0 otherwise). */
  next(vu: number, runner: number): Promise<ReturnType<typeof parseNextAnswer>>;
  done(report: DoneReport): Promise<ReturnType<typeof parseDoneAnswer>['phase']>;
  status(): Promise<StatusAnswer>;
  /** One /status call, no retries, null on any failure: for teardown, where k6 has no run clock. */
  finalStatus(): Promise<StatusAnswer | null>;
}

/** Control calls are tagged name=bench-control so they stay apart from the measured requests in http_* metrics. */
const CONTROL_PARAMS = { tags: { name: 'bench-control' }, timeout: '1h', headers: { 'content-type': 'application/json' } };
/** A VU that cannot reach the bench for this long ends the run: the bench is gone. */
const CONTROL_GIVE_UP_MS = 30_000;

function controlClient(base: string): ControlClient {
  const call = async (method: 'GET' | 'POST', path: string, body: string | null): Promise<string> => {
    let since = nowMs();
    for (;;) {
      const attempt = nowMs();
      const res = await http.asyncRequest(method, base + path, body, CONTROL_PARAMS);
      if (res.status === 200 && typeof res.body === 'string') return res.body;
      // A long poll that ran into its own timeout met a live bench: only quick failures count.
      if (nowMs() - attempt > CONTROL_GIVE_UP_MS) since = nowMs();
      else if (nowMs() - since > CONTROL_GIVE_UP_MS)
        exec.test.abort(
          `the bench's control endpoint ${base} stopped answering (${res.status === 0 ? res.error : `HTTP ${res.status}`})`,
        );
      await pause(500);
    }
  };
  return {
    async next(vu, runner) {
      return parseNextAnswer(await call('GET', `${CONTROL_PATHS.next}?vu=${vu}&runner=${runner}`, null));
    },
    async done(report) {
      return parseDoneAnswer(await call('POST', CONTROL_PATHS.done, JSON.stringify(report))).phase;
    },
    async status() {
      return parseStatusAnswer(await call('GET', CONTROL_PATHS.status, null));
    },
    async finalStatus() {
      try {
        const res = await http.asyncRequest('GET', base + CONTROL_PATHS.status, null, { ...CONTROL_PARAMS, timeout: '10s' });
        return res.status === 200 && typeof res.body === 'string' ? parseStatusAnswer(res.body) : null;
      } catch {
        return null;
      }
    },
  };
}
