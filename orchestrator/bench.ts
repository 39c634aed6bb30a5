// The main job of a bench run, from prompts to report. Runs in Node.
// Start the simulator when no URL is given, prepare prompts, build, run each entry script on k6, then the report.

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { EventEmitter } from 'node:events';
import { applyEnvToPlan } from '../lib/env';
import { EXIT } from '../lib/exit-codes';
import {
  planPromptForm, promptForm, resolvePlan, usesBlockPrompts, type ApiStyle, type Plan, type PlanInput, type ScriptName,
} from '../lib/plan';
import { redactSecret } from '../lib/request';
import { readSummaryData } from '../lib/summary-data';
import { renderTextSummary } from '../lib/summary-text';
import { preparePrompts, type TokenizerChoice } from '../tokenizer/prepare-prompts';
import type { PromptSet } from '../lib/prompt-set';
import { buildBundles } from './bundles';
import { startSimChild } from '../sim/child';
import { startBuiltInServer, REAL_SERVER_TARGETS, type RealServerTarget } from './built-in-server';
import { resolveProfile } from '../sim/profiles';
import { predictCellSeconds } from './sim-schedule';
import { probeSpeeds } from './probe';
import { bundlePath, chooseEngine, runArguments, type Engine, type PartInvocation } from './engine';
import { startAgent, type AgentProcess } from './agent-process';
import {
  applyRequest,
  coveredMs,
  CsvTail,
  initialProgress,
  renderErrorMessages,
  requestCounts,
  type ProgressState,
} from './progress';
import { Driver, FixedSteps, type StepResult, type StepSource } from './driver';
import { CapacitySearch } from './capacity-search';
import { sessionsDrive } from './sessions-search';
import { startControlServer } from './control-server';
import { drivenCells, renderSearchTable, renderTimeSpent, searchCapacities, type TimeSpent } from './driven-results';
import { drivenProgress, renderSearchStepLine } from './driven-progress';
import { prometheusRwEnv, prometheusWriteUrl, withPrometheusRw } from './remote-write-env';
import { launchEngine, runnerDirName, runnerShares, splitLaunch } from './generators';
import { analyzeRun } from '../report/generate';
import { promptLengthsForWindow, readContextWindow } from './context-window';
import { finishRunInfo, newRunInfo, writeRunInfo, type RunInfoRecord } from './run-info';
import { discoverModel, stopTarget, type Target } from './target';
import { gateFailures } from '../report/gate-verdict';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface BenchOptions {
  /** Target base URL (/v1); null starts the built-in target (`target`). */
  readonly url: string | null;
  /** The built-in target started when no URL is given: the simulator, or a real server (llama.cpp, vLLM, SGLang). */
  readonly target?: BuiltInTarget;
  readonly model: string | null;
  readonly apiKey: string | null;
  readonly api: ApiStyle;
  readonly planInput: PlanInput;
  readonly planLabel: string;
  readonly scripts: readonly ScriptName[];
  readonly simProfile: string | null;
  /** Simulator with step-time noise (its --noise), and the seed to draw it with (null: random, logged). */
  readonly simNoise?: { readonly seed: number | null } | null;
  readonly resultsRoot: string;
  readonly runId: string;
  readonly tokenizer: TokenizerChoice;
  readonly report: boolean;
  /** Prometheus remote-write URL: k6 sends the run's metrics live (-o experimental-prometheus-rw, testid = run id). */
  readonly prometheusRw?: string | null;
  /**
   * Run cells in k6's fixed time slots, as a plain `k6 run` does, instead of driving them back to back
   * (and searching capacity adaptively). Default false.
   */
  readonly fixedSlots?: boolean;
  /**
   * k6 processes per part (default 1): more splits every part with k6's execution segments, as the
   * k6-operator does (orchestrator/generators.ts), in k6's fixed time slots; the report merges them.
   */
  readonly generators?: number;
}

/** The -e values the bench gives every part's k6: on the command line, they win over its inherited environment. */
const PART_ENV_KEYS = ['PLAN', 'PROMPTS', 'RESULTS_DIR', 'BASE_URL', 'MODEL', 'API', 'LLM_AGENT'] as const;

/**
 * The environment as each part's k6 reads it for its plan, short of the bench's own -e values: k6 run copies its
 * environment into __ENV, so USE_CASES, RATES and the like reach the script whatever the bench does. Applied to the
 * bench's plan input too, the bench prepares prompts and sizes slots for the cells k6 will run.
 */
export function benchPlanEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string | undefined> {
  const own: readonly string[] = PART_ENV_KEYS;
  return Object.fromEntries(Object.entries(env).filter(([name]) => !own.includes(name)));
}

export type BuiltInTarget = 'sim' | RealServerTarget;
export const BUILT_IN_TARGETS: readonly BuiltInTarget[] = ['sim', ...REAL_SERVER_TARGETS];

/** Scripts the bench drives (lib/drive.ts); the gate keeps its k6 thresholds and slot. */
const DRIVEN_SCRIPTS: readonly ScriptName[] = ['sweep', 'capacity', 'burst', 'mix', 'sessions'];

/** Beyond the scrape interval, the quiet gap between driven steps: a scrape takes a few ms to answer. */
const QUIET_MARGIN_MS = 250;

/** What drives a part: the step source, how many VUs it may need, and for capacity the search. */
export interface PartDrive {
  readonly source: StepSource;
  readonly vus: number;
  readonly search: CapacitySearch | null;
}

/** The steps of a driven part (DRIVEN_SCRIPTS); a prediction (whatif/predicted-part.ts) drives them in virtual time. */
export function partDrive(plan: Plan): PartDrive {
  if (plan.script === 'sessions' && plan.search && plan.sessions) return sessionsDrive(plan, plan.search, plan.sessions);
  if (plan.script === 'capacity' && plan.search) {
    const ids = [...new Set(plan.cells.map((c) => c.useCase).filter((u): u is string => u !== null))];
    const useCases = ids.map((id) => ({
      useCase: plan.useCases.find((u) => u.id === id)!,
      outputTokens: plan.cells.find((c) => c.useCase === id)!.outputTokens,
    }));
    const search = new CapacitySearch(useCases, plan.search, plan.limitStat, plan.minGoodput);
    return { source: search, vus: Math.max(...search.searches.map((s) => s.maxUsers)), search };
  }
  const specs = plan.cells.map((c) => ({ cell: c, mode: { kind: 'rounds' as const, rounds: c.rounds } }));
  return { source: new FixedSteps(specs), vus: Math.max(...plan.cells.map((c) => c.concurrency)), search: null };
}

export interface BenchEvents {
  log: [line: string];
  progress: [state: ProgressState];
}

export interface BenchOutcome {
  readonly runDir: string;
  readonly exitCode: number;
  readonly interrupted: boolean;
  readonly requests: number;
}

/** A run id that sorts by time and is safe in paths: 2026-11-22T08-40-05Z. */
export function newRunId(now = new Date()): string {
  return now.toISOString().replace(/\.\d+Z$/, 'Z').replace(/:/g, '-');
}

/** The plan input as run (plan-input.json), and each part's resolved plan. */
interface PlannedParts {
  readonly planInput: PlanInput;
  readonly plans: readonly Plan[];
  readonly planFile: string;
}

/** What every part's engine reads: the run folder, plan and prompts files, target and model. */
interface RunFiles {
  readonly runDir: string;
  readonly planFile: string;
  readonly promptsFile: string;
  /** The raw-text prompts of the parts whose form is not the API's (the embed script's), when there are such. */
  readonly rawPromptsFile: string | null;
  readonly baseUrl: string;
  readonly model: string;
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

  async run(): Promise<BenchOutcome> {
    const options = this.options;
    // Validate the plan before creating or starting anything: a bad field costs no simulator start-up.
    this.resolveParts(applyEnvToPlan(options.planInput, {}));
    const rwUrl = options.prometheusRw ? prometheusWriteUrl(options.prometheusRw) : null;
    const runDir = path.resolve(options.resultsRoot, options.runId);
    mkdirSync(runDir, { recursive: true });
    const startedAt = new Date().toISOString();
    const target = await this.startTarget();
    try {
      const model = options.model ?? (await discoverModel(target.baseUrl, options.apiKey));
      const planned = this.planParts(target, model, runDir);
      const prompts = await this.prepareRunPrompts(planned.plans, model, target, runDir);
      const sized = await this.sizeSlotsForTarget(target, planned, prompts.prompts);
      const engine = await this.prepareEngine(rwUrl);
      const runInfo = newRunInfo(
        options, { startedAt, engine, target, model, prompts: prompts.prompts, contextWindow: prompts.contextWindow },
      );
      writeRunInfo(runDir, runInfo);
      const files = { runDir, planFile: sized.planFile, promptsFile: prompts.file, rawPromptsFile: prompts.rawFile };
      const agents = await this.startAgents(options.generators ?? 1);
      try {
        this.agentUrls = agents.map((a) => a.url);
        const run = { ...files, baseUrl: target.baseUrl, model, agents: this.agentUrls };
        const outcome = await this.runParts(engine, sized.plans, run, runInfo);
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

  /** One measuring agent per k6 runner, each in its own process (built on first use). */
  private async startAgents(count: number): Promise<AgentProcess[]> {
    const agents: AgentProcess[] = [];
    try {
      for (let i = 0; i < count; i++) agents.push(await startAgent({ log: (line) => this.emit('log', line) }));
    } catch (e) {
      await Promise.all(agents.map((a) => a.stop()));
      throw e;
    }
    this.emit('log', `measuring agent${count > 1 ? 's' : ''} (own process${count > 1 ? 'es' : ''}) listening at ` +
      agents.map((a) => a.url).join(', '));
    return agents;
  }

  /** The server under test: the URL given, or else the built-in target (simulator or real server), in its own process. */
  private async startTarget(): Promise<Target> {
    const options = this.options;
    if (options.url) return { baseUrl: options.url, sim: null, server: null };
    if (options.target && options.target !== 'sim') {
      const server = await startBuiltInServer(options.target, (line) => this.emit('log', line));
      const baseUrl = `${server.base}/v1`;
      this.emit('log', `${server.description} listening at ${baseUrl}`);
      return { baseUrl, sim: null, server };
    }
    const profile = resolveProfile(options.simProfile ?? undefined);
    const noise = options.simNoise;
    const noiseArgs = noise ? ['--noise', ...(noise.seed !== null ? ['--noise-seed', String(noise.seed)] : [])] : [];
    const child = await startSimChild(['--profile', options.simProfile ?? profile.name, ...noiseArgs]);
    const baseUrl = `${child.base}/v1`;
    const noiseNote = child.noiseSeed !== null ? `, step-time noise with seed ${child.noiseSeed}` : '';
    this.emit('log', `simulator (profile ${profile.name}${noiseNote}, its own process) listening at ${baseUrl}`);
    return { baseUrl, sim: { child, profile }, server: null };
  }

  /** Each part's resolved plan; the trace script's reads its trace file. */
  private resolveParts(planInput: PlanInput): Plan[] {
    return this.options.scripts.map((script) => resolvePlan(planInput, script, (file) => readFileSync(file, 'utf8')));
  }

  /** Each part's plan, with the target and model filled in; written to plan-input.json. */
  private planParts(target: Target, model: string, runDir: string): PlannedParts {
    const options = this.options;
    let planInput = applyEnvToPlan(options.planInput, { BASE_URL: target.baseUrl, MODEL: model, API: options.api });
    let plans = this.resolveParts(planInput);
    if (target.sim && !planInput.schedule?.cellSeconds) {
      // Against the simulator its own engine predicts each cell, so slots can be tight.
      const predictedCellSeconds = predictCellSeconds(plans, target.sim.profile);
      const tightSlots = { predictedCellSeconds, safetyFactor: 1.25, minCellSeconds: 2, gapSeconds: 0.5 };
      const schedule = { ...planInput.schedule, ...tightSlots };
      planInput = { ...planInput, schedule };
      plans = this.resolveParts(planInput);
    }
    const planFile = path.join(runDir, 'plan-input.json');
    writeFileSync(planFile, JSON.stringify(planInput, null, 2));
    return { planInput, plans, planFile };
  }

  /**
   * Prompts of exact lengths for every context the plans use, written to prompts.json; a context whose cells would
   * overflow the server's window gets the longest prompt that fits (context-window.ts). The embed script's inputs are
   * raw text whatever the API (lib/plan.ts planPromptForm): when the run's API counts prompts in the chat template,
   * they get a set of their own, prompts-raw.json.
   */
  private async prepareRunPrompts(
    plans: readonly Plan[],
    model: string,
    target: Target,
    runDir: string,
  ): Promise<{ prompts: PromptSet; file: string; rawFile: string | null; contextWindow: number | null }> {
    const { apiKey, api } = this.options;
    const contextWindow = target.server?.contextWindow ?? await readContextWindow(target.baseUrl, model, apiKey);
    const form = promptForm(api);
    const own = plans.filter((plan) => planPromptForm(plan) === form);
    const raw = plans.filter((plan) => planPromptForm(plan) !== form);
    const main = own.length > 0 ? await this.preparePromptFile(own, api, model, target, contextWindow, runDir, 'prompts.json') : null;
    const rawSet = raw.length > 0
      ? await this.preparePromptFile(raw, 'completions', model, target, contextWindow, runDir, 'prompts-raw.json')
      : null;
    const first = (main ?? rawSet)!;
    return { prompts: first.prompts, file: first.file, rawFile: rawSet?.file ?? null, contextWindow };
  }

  /** One prompt set for `plans`, counted for `api`, written to runDir/name. */
  private async preparePromptFile(
    plans: readonly Plan[], api: ApiStyle, model: string, target: Target, contextWindow: number | null, runDir: string,
    name: string,
  ): Promise<{ prompts: PromptSet; file: string }> {
    const { tokenizer, apiKey } = this.options;
    // A trace cell builds each row's prompt from one-token words (lib/block-prompt.ts): it needs no prompt of its own.
    // Prefix groups build theirs from the same words, to the length of their context's prompt.
    const cells = plans.flatMap((plan) => plan.cells).filter((cell) => cell.script !== 'trace');
    const blockVocabulary = plans.some(usesBlockPrompts);
    const contexts = [...new Set(cells.map((cell) => cell.contextTokens))].sort((a, b) => a - b);
    // A conversation's later turns add follow-up messages of the plan's growth lengths (the sessions script).
    const growth = plans.flatMap((plan) => Object.values(plan.sessions?.models ?? {}).map((m) => m.growthTokens));
    const followUps = [...new Set(growth)].sort((a, b) => a - b);
    const fittedContexts = contextWindow !== null ? promptLengthsForWindow(cells, contextWindow) : [];
    for (const f of fittedContexts) {
      this.emit(
        'log', `context ${f.contextTokens}: prompts of ${f.promptTokens} tokens, to fit the server's ` +
        `${contextWindow}-token window with the cells' output`,
      );
    }
    const fitted = new Map(fittedContexts.map((f) => [f.contextTokens, f.promptTokens]));
    this.emit('log', `preparing ${name} for ${contexts.length} context lengths (${contexts.join(', ')} tokens)`);
    const prompts = await preparePrompts({
      model, api, contexts, fitted, followUps, tokenizer, baseUrl: target.baseUrl, apiKey, blockVocabulary,
    });
    const file = path.join(runDir, name);
    writeFileSync(file, JSON.stringify(prompts));
    this.emit('log', `prompts: ${prompts.tokenizer}${prompts.exact ? ' (exact lengths)' : ' (approximate lengths)'}`);
    return { prompts, file };
  }

  /**
   * A real target of unknown speed (no speeds or slot given): measure it once so cell slots are
   * neither cut short nor idle. The simulator's slots were already predicted by planParts.
   */
  private async sizeSlotsForTarget(target: Target, planned: PlannedParts, prompts: PromptSet): Promise<PlannedParts> {
    const options = this.options;
    const given = options.planInput.schedule ?? {};
    const speedsGiven =
      given.prefillTokensPerSecond != null || given.decodeTokensPerSecond != null || given.cellSeconds != null;
    // The probe times a generation; an embed-only run sizes its slots from the plan's prefill speed instead.
    const generates = planned.plans.some((plan) => plan.script !== 'embed');
    if (target.sim || speedsGiven || !generates) return planned;
    try {
      const speeds = await probeSpeeds(planned.plans[0]!.target, prompts, options.apiKey);
      const prefill = `prefill ${Math.round(speeds.prefillTokensPerSecond)} tok/s at ${speeds.prefillContextTokens} tokens`;
      const decode = `decode ${speeds.decodeTokensPerSecond.toFixed(1)} tok/s`;
      this.emit('log', `probe: ${prefill}, ${decode}; cell slots sized from these`);
      const schedule = {
        ...planned.planInput.schedule,
        prefillTokensPerSecond: Math.round(speeds.prefillTokensPerSecond),
        decodeTokensPerSecond: Math.round(speeds.decodeTokensPerSecond * 10) / 10,
      };
      const planInput = { ...planned.planInput, schedule };
      const plans = this.resolveParts(planInput);
      writeFileSync(planned.planFile, JSON.stringify(planInput, null, 2));
      return { planInput, plans, planFile: planned.planFile };
    } catch (e) {
      // The run records failures request by request; a failed probe only leaves the default slot sizes.
      const reason = redactSecret((e as Error).message, options.apiKey).slice(0, 200);
      this.emit('log', `probe failed (${reason}); cell slots use the plan's default speeds`);
      return planned;
    }
  }

  /** The k6 to run (built on first use) and the bundles it runs. */
  private async prepareEngine(rwUrl: string | null): Promise<Engine> {
    const engine = await chooseEngine((line) => this.emit('log', line));
    if (rwUrl) this.emit('log', `remote write: k6 sends the metrics live to ${rwUrl} (testid=${this.options.runId})`);
    await buildBundles();
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
    run: RunFiles,
    runInfo: RunInfoRecord,
  ): Promise<{ worstCode: number; requests: number }> {
    const options = this.options;
    let worstCode = 0;
    let requests = 0;
    const time: TimeSpent = { wallMs: 0, runningMs: 0, parts: [] };
    const benchStart = performance.now();
    for (const [i, plan] of plans.entries()) {
      if (this.stopping) break;
      const partDir = path.join(run.runDir, plan.script);
      mkdirSync(partDir, { recursive: true });
      // The script writes plan.json again at its end (handleSummary); this copy lets the report read
      // a part whose engine was killed hard (SIGKILL) before it got there.
      writeFileSync(path.join(partDir, 'plan.json'), JSON.stringify(plan, null, 1));
      const bundle = bundlePath(plan.script);
      const generators = options.generators ?? 1;
      // A split run is k6's own mechanism: every runner runs its share of each cell in k6's time slots. The
      // capacity search is the exception: its steps are chosen as it goes, so the bench hands each runner its share.
      const drivenScript = generators === 1
        ? DRIVEN_SCRIPTS.includes(plan.script)
        : plan.script === 'capacity' && Boolean(plan.search);
      const drive = !options.fixedSlots && drivenScript ? partDrive(plan) : null;
      const env = {
        PLAN: run.planFile,
        PROMPTS: planPromptForm(plan) === promptForm(options.api) ? run.promptsFile : run.rawPromptsFile!,
        RESULTS_DIR: partDir,
        BASE_URL: run.baseUrl,
        MODEL: run.model,
        API: options.api,
        LLM_AGENT: run.agents[0]!,
      } satisfies Record<(typeof PART_ENV_KEYS)[number], string>;
      const invocation = { bundle, partDir, env, tags: { testid: options.runId } };
      const partRun = await this.runPart(engine, plan, i, plans.length, invocation, drive);
      const { requests: measured, counts, running } = partRun;
      const code = generators > 1 ? await this.splitVerdict(partDir, partRun.code) : partRun.code;
      time.parts.push({ part: plan.script, ...running });
      runInfo.parts.push(plan.script);
      runInfo.exitCodes[plan.script] = code;
      runInfo.requests[plan.script] = counts;
      writeRunInfo(run.runDir, runInfo);
      requests += measured;
      if (code === EXIT.interrupted) this.stopping = true;
      else if (code !== EXIT.ok && code !== EXIT.thresholdsFailed) {
        this.emit('log', `${plan.script}: k6 exited with code ${code}; see ${path.join(partDir, 'engine-stderr.txt')}`);
      }
      worstCode = Math.max(worstCode, code === EXIT.interrupted ? 0 : code);
    }
    time.wallMs = performance.now() - benchStart;
    time.runningMs = time.parts.reduce((sum, part) => sum + part.runningMs, 0);
    finishRunInfo(runInfo, this.stopping, time);
    writeRunInfo(run.runDir, runInfo);
    this.emit('log', renderTimeSpent(time));
    return { worstCode, requests };
  }

  /** The report of what was measured, when asked for and when at least one part wrote its summary. */
  private async writeReport(runDir: string, runInfo: RunInfoRecord): Promise<void> {
    const generators = this.options.generators ?? 1;
    const summaryWritten = runInfo.parts.some((part) => existsSync(path.join(runDir, part, 'summary.json')) ||
      Array.from({ length: generators }, (_, i) => path.join(runDir, part, runnerDirName(i + 1), 'summary.json')).some(existsSync));
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
      const r = await this.runSlots(engine, plan, index, count, part, null);
      // In time slots the bench hands out nothing: the time with requests running comes from the CSV's e2e samples.
      return { ...r, running: { wallMs: performance.now() - started, runningMs: r.runningMs } };
    }
    const generators = this.options.generators ?? 1;
    // With the server's metrics scraped, a step on a drained server waits a scrape interval and a bit first, so a
    // scrape falls between steps and the server's histograms can be read per step.
    const monitored = plan.monitor.enabled && plan.target.metricsUrl !== null;
    const quietMs = monitored ? plan.monitor.intervalSeconds * 1000 + QUIET_MARGIN_MS : 0;
    const shares = generators > 1 ? runnerShares(generators) : null;
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
      const r = await this.runSlots(engine, plan, index, count, { ...part, env }, { driver, search: drive.search });
      const busy = driver.busy();
      const steps = driver.snapshot();
      const cells = drivenCells(steps, driver.unfinishedByStep(), driverStart);
      // The script wrote the plan it was given; the cells that ran are the steps the bench chose
      // (none when the engine never started: its plan.json stays, and the report says nothing ran).
      if (cells.length > 0)
        writeFileSync(
          path.join(part.partDir, 'plan.json'),
          JSON.stringify({ ...plan, cells, totalSeconds: Math.round(busy.wallMs) / 1000 } satisfies Plan, null, 1),
        );
      if (drive.search) {
        this.emit('log', renderSearchTable(drive.search, plan.script === 'sessions' ? 'active-user search' : 'capacity search'));
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

  private async runSlots(
    engine: Engine, plan: Plan, index: number, count: number, part: PartInvocation,
    driven: { driver: Driver; search: CapacitySearch | null } | null,
  ): Promise<{ code: number; requests: number; counts: ReturnType<typeof requestCounts>; runningMs: number }> {
    const rwUrl = this.options.prometheusRw ? prometheusWriteUrl(this.options.prometheusRw) : null;
    const withRw = (args: string[]): string[] => (rwUrl ? withPrometheusRw(args) : args);
    const [program, ...lead] = engine.command;
    const generators = this.options.generators ?? 1;
    const launch = generators > 1
      ? await splitLaunch(part, generators, this.options.runId, withRw, this.agentUrls)
      : { runs: [{ args: withRw(runArguments(part)), dir: part.partDir }], addresses: null };
    let env: NodeJS.ProcessEnv = { ...process.env };
    if (rwUrl) env = prometheusRwEnv(rwUrl, env);
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
        `${plan.script}: ${plan.cells.length} cells, ${state.cells.reduce((n, c) => n + c.planned, 0)} requests, ` +
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
    const summary = driven?.search || generators > 1 ? '' : readIfExists(path.join(part.partDir, 'summary.json'));
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
    return { code, requests, counts: requestCounts(state), runningMs: coveredMs(tails.flatMap((t) => t.requestSpans)) };
  }

  /**
   * A split part's verdict on the merged samples: each runner's exit code 99 judged only its share, so
   * 99 or 0 is decided again by the gates and thresholds on all the runners' samples (report/gate-verdict.ts).
   */
  private async splitVerdict(partDir: string, code: number): Promise<number> {
    if (code !== EXIT.ok && code !== EXIT.thresholdsFailed) return code;
    try {
      const failures = gateFailures(await analyzeRun(partDir));
      this.emit('log', `${path.basename(partDir)}: runners merged; ${failures.length === 0 ? 'gates and thresholds passed' :
        `${failures.length} failure(s) on the merged samples: ${failures.slice(0, 3).join('; ')}`}`);
      return failures.length === 0 ? EXIT.ok : EXIT.thresholdsFailed;
    } catch (e) {
      this.emit('log', `${path.basename(partDir)}: the runners' samples could not be merged (${(e as Error).message})`);
      return code;
    }
  }

  private runReport(runDir: string): Promise<number> {
    return new Promise((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'scripts', 'report.ts'), runDir], {
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

