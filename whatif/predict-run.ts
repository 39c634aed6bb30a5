// `npm run bench -- --predict <profile>`: a plan's parts run in the simulator's virtual time and written as a run
// folder marked predicted; the one report generator reports it from the parts' samples held in memory (the folder
// keeps them as predicted-samples.jsonl, for `npm run report` later). Runs in Node.
//
// The parts are the bench's own: the same resolved plans, the same Driver and step sources (fixed cells, the adaptive
// capacity search), with sim/batcher.ts serving the requests in virtual time (whatif/virtual-drive.ts). So the
// report's capacity is its own judgement of the steps, as for a measured run. docs/guides/what-if.md.

import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { applyEnvToPlan } from '../lib/env';
import { EXIT, UserError } from '../lib/exit-codes';
import { resolvePlan, type Plan, type PlanInput, type ScriptName } from '../lib/plan';
import { promptLengthsForWindow, type FittedContext } from '../orchestrator/context-window';
import type { CapacityAnnouncement } from '../lib/drive';
import { searchCapacities } from '../orchestrator/driven-results';
import { predictionReach, type PredictedUseCase } from './prediction-reach';
import { SCHEDULER_FACTOR } from './scheduler-draws';
import { generateReport, type PartSamples } from '../report/generate';
import type { SamplesData } from '../report/samples-collector';
import { readPartSamples } from '../report/split-inputs';
import { DEFAULT_REPORT_OPTIONS } from '../report/build-report';
import type { Report } from '../report/report-types';
import type { Profile } from '../sim/profiles';
import type { PredictProfile } from './predict-profile';
import { drivePart, PREDICTED_SCRIPTS, writePredictedPart } from './predicted-part';
import { capacityIntervals, intervalRefits, INTERVAL_METHOD, type CapacityInterval } from './prediction-interval';
import { predictedRunInfo, type PredictedRecord } from './predicted-run-info';

/** The host of a predicted plan's target: reserved (RFC 2606), so it can never be taken for a server that ran. */
export const VIRTUAL_BASE_URL = 'http://virtual-time.invalid/v1';

export interface PredictOptions {
  readonly profile: PredictProfile;
  /** The plan input as the bench resolved it (presets, --min-goodput and the environment applied). */
  readonly planInput: PlanInput;
  readonly planLabel: string;
  readonly scripts: readonly ScriptName[];
  readonly resultsRoot: string;
  readonly runId: string;
  /** The what-if variant this run predicts ("prompt=2x"), and the base prediction's folder it compares with. */
  readonly variant?: { readonly label: string; readonly baseRunDir: string } | null;
  readonly log: (line: string) => void;
}

export interface PredictOutcome {
  readonly runDir: string;
  readonly report: Report;
  readonly intervals: readonly CapacityInterval[] | null;
  readonly seconds: number;
}

/** Each part's resolved plan against the virtual target; a script not predicted yet is a one-line usage error. */
export function predictedPlans(planInput: PlanInput, scripts: readonly ScriptName[], profile: Profile): Plan[] {
  const unsupported = scripts.find((s) => !(PREDICTED_SCRIPTS as readonly string[]).includes(s));
  if (unsupported)
    throw new UserError(
      `--predict: the ${unsupported} script is not predicted yet (it predicts ${PREDICTED_SCRIPTS.join(', ')})`,
      EXIT.usage,
    );
  // No server runs: nothing to scrape, and the target names no host that could answer.
  const input = applyEnvToPlan(
    { ...planInput, monitor: { ...planInput.monitor, enabled: false } },
    { BASE_URL: VIRTUAL_BASE_URL, MODEL: profile.model },
  );
  const virtual = { ...input, target: { ...input.target, metricsUrl: null } };
  const plans = scripts.map((script) => resolvePlan(virtual, script, (file) => readFileSync(file, 'utf8')));
  // A context the profile's window cannot hold with its output is refused before anything runs.
  fittedPrompts(plans, profile);
  return plans;
}

/**
 * The prompt length of each context whose cells' output would overflow the profile's window, as the bench fits them to
 * a server's (the simulator states the profile's window as its max_model_len); a context that cannot fit is bad input.
 */
function fittedPrompts(plans: readonly Plan[], profile: Profile): FittedContext[] {
  return promptLengthsForWindow(plans.flatMap((p) => p.cells), profile.maxModelLen);
}

/** Predicts every part, writes the run folder and its report; resolves to the report. */
export async function predictRun(o: PredictOptions): Promise<PredictOutcome> {
  const started = performance.now();
  const { profile } = o.profile;
  const plans = predictedPlans(o.planInput, o.scripts, profile);
  const runDir = path.resolve(o.resultsRoot, o.runId);
  mkdirSync(runDir, { recursive: true });
  const startedAt = new Date();
  const requests: Record<string, number> = {};
  const fitted = fittedPrompts(plans, profile);
  const promptOf = new Map(fitted.map((f) => [f.contextTokens, f.promptTokens]));
  for (const f of fitted) o.log(`context ${f.contextTokens}: prompts of ${f.promptTokens} tokens, to fit the window`);
  let virtualMs = 0;
  let capacities: CapacityAnnouncement[] = [];
  // Each part's samples as the report reads them, handed over in memory: no file is parsed back.
  const samples = new Map<string, SamplesData>();
  for (const plan of plans) {
    const { drive, search } = drivePart(profile, plan, promptOf, o.profile.fit?.clientGapMs ?? 0);
    if (search) capacities = searchCapacities(search);
    const part = writePredictedPart(runDir, plan, drive, startedAt.getTime() + virtualMs);
    requests[plan.script] = part.requests;
    samples.set(plan.script, part.samples);
    virtualMs += drive.wallMs;
    const virtualSeconds = (drive.wallMs / 1000).toFixed(0);
    o.log(`${plan.script}: predicted ${requests[plan.script]} requests, ${virtualSeconds} s of virtual time`);
  }
  const capacityPlan = plans.find((p) => p.script === 'capacity') ?? null;
  const resampled = capacityPlan !== null && o.profile.resampled.length > 0;
  const intervals = resampled ? resampledIntervals(o.profile, capacityPlan, promptOf, o.log) : null;
  const record: PredictedRecord = {
    profile: profile.name,
    source: o.profile.source,
    fittedFrom: o.profile.fit?.run ?? null,
    intervalMethod: intervals ? INTERVAL_METHOD : null,
    intervals,
    intervalNote: intervalNote(o.profile, capacityPlan !== null),
    variant: o.variant?.label ?? null,
    baseRun: o.variant ? path.basename(o.variant.baseRunDir) : null,
    virtualSeconds: Math.round(virtualMs) / 1000,
    reach: capacityPlan === null ? null
      : predictionReach(predictedUseCases(capacityPlan, capacities, intervals, promptOf), o.profile.fit ?? null),
  };
  const command = ['npm', 'run', 'bench', '--', ...process.argv.slice(2)];
  const runInfo = predictedRunInfo({
    runId: o.runId, planLabel: o.planLabel, model: profile.model, startedAt, plans, requests, record, command,
    contextWindow: profile.maxModelLen, fittedPrompts: fitted,
  });
  writeFileSync(path.join(runDir, 'run.json'), JSON.stringify(runInfo, null, 2));
  const { report } = await generateReport(runDir, {
    ...DEFAULT_REPORT_OPTIONS, baseline: o.variant?.baseRunDir ?? null, tolerance: 0.1, outDir: null,
  }, inMemory(samples));
  return { runDir, report, intervals, seconds: (performance.now() - started) / 1000 };
}

/** The report's samples of each part from memory; a part not predicted here is read from its folder. */
function inMemory(samples: ReadonlyMap<string, SamplesData>): PartSamples {
  return (part) => {
    const held = samples.get(part.name);
    return held ? Promise.resolve(held) : readPartSamples(part);
  };
}

/** Each capacity use case as predicted: its prompt as sent, answer length, limits, capacity and interval. */
function predictedUseCases(
  plan: Plan, capacities: readonly CapacityAnnouncement[], intervals: readonly CapacityInterval[] | null,
  promptOf: ReadonlyMap<number, number>,
): PredictedUseCase[] {
  return plan.useCases.flatMap((u) => {
    const cell = plan.cells.find((c) => c.useCase === u.id);
    if (!cell) return [];
    return [{
      useCase: u.id, promptTokens: promptOf.get(cell.contextTokens) ?? cell.contextTokens,
      outputTokens: cell.outputTokens, metrics: u.limits.map((l) => l.metric),
      capacity: capacities.find((c) => c.useCase === u.id)?.capacity ?? null,
      high: intervals?.find((i) => i.useCase === u.id)?.high ?? null,
    }];
  });
}

/** The capacity part's search run again with each resampled profile: the capacities the fit's uncertainty allows. */
function resampledIntervals(
  p: PredictProfile, plan: Plan, promptOf: ReadonlyMap<number, number>, log: (line: string) => void,
): CapacityInterval[] {
  const refits = intervalRefits(p.resampled);
  log(`prediction interval: the capacity search with each of ${refits.length} resampled profiles`);
  const predictions = refits.map((profile) => {
    const { search } = drivePart(profile, plan, promptOf, p.fit?.clientGapMs ?? 0);
    return new Map(searchCapacities(search!).map((c) => [c.useCase, c.capacity]));
  });
  return capacityIntervals(predictions);
}

/** Which parameters the run did not pin down: the refits carry their spread, or, for scheduler limits, none. */
function unpinnedNote(fit: PredictProfile['fit']): string {
  const loose = (fit?.parameters ?? []).filter((x) => !x.pinned);
  const timing = loose.filter((x) => !x.name.startsWith('scheduler.')).map((x) => x.name);
  const limits = loose.filter((x) => x.name.startsWith('scheduler.')).map((x) => x.name.slice('scheduler.'.length));
  const parts = [
    timing.length > 0 ? ` The refits carry the spread of the timing parameters the run did not pin down ` +
      `(${timing.join(', ')}).` : ' The run pinned every timing parameter down.',
    limits.length > 0 ? ` Scheduler limits taken from the base profile, not stated (${limits.join(', ')}): ` +
      `${drawnNote(fit)}; a capacity that reaches them is only as good as that guess.` : '',
  ];
  return parts.join('');
}

/** Which unstated scheduler limits the refits drew (fit records since issue 44.3), or that they carry none. */
function drawnNote(fit: PredictProfile['fit']): string {
  const drawn = [...new Set((fit?.schedulerResamples ?? []).flatMap((d) => Object.keys(d)))];
  return drawn.length > 0
    ? `the refits draw ${drawn.join(', ')} within a factor ${SCHEDULER_FACTOR} of the guess, the others carry no spread`
    : 'they carry no spread';
}

/** How the interval was made, or why there is none: what the report says beside the capacities. */
function intervalNote(p: PredictProfile, capacity: boolean): string {
  if (!capacity) return 'No capacity part was predicted, so no capacity interval.';
  if (p.source === 'fitted' && p.resampled.length === 0)
    return 'No prediction interval: the fitted profile\'s fit record holds no refits on resampled requests.';
  if (p.source === 'fitted')
    return `Each capacity's interval is the 5th-95th percentile of the same prediction made with each of the ` +
      `${intervalRefits(p.resampled).length} refits of the fitted profile on resampled requests (its fit record).` +
      unpinnedNote(p.fit);
  return `No prediction interval: the ${p.source} profile has no fit record, so nothing says how far its ` +
    'parameters could be off; a profile fitted to a measured run (npm run fit) gives one.';
}
