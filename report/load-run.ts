// Loads what `npm run report` is given: a run folder, a part folder, a split part's folder or its runners' folders.
// Runs in Node.
//
// Layouts: docs/reference/contracts.md, "Run folder" and "Split runs". A part split across k6 processes is a
// folder of runner folders (each with runner.json); the report merges them into one part.

import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve, sep } from 'node:path';
import { SCRIPT_NAMES } from '../lib/plan';
import { parseRunInfo, readJson, readPart, ReportInputError, type PartInput, type RunInput } from './inputs';
import { isRunnerFolder, readSplitPart, runnerFoldersIn } from './split-inputs';

/** A part folder: one k6 process's (plan.json, samples.csv) or a split part's (runner folders inside). */
function readPartFolder(dir: string, name: string): PartInput {
  const runners = runnerFoldersIn(dir);
  return runners.length > 0 ? readSplitPart(name, dir, runners) : readPart(dir, name);
}

function checkFolder(folder: string): string {
  const dir = resolve(folder);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) {
    throw new ReportInputError(
      `${folder} is not a folder: pass results/<run-id> (a run folder) or one of its part folders`,
    );
  }
  return dir;
}

/**
 * Loads a run folder (results/<run-id>, holding run.json and part folders), a single part folder (one
 * that holds plan.json itself, or runner folders), or one runner's folder. Parts are ordered as in
 * run.json, else sweep, capacity, burst, mix, gate.
 */
function loadFolder(folder: string): RunInput {
  const dir = checkFolder(folder);
  const runPath = join(dir, 'run.json');
  const run = existsSync(runPath) ? parseRunInfo(readJson(runPath), runPath) : null;
  if (isRunnerFolder(dir)) return { dir, run, parts: [readSplitPart(basename(dir), null, [dir])] };
  if (existsSync(join(dir, 'plan.json')) || runnerFoldersIn(dir).length > 0) {
    return { dir, run, parts: [readPartFolder(dir, basename(dir))] };
  }
  const found = readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory() &&
      (existsSync(join(dir, d.name, 'plan.json')) || runnerFoldersIn(join(dir, d.name)).length > 0))
    .map((d) => d.name);
  const order = run && run.parts.length > 0 ? [...run.parts] : [...SCRIPT_NAMES];
  const rank = (n: string): number => {
    const i = order.indexOf(n);
    return i < 0 ? order.length : i;
  };
  found.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  if (found.length === 0) {
    throw new ReportInputError(
      `no plan.json in ${folder} or its part folders (sweep/, capacity/, burst/, mix/, gate/): is this a run ` +
      `folder written by npm run bench?`,
    );
  }
  return { dir, run, parts: found.map((name) => readPartFolder(join(dir, name), name)) };
}

/**
 * Loads the report's input. One folder: see loadFolder. Several: the folders of one split part's
 * runners (a k6-operator run's shared volume, one folder per runner), merged into one part.
 */
export function loadRun(folders: string | readonly string[]): RunInput {
  const list = typeof folders === 'string' ? [folders] : folders;
  if (list.length === 1) return loadFolder(list[0]!);
  if (list.length === 0) {
    throw new ReportInputError('no folder given: pass results/<run-id> or the runner folders of a split run');
  }
  const dirs = list.map(checkFolder);
  for (const [i, dir] of dirs.entries()) {
    if (!isRunnerFolder(dir) && !existsSync(join(dir, 'samples.csv'))) {
      throw new ReportInputError(
        `${list[i]} is not a runner's folder (no runner.json or samples.csv): ` +
          'with several folders, pass one per k6 runner',
      );
    }
  }
  const part = readSplitPart('', null, dirs);
  return { dir: commonParent(dirs), run: null, parts: [{ ...part, name: part.plan.script }] };
}

/** The deepest folder that holds every one of `dirs` (the report is written there by default). */
function commonParent(dirs: readonly string[]): string {
  const split = dirs.map((dir) => dirname(dir).split(sep));
  const common: string[] = [];
  const sharedAt = (i: number): boolean => split.every((parts) => i < parts.length && parts[i] === split[0]![i]);
  for (let i = 0; sharedAt(i); i++) common.push(split[0]![i]!);
  return common.join(sep) || sep;
}
