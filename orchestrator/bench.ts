// The main job of a bench run, from plan to report. Runs in Node.
// Resolve the plan once, start the server (the simulator when no URL is given), prepare prompts, run each part's
// entry script on k6 (driven by the bench or in k6's time slots), then the report.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EventEmitter } from 'node:events';
import { EXIT } from '../lib/exit-codes';
import type { Plan } from '../lib/plan';
import { redactSecret } from '../lib/request';
import { spanUnionMs } from '../lib/span-union';
import { readSummaryData } from '../lib/summary-data';
import { renderTextSummary } from '../lib/summary-text';
import type { PromptSet } from '../lib/prompt-set';
import { buildBundles, k6BundlesCurrent } from './bundles';
import { buildNodeBundles, nodeBundlesCurrent, nodeProgram } from '../node/node-programs';
import { probeSpeeds } from './probe';
import { bundlePath, chooseEngine, runArguments, type Engine, type PartInvocation } from './engine';
import { agentPriorityPrefix } from './agent-priority';
import { startAgent, type AgentProcess } from './agent-process';
import {
  applyRequest,
  CsvTail,
  initialProgress,
  renderErrorMessages,
  plannedRequests,
  requestCounts,
} from './progress';
import { Driver, type StepResult } from './driver';
import type { CapacitySearch } from './capacity-search';
import { startControlServer } from './control-server';
import { drivenCells, renderSearchTable, renderTimeSpent, searchCapacities, type TimeSpent } from './driven-results';
import { drivenProgress, renderSearchStepLine } from './driven-progress';
import { prometheusRwEnv, prometheusWriteUrl, withPrometheusRw } from './remote-write-env';
import { launchEngine, runnerDirName, runnerShares, splitLaunch, withSplitSenders } from './runners';
import { analyzeRun } from '../report/generate';
import { finishRunInfo, newRunInfo, writeRunInfo, type RunInfoRecord } from './run-info';
import { discoverModel, startTarget, stopTarget, type Target } from './target';
import { partStallMs } from './machine-stall';
import { gateFailures } from '../report/gate-verdict';
import type { BenchEvents, BenchOptions, BenchOutcome } from './bench-options';
import { drivesPart, partDrive, QUIET_MARGIN_MS, type PartDrive } from './part-drive';
import {
  plansForServer, plansForSpeeds, resolveRunPlans, slotsGiven, writePartPlan, writePlanInput,
} from './run-plans';
import { prepareRunPrompts } from './run-prompts';
import { judgeStepFolder, RateSearchRun, rateStepVerdict, searchAxis, stepPartName } from './rate-search-part';
import { formatRatePerSecond } from './rate-search';
import { runAgenticSearch } from './agentic-search-part';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Where a part runs in the bench: its place among the parts and the run's records it adds to. */
interface PartPlace {
  readonly index: number;
  readonly count: number;
  readonly run: RunPlace;
  readonly runInfo: RunInfoRecord;
  readonly time: TimeSpent;
}

interface PartOutcome {
  readonly code: number;
  readonly requests: number;
  readonly partDir: string;
  /** The machine's longest stall under the agents in the part, ms; null: none said (orchestrator/machine-stall.ts). */
  readonly stallMs?: number | null;
}

/** What every part's k6 is handed beside its plan: the run folder and the measuring agents. */
interface RunPlace {
  readonly runDir: string;
  /** The measuring agents' URLs, one per k6 runner (runner i uses agents[i - 1]). */
  readonly agents: readonly string[];
}

/**
 * Runs the bench. Emits 'log' lines and 'progress' states; prints nothing itself. SIGINT/SIGTERM
 * stop the engine gracefully (it still writes its summary), the report is made from what was
 * measured, and the outcome says the run was interrupted.
 */
export class Bench extends EventEmitter<BenchEvents> {
  /** The running k6 processes of the current part (n for a split run). */
  private children: readonly ChildProcess[] = [];
  private stopping = false;
  /** The measuring agents of the run, one per k6 runner. */
  private agentUrls: readonly string[] = [];

  constructor(private readonly options: BenchOptions) {
    super();
  }

  /** First call: stop gracefully (the engine keeps and writes what it measured). Second: kill. */
  interrupt(): void {
    if (!this.stopping) {
      this.stopping = true;
      this.emit('log', 'stopping: the engine finishes writing what was measured (press Ctrl-C again to kill it)');
      for (const child of this.children) child.kill('SIGINT');
    } else {
      for (const child of this.children) child.kill('SIGKILL');
    }
  }

  private get runners(): number {
    return this.options.runners ?? 1;
  }

  async run(): Promise<BenchOutcome> {
    const options = this.options;
    // The one resolution of the plan, before anything starts: a bad field costs no simulator start-up.
    const resolved = resolveRunPlans(options.planInput, options.scripts, options);
    const agentPriority = agentPriorityPrefix(options.agentPriority ?? 'normal');
    const rwUrl = options.prometheusRw ? prometheusWriteUrl(options.prometheusRw) : null;
    const runDir = path.resolve(options.resultsRoot, options.runId);
    mkdirSync(runDir, { recursive: true });
    writePlanInput(runDir, options.planInput);
    const startedAt = new Date().toISOString();
    const target = await startTarget(options, (line) => this.emit('log', line));
    try {
      const model = options.model ?? (await discoverModel(target.baseUrl, options.apiKey));
      const simProfile = target.sim?.profile ?? null;
      const bound = plansForServer(resolved, options.planInput, { baseUrl: target.baseUrl, model, simProfile });
      const prompts = await prepareRunPrompts(bound, {
        baseUrl: target.baseUrl, model, api: options.api, tokenizer: options.tokenizer, apiKey: options.apiKey,
        knownContextWindow: target.server?.contextWindow ?? null, runDir, log: (line) => this.emit('log', line),
      });
      const plans = await this.sizeSlotsForTarget(target, prompts.plans, prompts.prompts);
      const engine = await this.prepareEngine(rwUrl);
      const runInfo = newRunInfo(options, {
        startedAt, engine, target, model, prompts: prompts.prompts, contextWindow: prompts.contextWindow,
        agentPriority: agentPriority.realtime ? 'realtime' : 'normal',
      });
      writeRunInfo(runDir, runInfo);
      const agents = await this.startAgents(this.runners, agentPriority);
      try {
        this.agentUrls = agents.map((a) => a.url);
        const outcome = await this.runParts(engine, plans, { runDir, agents: this.agentUrls }, runInfo);
        await this.writeReport(runDir, runInfo);
        const exitCode = this.stopping ? EXIT.interrupted : outcome.worstCode;
        return { runDir, exitCode, interrupted: this.stopping, requests: outcome.requests };
      } finally {
        // After k6 has exited: the agents answer what was in flight until then.
        await Promise.all(agents.map((a) => a.stop()));
      }
    } finally {
      await stopTarget(target);
    }
  }

  /** One measuring agent per k6 runner, each in its own process (built on first use), at the priority asked. */
  private async startAgents(
    count: number, priority: ReturnType<typeof agentPriorityPrefix>,
  ): Promise<AgentProcess[]> {
    const agents: AgentProcess[] = [];
    try {
      for (let i = 0; i < count; i++) {
        agents.push(await startAgent({ log: (line) => this.emit('log', line), prefix: priority.prefix }));
      }
    } catch (e) {
      await Promise.all(agents.map((a) => a.stop()));
      throw e;
    }
    this.emit('log', `measuring agent${count > 1 ? 's' : ''} (own process${count > 1 ? 'es' : ''}` +
      `${priority.realtime ? ', real-time priority' : ''}) listening at ${agents.map((a) => a.url).join(', ')}`);
    return agents;
  }

  /**
   * A real target of unknown speed (no speeds or slot given): measure it once so cell slots are
   * neither cut short nor idle. The simulator's slots were already predicted (run-plans.ts plansForServer).
   */
  private async sizeSlotsForTarget(target: Target, plans: Plan[], prompts: PromptSet): Promise<Plan[]> {
    // The probe times a generation; an embed-only run sizes its slots from the plan's prefill speed instead.
    const generates = plans.some((plan) => plan.script !== 'embed');
    if (target.sim || slotsGiven(this.options.planInput) || !generates) return plans;
    try {
      const speeds = await probeSpeeds(plans[0]!.target, prompts, this.options.apiKey);
      const prefillSpeed = Math.round(speeds.prefillTokensPerSecond);
      const prefill = `prefill ${prefillSpeed} tok/s at ${speeds.prefillContextTokens} tokens`;
      const decode = `decode ${speeds.decodeTokensPerSecond.toFixed(1)} tok/s`;
      this.emit('log', `probe: ${prefill}, ${decode}; cell slots sized from these`);
      return plansForSpeeds(plans, {
        prefillTokensPerSecond: Math.round(speeds.prefillTokensPerSecond),
        decodeTokensPerSecond: Math.round(speeds.decodeTokensPerSecond * 10) / 10,
      });
    } catch (e) {
      // The run records failures request by request; a failed probe only leaves the default slot sizes.
      const reason = redactSecret((e as Error).message, this.options.apiKey).slice(0, 200);
      this.emit('log', `probe failed (${reason}); cell slots use the plan's default speeds`);
      return plans;
    }
  }

  /** The k6 to run (built on first use) and the bundles it runs. */
  private async prepareEngine(rwUrl: string | null): Promise<Engine> {
    const engine = await chooseEngine((line) => this.emit('log', line));
    if (rwUrl) this.emit('log', `remote write: k6 sends the metrics live to ${rwUrl} (testid=${this.options.runId})`);
    // Built only when a source is newer: the tests start the bench some 60 times on the same sources.
    if (!k6BundlesCurrent()) await buildBundles();
    // The simulator and the report this run starts load one bundled file each instead of their TypeScript.
    if (!nodeBundlesCurrent()) await buildNodeBundles();
    this.emit('log', `engine: ${engine.version} (${engine.source}: ${engine.command[0]})`);
    return engine;
  }

  /**
   * Runs the parts one after another until the last or an interrupt, recording each in run.json;
   * resolves to the worst exit code (an interrupt counts as 0) and the requests measured.
   */
  private async runParts(
    engine: Engine,
    plans: readonly Plan[],
    run: RunPlace,
    runInfo: RunInfoRecord,
  ): Promise<{ worstCode: number; requests: number }> {
    const options = this.options;
    let worstCode = 0;
    let requests = 0;
    const time: TimeSpent = { wallMs: 0, runningMs: 0, parts: [] };
    const benchStart = performance.now();
    for (const [i, given] of plans.entries()) {
      if (this.stopping) break;
      const plan = withSplitSenders(given, this.runners);
      const at = { index: i, count: plans.length, run, runInfo, time };
      // A split search runs every step on all the runners; --fixed-slots runs the plan as a plain k6 run would.
      const searched = (plan.script === 'rate' || plan.script === 'trace') && plan.rateSearch !== null &&
        options.fixedSlots !== true;
      const agentsSearched = plan.script === 'agentic' && (plan.agentic?.search ?? null) !== null &&
        this.runners === 1 && options.fixedSlots !== true;
      const r = searched ? await this.runRateSearch(engine, plan, at)
        : agentsSearched ? await this.runAgenticSearch(engine, plan, at)
          : await this.runOnePart(engine, plan, plan.script, at);
      requests += r.requests;
      worstCode = Math.max(worstCode, r.code === EXIT.interrupted ? 0 : r.code);
    }
    time.wallMs = performance.now() - benchStart;
    time.runningMs = time.parts.reduce((sum, part) => sum + part.runningMs, 0);
    finishRunInfo(runInfo, this.stopping, time);
    writeRunInfo(run.runDir, runInfo);
    this.emit('log', renderTimeSpent(time));
    return { worstCode, requests };
  }

  /**
   * Runs one part's k6 in the part folder `name` and records it in run.json; resolves to its exit code, the requests
   * it measured and the machine's longest stall under the agents. An interrupt stops the bench after it.
   */
  private async runOnePart(engine: Engine, plan: Plan, name: string, at: PartPlace): Promise<PartOutcome> {
    const options = this.options;
    const partDir = path.join(at.run.runDir, name);
    mkdirSync(partDir, { recursive: true });
    // The part's k6 reads its plan from here, as resolved for the run; a part killed hard still leaves it.
    const env = { PLAN: writePartPlan(partDir, plan), RESULTS_DIR: partDir, LLM_AGENT: at.run.agents[0]! };
    const invocation = { bundle: bundlePath(plan.script), partDir, env, tags: { testid: options.runId } };
    const drive = drivesPart(plan, this.runners, options.fixedSlots === true) ? partDrive(plan) : null;
    const startedMs = Date.now();
    const { code: engineCode, requests, counts, running } = await this.runPart(engine, plan, at.index, at.count,
      invocation, drive);
    const stallMs = await partStallMs(this.agentUrls, startedMs, (line) => this.emit('log', `${name}: ${line}`));
    if (stallMs !== null) at.runInfo.stallsMs[name] = stallMs;
    const code = this.runners > 1 ? await this.splitVerdict(partDir, engineCode) : engineCode;
    at.time.parts.push({ part: name, ...running });
    at.runInfo.parts.push(name);
    at.runInfo.exitCodes[name] = code;
    at.runInfo.requests[name] = counts;
    writeRunInfo(at.run.runDir, at.runInfo);
    if (code === EXIT.interrupted) this.stopping = true;
    else if (code !== EXIT.ok && code !== EXIT.thresholdsFailed) {
      this.emit('log', `${name}: k6 exited with code ${code}; see ${path.join(partDir, 'engine-stderr.txt')}`);
    }
    return { code, requests, partDir, stallMs };
  }

  /**
   * A rate part that searches (plan rate.search): one part folder per step, the next rate chosen from the steps
   * judged so far (orchestrator/rate-search-part.ts). A step k6 could not finish ends the search there.
   */
  private async runRateSearch(engine: Engine, plan: Plan, at: PartPlace): Promise<PartOutcome> {
    const search = new RateSearchRun(plan, plan.rateSearch!);
    const { unit } = searchAxis(plan);
    const what = plan.script === 'trace' ? 'the fastest replay speed within the limits'
      : `the capacity in requests/s of ${search.searches.length} use cases`;
    this.emit('log', `${plan.script}: searching ${what}, one k6 process per step`);
    let worst = 0;
    let requests = 0;
    for (let n = 1; !this.stopping; n++) {
      const step = search.next();
      if (step === null) break;
      const name = stepPartName(n, plan.script === 'trace' ? 'trace' : 'rate');
      const r = await this.runOnePart(engine, step.plan, name, at);
      worst = Math.max(worst, r.code === EXIT.interrupted ? 0 : r.code);
      requests += r.requests;
      if (this.stopping || (r.code !== EXIT.ok && r.code !== EXIT.thresholdsFailed)) break;
      try {
        const stall = { stallMs: r.stallMs ?? null };
        const judged = await judgeStepFolder(r.partDir, step.plan.cells[0]!.id, step.search.limits, step.plan, stall);
        step.search.steps.push(judged);
        const where = `${step.search.useCase.id} at ${formatRatePerSecond(step.rate)}${unit}`;
        this.emit('log', `${plan.script} search ${where}: ${rateStepVerdict(judged)}`);
      } catch (e) {
        const why = (e as Error).message;
        this.emit('log', `${plan.script} search: step ${n} could not be judged (${why}); the search ends`);
        break;
      }
    }
    for (const line of search.summary()) this.emit('log', `${plan.script} search: ${line}`);
    return { code: worst, requests, partDir: at.run.runDir };
  }

  /**
   * An agentic part that searches (plan agentic.search): one part folder per step of N agents, each judged for every
   * tier, the next N chosen from the steps so far (orchestrator/agentic-search-part.ts). A step k6 could not finish
   * ends the search there.
   */
  private async runAgenticSearch(engine: Engine, plan: Plan, at: PartPlace): Promise<PartOutcome> {
    const r = await runAgenticSearch(plan, {
      runStep: (stepPlan, name) => this.runOnePart(engine, stepPlan, name, at), log: (line) => this.emit('log', line),
      stopped: () => this.stopping,
    });
    return { ...r, partDir: at.run.runDir };
  }

  /** The report of what was measured, when asked for and when at least one part wrote its summary. */
  private async writeReport(runDir: string, runInfo: RunInfoRecord): Promise<void> {
    const runnerSummaries = (part: string): string[] =>
      Array.from({ length: this.runners }, (_, i) => path.join(runDir, part, runnerDirName(i + 1), 'summary.json'));
    const summaryWritten = runInfo.parts.some((part) => existsSync(path.join(runDir, part, 'summary.json')) ||
      runnerSummaries(part).some(existsSync));
    if (!this.options.report || !summaryWritten) return;
    const reportCode = await this.runReport(runDir);
    if (reportCode !== EXIT.ok) this.emit('log', `report exited with code ${reportCode}`);
  }

  /**
   * Runs one entry script; resolves to the engine's exit code, the requests it measured, and the time
   * with requests running. With `drive`, the bench's control endpoint hands out every request.
   */
  private async runPart(
    engine: Engine, plan: Plan, index: number, count: number, part: PartInvocation, drive: PartDrive | null,
  ): Promise<{
    code: number; requests: number; counts: ReturnType<typeof requestCounts>;
    running: { wallMs: number; runningMs: number };
  }> {
    if (!drive) {
      const started = performance.now();
      const r = await this.runEngine(engine, plan, index, count, part, null);
      // In time slots the bench hands out nothing: the time with requests running comes from the CSV's e2e samples.
      return { ...r, running: { wallMs: performance.now() - started, runningMs: r.runningMs } };
    }
    // With the server's metrics scraped, a step on a drained server waits a scrape interval and a bit first, so a
    // scrape falls between steps and the server's histograms can be read per step.
    const monitored = plan.monitor.enabled && plan.target.metricsUrl !== null;
    const quietMs = monitored ? plan.monitor.intervalSeconds * 1000 + QUIET_MARGIN_MS : 0;
    const shares = this.runners > 1 ? runnerShares(this.runners) : null;
    const driver = new Driver(drive.source, () => performance.now(), shares, quietMs);
    const search = drive.search;
    const control = await startControlServer(driver, () => (search ? searchCapacities(search) : []));
    const driverStart = performance.now();
    driver.onStepEnd((r: StepResult) => {
      if (drive.search) this.emit('log', renderSearchStepLine(r, drive.search));
    });
    try {
      const env = {
        ...part.env, CONTROL_URL: control.url, DRIVE_VUS: String(drive.vus),
        DRIVE_CELLS: drive.search ? 'search' : 'fixed',
      };
      const r = await this.runEngine(engine, plan, index, count, { ...part, env }, { driver, search: drive.search });
      const busy = driver.busy();
      const steps = driver.snapshot();
      const cells = drivenCells(steps, driver.unfinishedByStep(), driverStart);
      // The cells that ran are the steps the bench chose (none when the engine never started: the planned plan.json
      // stays, and the report says nothing ran).
      const totalSeconds = Math.round(busy.wallMs) / 1000;
      if (cells.length > 0) writePartPlan(part.partDir, { ...plan, cells, totalSeconds });
      if (drive.search) {
        const title = plan.script === 'sessions' ? 'active-user search' : 'capacity search';
        this.emit('log', renderSearchTable(drive.search, title));
      }
      const counts = {
        planned: cells.reduce((n, c) => n + (c.driven?.requests.measured ?? 0) + (c.driven?.requests.cut ?? 0), 0),
        succeeded: 0, failed: 0, cut: cells.reduce((n, c) => n + (c.driven?.requests.cut ?? 0), 0),
      };
      for (const st of steps)
        for (const q of st.requests)
          if (q.phase === 'measured') {
            if (q.ok) counts.succeeded++;
            else counts.failed++;
          }
      return {
        code: r.code, requests: r.requests, counts,
        running: { wallMs: performance.now() - driverStart, runningMs: busy.busyMs },
      };
    } finally {
      await control.close();
    }
  }

  /** Runs the part's k6 (one process, or a split run's runners) to its end, showing progress as it goes. */
  private async runEngine(
    engine: Engine, plan: Plan, index: number, count: number, part: PartInvocation,
    driven: { driver: Driver; search: CapacitySearch | null } | null,
  ): Promise<{ code: number; requests: number; counts: ReturnType<typeof requestCounts>; runningMs: number }> {
    const rwUrl = this.options.prometheusRw ? prometheusWriteUrl(this.options.prometheusRw) : null;
    const withRw = (args: string[]): string[] => (rwUrl ? withPrometheusRw(args) : args);
    const [program, ...lead] = engine.command;
    const launch = this.runners > 1
      ? await splitLaunch(part, this.runners, this.options.runId, withRw, this.agentUrls)
      : { runs: [{ args: withRw(runArguments(part)), dir: part.partDir }], addresses: null };
    const env: NodeJS.ProcessEnv = rwUrl ? prometheusRwEnv(rwUrl, { ...process.env }) : { ...process.env };
    // The key reaches the script through the environment (k6 run copies it into __ENV), never the command line.
    if (this.options.apiKey) env.API_KEY = this.options.apiKey;
    else delete env.API_KEY;
    const state = initialProgress(plan, index, count);
    const tails = launch.runs.map((r) => new CsvTail(path.join(r.dir, 'samples.csv')));
    const started = Date.now();
    if (driven?.search)
      this.emit(
        'log',
        `${plan.script}: searching the capacity of ${driven.search.searches.length} use cases ` +
        `(${driven.search.searches.map((s) => s.useCase.id).join(', ')}), steps back to back`,
      );
    else
      this.emit(
        'log',
        `${plan.script}: ${plan.cells.length} cells, ` +
        `${plannedRequests(state) === null ? '' : `${plannedRequests(state)} requests, `}` +
        `${driven ? 'back to back' : `at most ${Math.ceil(plan.totalSeconds / 60)} min`}`,
      );
    const refresh = (): void => {
      for (const t of tails) t.poll((scenario, ok) => applyRequest(state, scenario, ok));
      state.elapsedSeconds = (Date.now() - started) / 1000;
      if (driven) state.driven = drivenProgress(driven.driver, driven.search, state);
      this.emit('progress', state);
    };
    const runs = launch.runs.map((r) => ({ ...r, args: [...lead, ...r.args] }));
    const run = launchEngine({ program: program!, env, cwd: root, runs, addresses: launch.addresses });
    this.children = run.children;
    const timer = setInterval(refresh, 500);
    const { code, error } = await run.exit;
    clearInterval(timer);
    refresh();
    this.children = [];
    if (error) this.emit('log', error);
    const summary = driven?.search || this.runners > 1 ? '' : readIfExists(path.join(part.partDir, 'summary.json'));
    if (summary) {
      try {
        this.emit('log', renderTextSummary(readSummaryData(JSON.parse(summary), 'summary.json'), plan, part.partDir));
      } catch {
        // A partial or foreign summary: the report says what is missing.
      }
    }
    // k6's summary data has no messages; the CSV's metadata column has them (the API key redacted at the source).
    const messages = renderErrorMessages(tails.flatMap((t) => [...t.errorMessages.values()]));
    if (messages) this.emit('log', messages);
    const requests = driven ? driven.driver.totals.ended : state.cells.reduce((n, c) => n + c.done, 0);
    const runningMs = spanUnionMs(tails.flatMap((t) => t.requestSpans));
    return { code, requests, counts: requestCounts(state), runningMs };
  }

  /**
   * A split part's verdict on the merged samples: each runner's exit code 99 judged only its share, so
   * 99 or 0 is decided again by the gates and thresholds on all the runners' samples (report/gate-verdict.ts).
   */
  private async splitVerdict(partDir: string, code: number): Promise<number> {
    if (code !== EXIT.ok && code !== EXIT.thresholdsFailed) return code;
    try {
      const failures = gateFailures(await analyzeRun(partDir));
      const verdict = failures.length === 0
        ? 'gates and thresholds passed'
        : `${failures.length} failure(s) on the merged samples: ${failures.slice(0, 3).join('; ')}`;
      this.emit('log', `${path.basename(partDir)}: runners merged; ${verdict}`);
      return failures.length === 0 ? EXIT.ok : EXIT.thresholdsFailed;
    } catch (e) {
      this.emit('log', `${path.basename(partDir)}: the runners' samples could not be merged (${(e as Error).message})`);
      return code;
    }
  }

  private runReport(runDir: string): Promise<number> {
    return new Promise((resolve) => {
      const [program, ...lead] = nodeProgram('report');
      const child = spawn(program!, [...lead, runDir], {
        cwd: root, stdio: ['ignore', 'inherit', 'inherit'],
      });
      child.on('error', () => resolve(EXIT.internal));
      child.on('close', (code) => resolve(code ?? EXIT.internal));
    });
  }
}

function readIfExists(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

