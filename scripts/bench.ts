// `npm run bench`: the main job.
// Parses flags, runs the bench (simulator by default), shows progress, says where the results are. Runs in Node.

import { Command, Option } from 'commander';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { TRACE_FORMATS } from '../lib/trace/types';
import { API_STYLES, SCRIPT_NAMES, type ApiStyle, type PlanInput, type ScriptName } from '../lib/plan';
import { EXIT } from '../lib/exit-codes';
import { applyEnvToPlan } from '../lib/env';
import { Bench } from '../orchestrator/bench';
import { parseAgentPriority } from '../orchestrator/agent-priority';
import {
  BUILT_IN_TARGETS, benchPlanEnv, newRunId, type BenchOptions, type BenchOutcome, type BuiltInTarget,
} from '../orchestrator/bench-options';
import type { Report } from '../report/report-types';
import { DEFAULT_PLANS, PLAN_SCRIPTS, REPORT_PRESETS } from '../orchestrator/default-plans';
import { renderProgressLine } from '../orchestrator/progress';
import { numberArg, numberListArg, parseCommandLine, positive, runMain, UserError } from './cli';
import { predictFromCommandLine, type PredictFlags } from './bench-predict';
import { fitForPlan, type FitForFlags } from './bench-fit-for';
import { DEFAULT_VERIFY_BUDGET_MINUTES, verifyPrediction } from './bench-verify';

runMain('bench', async () => {
  const program = benchCommand();
  if (!parseCommandLine(program)) return EXIT.ok;
  const o = readFlags(program);
  const runners = runnerCount(o.runners);
  const agentPriority = parseAgentPriority(
    o.agentPriority ?? process.env.LLM_AGENT_PRIORITY ?? 'normal',
    o.agentPriority !== undefined ? '--agent-priority' : 'LLM_AGENT_PRIORITY',
  );
  const { scripts, preset } = chosenScripts(o, program);
  const target = o.target as BuiltInTarget;
  const url = o.url ?? process.env.LLM_BASE_URL ?? null;
  if (url && target !== 'sim')
    throw new UserError(`--target ${target} starts a server of its own: leave out --url (or LLM_BASE_URL)`, EXIT.usage);
  // The llama plan is sized for the tiny model on one server thread, which every real built-in target runs.
  const planName = o.plan ?? (target !== 'sim' ? 'llama' : 'quick');
  const builtIn = DEFAULT_PLANS[planName];
  const sized = fitForPlan(o, planName);
  const planLabel = sized?.label ?? (builtIn ? `built-in "${planName}"` : planName);
  const planInput = planFromFlags(o, sized?.plan ?? builtIn ?? readPlanFile(planName), url, scripts);
  const verifying = o.verify !== undefined;
  if (o.verifyBudget !== undefined && !verifying) {
    throw new UserError('--verify-budget limits --verify: give --verify too', EXIT.usage);
  }
  let predicted: Report | null = null;
  if (o.predict !== undefined || o.whatIf.length > 0) {
    const given = (name: string) => program.getOptionValueSource(name) === 'cli';
    predicted = await predictFromCommandLine(o, { planInput, planLabel, scripts, given, verifying });
    if (!verifying) return EXIT.ok;
  } else if (verifying) throw new UserError('--verify checks a prediction: give --predict <profile>', EXIT.usage);
  const simNoise = simNoiseFromFlags(o, url, target);
  const benchOptions: BenchOptions = {
    url: url ? url.replace(/\/+$/, '') : null,
    target,
    model: o.model ?? process.env.LLM_MODEL ?? null,
    apiKey: o.apiKey ?? process.env.LLM_API_KEY ?? null,
    api: o.api,
    planInput,
    planLabel,
    scripts,
    simProfile: o.profile ?? preset?.profile ?? null,
    simNoise,
    resultsRoot: o.results,
    runId: o.runId ?? newRunId(),
    tokenizer: o.tokenizer,
    report: o.report,
    prometheusRw: o.prometheusRw ?? null,
    fixedSlots: o.fixedSlots === true,
    runners,
    agentPriority,
  };
  if (verifying) return verifyOnTarget(predicted!, benchOptions, o.verify, o.verifyBudget);
  const outcome = await measure(new Bench(benchOptions));
  process.stdout.write(`results: ${outcome.runDir}\n`);
  return outcome.exitCode;
});

/** The bench's command line: its flags, in the order --help lists them. */
function benchCommand(): Command {
  const program = new Command('bench')
    .description(
      'Measure how many concurrent users an OpenAI-compatible endpoint serves per use case ' +
      '(default: the built-in simulator).',
    );
  addTargetFlags(program);
  addPlanFlags(program);
  addOutputFlags(program);
  addExecutionFlags(program);
  addTraceFlags(program);
  addPredictFlags(program);
  return program
    .option('--no-report', 'skip the report at the end')
    .exitOverride()
    .configureOutput({ writeErr: (s) => process.stderr.write(s.startsWith('error:') ? '' : s) });
}

/** What is measured: the endpoint, or the built-in target started in its place, and how it is called. */
function addTargetFlags(program: Command): void {
  program
    .option('--url <baseUrl>', 'target base URL ending in /v1 (env LLM_BASE_URL); without it --target is started')
    .addOption(
      new Option(
        '--target <name>',
        "built-in target to start when no --url is given: the simulator, or a real server with a tiny Qwen3 model " +
        "(llama.cpp's llama-server, vLLM's CPU build or SGLang; built or installed into the cache on first use)",
      )
        .choices([...BUILT_IN_TARGETS])
        .default('sim'),
    )
    .option('--model <name>', 'model name (env LLM_MODEL; default: the first of GET /v1/models)')
    .option('--api-key <key>', 'bearer token (prefer env LLM_API_KEY: flags show in process lists)')
    .addOption(new Option('--api <style>', 'API style').choices([...API_STYLES]).default('chat'));
}

/** What is run: the plan, its scripts, the simulator's behaviour and the goodput the capacity is judged on. */
function addPlanFlags(program: Command): void {
  program
    .option(
      '--plan <file|quick|full|llama|report-a..report-e>',
      "plan JSON file, or a built-in plan (default: quick; llama with a real --target; report-X: that seed report's " +
      "grid, scripts and simulator profile)",
    )
    .option('--scripts <list>', `entry scripts to run, in order (${SCRIPT_NAMES.join(', ')})`, 'sweep,capacity')
    .option('--profile <name>', 'simulator profile (npm run sim -- --list-profiles)')
    .option('--sim-noise', 'simulator with step-time jitter and stalls, as on a GPU (npm run sim -- --noise)')
    .option('--sim-noise-seed <n>', 'seed of the simulator noise, to repeat a noisy run (implies --sim-noise)')
    .option(
      '--min-goodput <share>',
      'judge capacity and gates also on goodput: at least this share (0.01-1) of requests within every limit ' +
      '(plan minGoodput)',
    )
    .option('--fit-for <plan>', 'with --plan fit: size the fit run to this plan (its longest prompt, its most users; '
      + 'docs/guides/what-if.md)')
    .option('--fit-budget <minutes>', 'with --fit-for: the fit run\'s time budget, estimated on the simulator (default '
      + '10)');
}

/** Where the results go: the run folder, the tokenizer that makes prompts exact, live metrics. */
function addOutputFlags(program: Command): void {
  program
    .option('--results <dir>', 'results root folder', 'results')
    .option('--run-id <id>', 'results/<run-id> folder name (default: the start time)')
    .addOption(
      new Option('--tokenizer <kind>', 'how prompt lengths are made exact')
        .choices(['auto', 'qwen3', 'server', 'approximate'])
        .default('auto'),
    )
    .option(
      '--prometheus-rw <url>',
      'send the metrics live to this Prometheus remote-write URL (k6 -o experimental-prometheus-rw, testid = the ' +
      'run id); a base URL gets /api/v1/write',
    );
}

/** How the parts run: k6's fixed time slots or back to back, in one k6 process or split over several. */
function addExecutionFlags(program: Command): void {
  program
    .option(
      '--fixed-slots',
      "run cells in k6's fixed time slots as a plain k6 run does, and capacity as the plan's fixed ladder, instead " +
      "of back to back with an adaptive capacity search",
    )
    .option(
      '--runners <n>',
      "split every part over n k6 processes on this machine, exactly as the k6-operator splits a TestRun " +
      "(execution segments, started paused and resumed together over k6's REST API); cells run in k6's time " +
      "slots, each runner sends its share of a rate cell's schedule, and the report merges the runners",
      '1',
    )
    .addOption(new Option('--generators <n>', 'the former name of --runners').hideHelp())
    .option(
      '--agent-priority <p>',
      'the measuring agent\'s scheduling priority: normal, realtime (SCHED_FIFO via chrt; needs root) or auto ' +
      '(realtime where allowed). On a shared machine realtime keeps it reading on time, so fewer cells are ' +
      'client-bound (default: LLM_AGENT_PRIORITY, else normal)',
    );
}

/** Replaying a production trace instead of the plan's synthetic load. */
function addTraceFlags(program: Command): void {
  program
    .option('--trace <file>', 'replay a production trace (Mooncake, Azure, BurstGPT, Bailian; runs the trace script)')
    .addOption(new Option('--trace-format <name>', 'the trace format, instead of detecting it').choices(TRACE_FORMATS))
    .option('--trace-speed <list>', 'replay speeds, e.g. 1,1.5,2 (2 = twice as fast); the report says which held',
      numberListArg('--trace-speed', (n) => positive(n) && n <= 1000, 'speeds above 0 and up to 1000'), [1])
    .option('--trace-start <s>', 'replay from this many seconds after the first row',
      numberArg('--trace-start', (n) => n === 0 || positive(n), 'a number of seconds >= 0'))
    .option('--trace-duration <s>', 'replay this many seconds of the trace (of its own time)',
      numberArg('--trace-duration', positive, 'a number of seconds > 0'))
    .option('--trace-max-requests <n>', 'replay at most this many rows, the earliest',
      numberArg('--trace-max-requests', (n) => Number.isInteger(n) && n >= 1, 'a whole number >= 1'))
    .option('--trace-use-case <id>', "the use case whose limits judge the replay (default short_chatbot)")
    .option('--trace-search', 'search the fastest speed within the limits instead of --trace-speed\'s list '
      + '(from its first speed, to 5%; plan trace.search)')
    .option('--trace-skip-bad-rows', 'replay without rows that break the format instead of stopping at the first')
    .option('--agent-trace <file>', 'replay recorded agent sessions (Mooncake with session_id, Bailian, an '
      + 'OpenTelemetry span export) as the agentic script; --trace-format and --trace-skip-bad-rows apply')
    .option('--agentic-search', "search each SLO tier's concurrent agents instead of the agentic plan's ladder "
      + '(plan agentic.search, its defaults unless the plan gives them)');
}

/** Predicting in the simulator's virtual time instead of measuring, with what-if variants and a verification. */
function addPredictFlags(program: Command): void {
  program
    .option(
      '--predict <profile>',
      "predict the plan in the simulator's virtual time instead of measuring (seconds, not hours): a built-in " +
      'profile ' +
      '(name or letter), a profile JSON, or a fitted one (npm run fit; adds prediction intervals); the report says ' +
      'predicted everywhere (docs/guides/what-if.md)',
    )
    .option(
      '--what-if <NAME=VALUE>',
      'with --predict, also predict a variant beside the base, repeatable: prompt=2x, output=512, ttft=2000, ' +
      'e2e=1500, itl=50, tpot=50, decode-speed=20',
      (value: string, list: string[]) => [...list, value], [] as string[],
    )
    .option(
      '--verify [n]',
      'with --predict: then measure the steps either side of the n predicted capacities it is least sure of ' +
      '(beyond the fit run, widest interval, longest context; default 3) on the ' +
      'target (--url, --target, or the simulator with --profile) and print predicted against measured',
    )
    .option(
      '--verify-budget <minutes>',
      `with --verify: the minutes its measurements may take, estimated from the prediction; a use case that would ` +
      `overrun is passed over for the next (default ${DEFAULT_VERIFY_BUDGET_MINUTES})`,
      numberArg('--verify-budget', positive, 'a number of minutes > 0'),
    );
}

type BenchFlags = {
  url?: string; model?: string; apiKey?: string; api: ApiStyle; plan?: string; target: string; scripts: string;
  profile?: string; results: string; runId?: string; tokenizer: 'auto'; report: boolean; prometheusRw?: string;
  fixedSlots?: boolean; simNoise?: boolean; simNoiseSeed?: string; minGoodput?: string; runners: string;
  generators?: string; agentPriority?: string;
} & TraceFlags & PredictFlags & FitForFlags;

/** The parsed flags, the deprecated --generators read as --runners. */
function readFlags(program: Command): BenchFlags {
  const o = program.opts<BenchFlags>();
  if (o.generators !== undefined) {
    // The k6 processes of a split run were "generators" here and "runners" everywhere else (issue 35).
    process.stderr.write('--generators is deprecated: it is now --runners (same meaning)\n');
    if (program.getOptionValueSource('runners') !== 'cli') o.runners = o.generators;
  }
  return o;
}

/** --runners as a count of k6 processes, 1 to 64. */
function runnerCount(flag: string): number {
  const runners = Number(flag);
  if (!(Number.isInteger(runners) && runners >= 1 && runners <= 64))
    throw new UserError(`--runners must be a whole number from 1 to 64, got "${flag}"`, EXIT.usage);
  return runners;
}

/**
 * The entry scripts to run: --scripts if given, else the trace script for --trace, else the plan's own (a report
 * preset's, which also brings its simulator profile), else the default.
 */
function chosenScripts(o: BenchFlags, program: Command): {
  scripts: ScriptName[]; preset: (typeof REPORT_PRESETS)[string] | undefined;
} {
  const preset = o.plan ? REPORT_PRESETS[o.plan] : undefined;
  const scriptsGiven = program.getOptionValueSource('scripts') !== 'default';
  const planScripts = preset?.scripts ?? (o.plan ? PLAN_SCRIPTS[o.plan] : undefined);
  const scriptList =
    (o.agentTrace || o.agenticSearch) && !scriptsGiven ? 'agentic'
      : o.trace && !scriptsGiven ? 'trace' : planScripts && !scriptsGiven ? planScripts.join(',') : o.scripts;
  const scripts = scriptList.split(',').map((s) => s.trim()).filter(Boolean) as ScriptName[];
  for (const s of scripts)
    if (!SCRIPT_NAMES.includes(s))
      throw new UserError(`--scripts: "${s}" is not one of ${SCRIPT_NAMES.join(', ')}`, EXIT.usage);
  return { scripts, preset };
}

/** A plan JSON file as given to --plan; an unreadable or malformed file is the user's to fix. */
function readPlanFile(file: string): PlanInput {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as PlanInput;
  } catch (e) {
    throw new UserError(`--plan ${file}: ${(e as Error).message.split('\n')[0]}`);
  }
}

/** The plan with the flags and the environment applied: --min-goodput, the plan overrides, the trace. */
function planFromFlags(o: BenchFlags, plan: PlanInput, url: string | null, scripts: readonly ScriptName[]): PlanInput {
  let planInput = plan;
  if (o.minGoodput !== undefined) {
    const share = Number(o.minGoodput);
    if (!(share >= 0.01 && share <= 1))
      throw new UserError('--min-goodput must be a share 0.01-1, e.g. 0.95', EXIT.usage);
    planInput = { ...planInput, minGoodput: share };
  }
  // The environment's plan overrides (USE_CASES, RATES, ...) reach each part's k6 anyway: the bench plans with them.
  planInput = applyEnvToPlan(planInput, benchPlanEnv(process.env));
  if (!url && scripts.length === 0) throw new UserError('--scripts is empty', EXIT.usage);
  if (o.trace) planInput = { ...planInput, trace: traceSection(o) };
  // k6 opens the trace from dist/: a plan's relative path is made absolute from where the bench runs.
  else if (planInput.trace)
    planInput = { ...planInput, trace: { ...planInput.trace, file: path.resolve(planInput.trace.file) } };
  else if (scripts.includes('trace') && !planInput.trace)
    throw new UserError('--scripts trace replays a trace: give it with --trace FILE', EXIT.usage);
  return agentTraceFromFlags(o, planInput);
}

/**
 * The plan's agentic.search from --agentic-search, and its agentic.trace from --agent-trace, or a plan's own with its
 * path made absolute (k6 opens it).
 */
function agentTraceFromFlags(o: TraceFlags, plan: PlanInput): PlanInput {
  // --agentic-search: the plan's own search settings, else the defaults.
  const planInput = o.agenticSearch
    ? { ...plan, agentic: { ...plan.agentic, search: plan.agentic?.search ?? {} } } : plan;
  const agentic = planInput.agentic ?? {};
  if (o.agentTrace) {
    const file = path.resolve(o.agentTrace);
    if (!existsSync(file)) throw new UserError(`--agent-trace ${o.agentTrace}: no such file`, EXIT.usage);
    const trace = { file, ...(o.traceFormat ? { format: o.traceFormat } : {}),
      ...(o.traceSkipBadRows ? { skipBadRows: true } : {}) };
    return { ...planInput, agentic: { ...agentic, trace } };
  }
  if (agentic.trace)
    return { ...planInput, agentic: { ...agentic, trace: { ...agentic.trace, file: path.resolve(agentic.trace.file) } },
    };
  return planInput;
}

/** The simulator's noise from --sim-noise and --sim-noise-seed; null for a quiet simulator. */
function simNoiseFromFlags(o: BenchFlags, url: string | null, target: BuiltInTarget): BenchOptions['simNoise'] {
  const simNoiseSeed = o.simNoiseSeed === undefined ? null : Number(o.simNoiseSeed);
  if (simNoiseSeed !== null && !(Number.isInteger(simNoiseSeed) && simNoiseSeed >= 0 && simNoiseSeed < 2 ** 32))
    throw new UserError(`--sim-noise-seed must be an integer 0..${2 ** 32 - 1}`, EXIT.usage);
  const simNoise = o.simNoise || simNoiseSeed !== null ? { seed: simNoiseSeed } : null;
  if (simNoise && (url || target !== 'sim'))
    throw new UserError('--sim-noise applies to the built-in simulator: leave out --url and --target', EXIT.usage);
  return simNoise;
}

/** --verify: measures the steps around the predicted capacities on the target and says where the runs are. */
async function verifyOnTarget(
  predicted: Report, benchOptions: BenchOptions, count: string | true | undefined, budgetMinutes?: number,
): Promise<number> {
  const budget = budgetMinutes ?? DEFAULT_VERIFY_BUDGET_MINUTES;
  const measureUseCase = (plan: PlanInput, useCase: string) => measure(new Bench({
    ...benchOptions, planInput: plan, planLabel: `${benchOptions.planLabel}, verified`, scripts: ['capacity'],
    runId: `${path.basename(predicted.runDir)}-verify-${useCase}`,
  }));
  const dirs = await verifyPrediction(predicted, benchOptions.planInput, count, budget, measureUseCase);
  process.stdout.write(`verification: ${dirs.join(', ')}\n`);
  return EXIT.ok;
}

/** Runs a measurement with progress on stderr, Ctrl-C interrupting it; what it kept if interrupted. */
async function measure(bench: Bench): Promise<BenchOutcome> {
  const tty = process.stderr.isTTY === true;
  let lastPlain = '';
  let lastPlainAt = 0;
  bench.on('log', (line) => {
    if (tty) process.stderr.write('\r\x1b[2K');
    process.stderr.write(line + '\n');
  });
  bench.on('progress', (state) => {
    const line = renderProgressLine(state);
    if (tty) {
      process.stderr.write('\r\x1b[2K' + line.slice(0, (process.stderr.columns ?? 120) - 1));
      return;
    }
    // Without a terminal: a plain line when the cell changes, and at most every 15 s otherwise.
    const cellPart = line.split(' | ')[0] ?? line;
    if (cellPart !== lastPlain || Date.now() - lastPlainAt > 15_000) {
      process.stderr.write(line + '\n');
      lastPlain = cellPart;
      lastPlainAt = Date.now();
    }
  });
  const onSignal = () => bench.interrupt();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    const outcome = await bench.run();
    if (tty) process.stderr.write('\r\x1b[2K');
    if (outcome.interrupted) {
      process.stderr.write(`bench: interrupted; kept ${outcome.requests} measured requests in ${outcome.runDir}\n`);
    }
    return outcome;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

interface TraceFlags {
  trace?: string; traceFormat?: (typeof TRACE_FORMATS)[number]; traceSpeed: number[]; traceStart?: number;
  traceSearch?: boolean;
  traceDuration?: number; traceMaxRequests?: number; traceUseCase?: string; traceSkipBadRows?: boolean;
  agentTrace?: string; agenticSearch?: boolean;
}

/** The plan's trace section from the --trace flags; the file's path made absolute, as k6 opens it from dist/. */
function traceSection(o: TraceFlags): NonNullable<PlanInput['trace']> {
  const file = path.resolve(o.trace!);
  if (!existsSync(file)) throw new UserError(`--trace ${o.trace}: no such file`, EXIT.usage);
  return {
    file, speeds: o.traceSpeed,
    ...(o.traceSearch ? { search: { startSpeed: o.traceSpeed[0] ?? 1 } } : {}),
    ...(o.traceFormat ? { format: o.traceFormat } : {}),
    ...(o.traceStart !== undefined ? { startSeconds: o.traceStart } : {}),
    ...(o.traceDuration !== undefined ? { durationSeconds: o.traceDuration } : {}),
    ...(o.traceMaxRequests !== undefined ? { maxRequests: o.traceMaxRequests } : {}),
    ...(o.traceUseCase ? { useCase: o.traceUseCase } : {}),
    ...(o.traceSkipBadRows ? { skipBadRows: true } : {}),
  };
}
