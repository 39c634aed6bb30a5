// Benchmarks how far a capacity can be trusted: repeated quick capacity searches on the noisy simulator. Runs in Node.
//
// Runs the bench's capacity part once on the deterministic simulator and `--runs` times with step-time noise
// (seeds 1..runs), each a fresh `npm run bench` with its report, and holds every stated capacity and 95% interval
// against the others and against the noisy simulator's true capacity: the deterministic run's crossing (fractional
// users, between its last passing and first failing steps) moved by what the noise moves the crossing in virtual time
// (bench/virtual-capacity.ts: thousands of requests per step, so the draws average out).
//
// Usage: npm run bench:repeatability [-- --runs 5] [--plan quick] [--use-cases a,b] [--keep DIR | --from DIR]
// Prints a table per use case; docs/design/capacity-intervals.md shows one.

import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import { DEFAULT_PLANS } from '../orchestrator/default-plans';
import { resolvePlan, type LimitStat, type PlanInput } from '../lib/plan';
import { DEFAULT_NOISE } from '../sim/noise';
import { DEFAULT_PROFILE_NAME, findProfile, type Profile } from '../sim/profiles';
import type { UseCase } from '../thresholds/use-cases';
import { boundaryCrossing, virtualCapacity, virtualCrossing } from './virtual-capacity';

const REPO = resolve(import.meta.dirname, '..');
/** The seed of the reference's noise: apart from the runs' seeds 1..runs. */
const REFERENCE_SEED = 1_000_003;

interface RunCapacity {
  readonly estimate: number | null;
  readonly low: number | null;
  readonly high: number | null;
  /** Extra measurements of unclear steps, over the use case's steps. */
  readonly repeats: number;
  /** Whether the one-user noise probe was measured again at the search's end. */
  readonly lateProbe: boolean;
  readonly unclear: boolean;
}

interface BenchRun {
  readonly seed: number | null;
  readonly seconds: number;
  readonly capacities: ReadonlyMap<string, RunCapacity>;
  readonly report: ReportJson;
}

interface ReportJson {
  readonly useCases: readonly {
    useCase: { id: string };
    result: {
      estimate: number | null;
      lastPass: number | null;
      firstFail: number | null;
      steps: readonly { concurrency: number; checks: readonly { metric: string; actual: number | null }[] }[];
    };
    interval?: { low: number; high: number | null } | null;
    verdicts?: readonly { passShare: number }[];
    cellIds: readonly string[];
  }[];
  readonly cells: readonly { id: string; concurrency: number; measurements?: number }[];
}

/** One `npm run bench` of the capacity part, then what it stated. */
function runBench(planFile: string, dir: string, runId: string, seed: number | null): BenchRun {
  const args = ['--import', 'tsx', join(REPO, 'scripts/bench.ts'), '--plan', planFile, '--scripts', 'capacity',
    '--results', dir, '--run-id', runId, ...(seed === null ? [] : ['--sim-noise-seed', String(seed)])];
  const r = spawnSync(process.execPath, args, { cwd: REPO, encoding: 'utf8', maxBuffer: 64 << 20 });
  if (r.status !== 0) throw new Error(`bench ${runId} exited ${r.status}: ${r.stderr.trim().split('\n').at(-1)}`);
  return readRun(dir, runId, seed);
}

/** A finished run's capacities from its report.json, its time from run.json (the parts' wall time). */
function readRun(dir: string, runId: string, seed: number | null): BenchRun {
  const report = JSON.parse(readFileSync(join(dir, runId, 'report.json'), 'utf8')) as ReportJson;
  const run = JSON.parse(readFileSync(join(dir, runId, 'run.json'), 'utf8')) as {
    time?: { partsWallSeconds?: number };
  };
  const extra = new Map(report.cells.map((c) => [c.id, (c.measurements ?? 1) - 1]));
  const probes = new Set(report.cells.filter((c) => c.concurrency === 1).map((c) => c.id));
  const capacities = new Map(report.useCases.map((u) => [u.useCase.id, {
    estimate: u.result.estimate,
    low: u.interval?.low ?? u.result.estimate,
    high: u.interval ? u.interval.high : u.result.estimate,
    repeats: u.cellIds.reduce((n, id) => n + (probes.has(id) ? 0 : (extra.get(id) ?? 0)), 0),
    lateProbe: u.cellIds.some((id) => probes.has(id) && (extra.get(id) ?? 0) > 0),
    unclear: (u.verdicts ?? []).some((v) => v.passShare > 0.05 && v.passShare < 0.95),
  }]));
  return { seed, seconds: run.time?.partsWallSeconds ?? NaN, capacities, report };
}

/**
 * The deterministic run's capacity in fractional users: where between its last passing and first failing steps the
 * limits break, from their measured statistics; null without both steps.
 */
function measuredCrossing(det: BenchRun, useCase: UseCase): number | null {
  const result = det.report.useCases.find((u) => u.useCase.id === useCase.id)?.result;
  const step = (n: number | null | undefined) => (result?.steps ?? []).find((s) => s.concurrency === n);
  const pass = step(result?.lastPass);
  const fail = step(result?.firstFail);
  if (!pass || !fail) return null;
  const stats = (s: typeof pass) =>
    useCase.limits.map((l) => s.checks.find((c) => c.metric === l.metric)?.actual ?? null);
  return boundaryCrossing(useCase.limits, pass.concurrency, stats(pass), fail.concurrency, stats(fail));
}

/**
 * The noisy simulator's true capacity as this chain measures it: the deterministic run's crossing moved by as many
 * (fractional) users as the noise moves the virtual crossing. Whole users on either side (capacity differences)
 * were off by one where a crossing lies near a whole number; the measured crossing carries what the chain adds here
 * (client e2e 2% above the server's) and what the virtual closed loop does not reproduce (long prompts' interleaving).
 */
function trueCapacity(
  det: BenchRun, useCase: UseCase, outputTokens: number, maxUsers: number, stat: LimitStat, profile: Profile,
): { truth: number; how: string } {
  const noise = { model: profile.noise ?? DEFAULT_NOISE, seed: REFERENCE_SEED };
  const measured = measuredCrossing(det, useCase);
  const virtualDet = virtualCrossing(profile, useCase, outputTokens, maxUsers, stat);
  const virtualNoisy = virtualCrossing(profile, useCase, outputTokens, maxUsers, stat, noise);
  if (measured !== null && virtualDet !== null && virtualNoisy !== null) {
    const shift = virtualNoisy - virtualDet;
    const truth = Math.max(0, Math.ceil(measured + shift) - 1);
    return { truth, how: `${measured.toFixed(2)} ${shift >= 0 ? '+' : '-'} ${Math.abs(shift).toFixed(2)}` };
  }
  const detCapacity = det.capacities.get(useCase.id)?.estimate ?? 0;
  const shift = virtualCapacity(profile, useCase, outputTokens, maxUsers, stat, noise) -
    virtualCapacity(profile, useCase, outputTokens, maxUsers, stat);
  return {
    truth: Math.max(0, detCapacity + shift), how: `${detCapacity} ${shift >= 0 ? '+' : '-'} ${Math.abs(shift)}`,
  };
}

function contains(c: RunCapacity, x: number | null): boolean {
  if (x === null || c.low === null) return false;
  return x >= c.low && (c.high === null || x <= c.high);
}

function fmtInterval(c: RunCapacity | undefined): string {
  if (!c || c.estimate === null) return 'n/a';
  const interval = c.low === c.high ? '' : ` (${c.low}-${c.high ?? 'open'})`;
  const marks = `${c.repeats > 0 ? ` r${c.repeats}` : ''}${c.lateProbe ? ' p' : ''}${c.unclear ? ' ?' : ''}`;
  return `${c.estimate}${interval}${marks}`;
}

interface Row {
  readonly useCase: string;
  readonly truth: number;
  readonly cells: string[];
  readonly agreeing: string;
  readonly coverage: string;
  readonly halfWidth: string;
}

/** One use case: each run's capacity and interval, how the runs agree, and how often an interval holds the truth. */
function row(id: string, truth: number, runs: readonly BenchRun[]): Row {
  const caps = runs.map((r) => r.capacities.get(id)!).filter(Boolean);
  let pairs = 0;
  let agreeing = 0;
  for (const a of caps) for (const b of caps) {
    if (a === b) continue;
    pairs++;
    if (contains(b, a.estimate)) agreeing++;
  }
  const covered = caps.filter((c) => contains(c, truth)).length;
  const widths = caps.map((c) => (c.high === null || c.low === null ? Infinity : (c.high - c.low) / 2));
  const worst = Math.max(...widths);
  const allowed = truth > 16 ? 0.1 * truth : 2;
  return {
    useCase: id, truth, cells: caps.map(fmtInterval), agreeing: `${agreeing}/${pairs}`,
    coverage: `${covered}/${caps.length}`,
    halfWidth: `${isFinite(worst) ? worst.toFixed(1) : 'open'} (<= ${allowed.toFixed(1)}) ` +
      `${worst <= allowed ? 'ok' : 'MISSED'}`,
  };
}

function main(): void {
  const program = new Command('bench:repeatability')
    .option('--runs <n>', 'noisy runs', '5')
    .option('--plan <name|file>', 'plan (built-in name or JSON file)', 'quick')
    .option('--use-cases <list>', 'only these use cases of the plan')
    .option('--keep <dir>', 'keep the runs in this folder (default: a temporary one, removed)')
    .option('--from <dir>', 'run nothing: read the runs an earlier --keep left in this folder');
  program.parse();
  const o = program.opts<{ runs: string; plan: string; useCases?: string; keep?: string; from?: string }>();
  const runs = Number(o.runs);
  if (!(Number.isInteger(runs) && runs >= 2 && runs <= 20)) throw new Error('--runs must be a whole number 2-20');
  if (o.from && o.keep) throw new Error('--from reads kept runs; --keep would run them again: give one');
  const readPlan = (file: string) => JSON.parse(readFileSync(file, 'utf8')) as PlanInput;
  let input = o.from ? readPlan(join(resolve(o.from), 'plan-input.json')) : (DEFAULT_PLANS[o.plan] ?? readPlan(o.plan));
  if (o.useCases) input = { ...input, capacity: { ...input.capacity, useCases: o.useCases.split(',') } };
  const plan = resolvePlan(input, 'capacity');
  const dir = o.from ? resolve(o.from) : o.keep ? resolve(o.keep) : mkdtempSync(join(tmpdir(), 'repeatability-'));
  mkdirSync(dir, { recursive: true });
  const planFile = join(dir, 'plan-input.json');
  if (!o.from) writeFileSync(planFile, JSON.stringify(input, null, 2));
  const profile = findProfile(DEFAULT_PROFILE_NAME)!;
  const search = plan.search!;
  const useCases = [...new Set(plan.cells.map((c) => c.useCase!))].map((id) => ({
    useCase: plan.useCases.find((u) => u.id === id)!,
    outputTokens: plan.cells.find((c) => c.useCase === id)!.outputTokens,
  }));
  process.stderr.write(
    `repeatability: ${runs} noisy runs + 1 deterministic of plan ${o.plan} (capacity part), in ${dir}\n`,
  );
  const measure = (runId: string, seed: number | null) =>
    o.from ? readRun(dir, runId, seed) : runBench(planFile, dir, runId, seed);
  const det = measure('det', null);
  process.stderr.write(`  deterministic: ${det.seconds.toFixed(1)} s\n`);
  const noisy: BenchRun[] = [];
  for (let seed = 1; seed <= runs; seed++) {
    noisy.push(measure(`noise-${seed}`, seed));
    process.stderr.write(`  noise seed ${seed}: ${noisy.at(-1)!.seconds.toFixed(1)} s\n`);
  }
  const lines = [
    "| use case | truth (measured crossing + noise's shift) | deterministic | " +
      `${noisy.map((r) => `seed ${r.seed}`).join(' | ')} ` +
      '| runs inside each other\'s interval | intervals holding the truth | worst half-width |',
    `|---|---:|---:|${noisy.map(() => '---:|').join('')}---:|---:|---|`,
  ];
  for (const { useCase, outputTokens } of useCases) {
    const maxUsers = search.maxUsers[useCase.id] ?? 256;
    const { truth, how } = trueCapacity(det, useCase, outputTokens, maxUsers, plan.limitStat, profile);
    const detCapacity = det.capacities.get(useCase.id)?.estimate ?? null;
    const r = row(useCase.id, truth, noisy);
    const truthCell = `${truth} (${how})`;
    lines.push(`| ${r.useCase} | ${truthCell} | ${detCapacity ?? 'n/a'} | ${r.cells.join(' | ')} | ` +
      `${r.agreeing} | ${r.coverage} | ${r.halfWidth} |`);
  }
  const meanNoisy = noisy.reduce((s, r) => s + r.seconds, 0) / noisy.length;
  lines.push('', `time of the capacity part: deterministic ${det.seconds.toFixed(1)} s; ` +
    `noisy mean ${meanNoisy.toFixed(1)} s ` +
    `(max ${Math.max(...noisy.map((r) => r.seconds)).toFixed(1)} s). "rN": N extra measurements of unclear steps; ` +
    '"p": the one-user noise probe measured again at the end; "?": a verdict next to the capacity stayed unclear.');
  lines.push(
    `machine: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}); ` +
      'simulator and k6 unpinned, as npm run bench runs them.',
  );
  process.stdout.write(lines.join('\n') + '\n');
  // Only a folder of its own making: --from names runs kept earlier.
  if (!o.keep && !o.from) rmSync(dir, { recursive: true, force: true });
}

try {
  main();
} catch (e) {
  process.stderr.write(`bench:repeatability: ${(e as Error).message}\n`);
  process.exit(1);
}
