// Finds and reads the runners of a split part (one folder per k6 process) and merges their samples. Runs in Node.
//
// A runner's folder holds what one `k6 run --execution-segment=...` wrote: samples.csv, and from
// handleSummary summary.json, plan.json and runner.json (lib/runner.ts). A runner killed hard may
// have only samples.csv; one that never started has no folder. Both are named, never guessed away.
// Layout: docs/reference/contracts.md, "Split runs".

import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { readRunnerInfo, RUNNER_FILE, runnerLabel, type RunnerInfo } from '../lib/runner';
import { parseSequence, segmentText } from '../lib/segments';
import type { Plan } from '../lib/plan';
import {
  readJson, readPlanFile, readSummaryFile, ReportInputError, type PartInput, type RunnerInput, type SplitPart,
} from './inputs';
import { mergeSamples } from './merge-samples';
import { readSamples, type SamplesData } from './read-samples';
import { isPredictedSamplesFile, readPredictedSamples } from './predicted-samples';

const isDir = (path: string): boolean => existsSync(path) && statSync(path).isDirectory();

/** Whether a folder is one runner's: it holds runner.json. */
export function isRunnerFolder(dir: string): boolean {
  return existsSync(join(dir, RUNNER_FILE));
}

/**
 * The runner folders inside a folder: its subfolders with runner.json, and (once one has it) those with
 * samples.csv but no runner.json (a runner killed before its end). Empty when no subfolder is a runner's.
 */
export function runnerFoldersIn(dir: string): string[] {
  const subs = readdirSync(dir, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => join(dir, d.name));
  if (!subs.some(isRunnerFolder)) return [];
  return subs.filter((sub) => isRunnerFolder(sub) || existsSync(join(sub, 'samples.csv'))).sort();
}

function readRunner(dir: string, name: string): RunnerInput {
  const path = join(dir, RUNNER_FILE);
  let info: RunnerInfo | null = null;
  if (existsSync(path)) {
    try {
      info = readRunnerInfo(readJson(path), path);
    } catch (e) {
      throw new ReportInputError((e as Error).message);
    }
  }
  return { name, dir, info, samplesPath: join(dir, 'samples.csv'), ...readSummaryFile(dir) };
}

/** The runners' order and the ones missing; throws when the folders are of different splits or repeat a runner. */
function arrangeRunners(runners: RunnerInput[]): SplitPart {
  const known = runners.filter((r): r is RunnerInput & { info: RunnerInfo } => r.info !== null);
  const first = known[0]?.info ?? null;
  for (const r of known) {
    if (r.info.sequence !== first!.sequence) {
      throw new ReportInputError(
        `${r.name} is a runner of a split ${r.info.sequence} but ${known[0]!.name} of ${first!.sequence}: ` +
          'pass the folders of one run',
      );
    }
    const twin = known.find((other) => other !== r && other.info.runner === r.info.runner);
    if (twin) {
      throw new ReportInputError(
        `${runnerLabel(r.info)} appears twice (${twin.name} and ${r.name}): pass each runner once`,
      );
    }
  }
  known.sort((a, b) => a.info.runner - b.info.runner);
  const unknown = runners.filter((r) => r.info === null);
  const missing: string[] = [];
  if (first) {
    const segments = parseSequence(first.sequence);
    segments.forEach((segment, i) => {
      if (known.some((r) => r.info.runner === i + 1)) return;
      missing.push(runnerLabel({ runner: i + 1, runners: segments.length, segment: segmentText(segment) }));
    });
  }
  return { runners: [...known, ...unknown], count: first?.runners ?? null, missing };
}

/** The part's plan: the part folder's plan.json (the bench writes it first), else the first runner's that has one. */
function splitPlan(partDir: string | null, runners: readonly RunnerInput[], name: string): Plan {
  if (partDir && existsSync(join(partDir, 'plan.json'))) return readPlanFile(join(partDir, 'plan.json'));
  const withPlan = runners.find((r) => existsSync(join(r.dir, 'plan.json')));
  if (!withPlan) {
    throw new ReportInputError(`no plan.json in ${name} or any of its runner folders: no runner reached its end`);
  }
  const plan = readPlanFile(join(withPlan.dir, 'plan.json'));
  const ids = JSON.stringify(plan.cells.map((cell) => cell.id));
  for (const r of runners) {
    const path = join(r.dir, 'plan.json');
    if (r === withPlan || !existsSync(path)) continue;
    if (JSON.stringify(readPlanFile(path).cells.map((cell) => cell.id)) !== ids) {
      throw new ReportInputError(
        `${r.name} and ${withPlan.name} ran different plans: pass the runner folders of one run`,
      );
    }
  }
  return plan;
}

/**
 * A split part from its runner folders. `partDir` is the folder that holds them (null when the runner
 * folders were given one by one); `name` names the part in the report.
 */
export function readSplitPart(name: string, partDir: string | null, runnerDirs: readonly string[]): PartInput {
  for (const dir of runnerDirs) {
    if (!isDir(dir)) {
      throw new ReportInputError(`${dir} is not a folder: pass the runners' folders (each with samples.csv)`);
    }
  }
  const base = partDir ?? '';
  const runners = runnerDirs.map((dir) => readRunner(dir, partDir ? dir.slice(base.length + 1) : dir));
  const split = arrangeRunners(runners);
  const plan = splitPlan(partDir, split.runners, name);
  const ended = split.runners.filter((r) => r.summary !== null);
  const summaryProblem = ended.length === 0 ? 'no runner wrote its summary.json' : null;
  return {
    name, dir: partDir ?? runnerDirs[0]!, plan, samplesPath: split.runners[0]!.samplesPath, summary: null,
    summaryProblem, split,
  };
}

/** What is wrong with each runner, one sentence each: missing folders, runs that did not finish, a missing CSV. */
export function runnerProblems(split: SplitPart, cutBytes: ReadonlyMap<string, number>): string[] {
  const problems = split.missing.map((label) => `${label} has no folder: its share of every cell is missing`);
  for (const r of split.runners) {
    const who = r.info
      ? `${runnerLabel(r.info)} in ${r.name}`
      : `${r.name} (no ${RUNNER_FILE}: which runner it was is unknown)`;
    const why: string[] = [];
    if (!existsSync(r.samplesPath)) why.push('no samples.csv');
    if (r.summaryProblem !== null) why.push(r.summaryProblem);
    const cut = cutBytes.get(r.dir) ?? 0;
    if (cut > 0) why.push(`a samples.csv cut mid-line (${cut} bytes dropped)`);
    if (why.length > 0) problems.push(`${who} did not finish (killed?): ${why.join(', ')}`);
  }
  return problems;
}

/**
 * A part's samples: its CSV (a predicted part's: its own records, predicted-samples.ts), or its runners' CSVs merged,
 * one at a time (memory holds the merged cells and one CSV's reading), with what is wrong with each runner in
 * `split.problems`.
 */
export async function readPartSamples(part: PartInput): Promise<SamplesData> {
  if (!part.split) {
    return isPredictedSamplesFile(part.samplesPath) ? readPredictedSamples(part.samplesPath)
      : readSamples(part.samplesPath);
  }
  const cutBytes = new Map<string, number>();
  let merged: SamplesData | null = null;
  for (const runner of part.split.runners) {
    if (!existsSync(runner.samplesPath)) continue;
    const data = await readSamples(runner.samplesPath);
    cutBytes.set(runner.dir, data.partialTailBytes);
    merged = merged ? mergeSamples(merged, data) : { ...data, partialTailBytes: 0 };
  }
  if (!merged) {
    const names = part.split.runners.map((r) => r.name).join(', ');
    throw new ReportInputError(`${part.name}: none of its runners wrote samples.csv (${names})`);
  }
  const merging = part.split.runners.filter((r) => existsSync(r.samplesPath)).length;
  const runners = part.split.count ?? part.split.runners.length;
  return { ...merged, split: { runners, merged: merging, problems: runnerProblems(part.split, cutBytes) } };
}

