// The what-if benchmark's `loop` part: the whole loop a user runs on the simulator, each stage timed: measure the fit
// plan (profile A), fit, predict the full plan, and verify the first predicted capacities by measuring the steps
// either side of each. Runs in Node.
//
// The bench has no --verify flag in this tree, so the verify stage is what it would run: the capacity part as a fixed
// ladder of [c, c + 1] users for each of the first n use cases, measured against the same profile.

import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PlanInput } from '../lib/plan';
import { FULL_PLAN } from '../orchestrator/default-plans';
import { builtInProfile, fitFlags, fitRun, measureSweep, runScript } from './what-if-run';
import { verdict, WHAT_IF_TARGETS } from './what-if-score';

export interface LoopOptions {
  readonly profile: string;
  readonly fitPlan: string;
  readonly dir: string;
  readonly reuse: boolean;
  /** How many predicted capacities to verify. */
  readonly verify: number;
  readonly log: (line: string) => void;
}

interface ReportUseCase {
  readonly useCase: { readonly id: string };
  readonly result: {
    readonly estimate: number | null;
    readonly lastPass: number | null;
    readonly firstFail: number | null;
  };
}

export interface VerifiedCapacity {
  readonly useCase: string;
  readonly predicted: number;
  /** The measured report's capacity on the [c, c + 1] ladder, and whether c held and c + 1 broke. */
  readonly measured: number | null;
  readonly confirmed: boolean;
}

export interface LoopResult {
  readonly stages: readonly { readonly stage: string; readonly seconds: number | null }[];
  readonly verified: readonly VerifiedCapacity[];
}

function reportUseCases(runDir: string): ReportUseCase[] {
  return (JSON.parse(readFileSync(join(runDir, 'report.json'), 'utf8')) as { useCases: ReportUseCase[] }).useCases;
}

/** The verify plan: each use case's capacity part as the ladder [c, c + 1], as the full plan runs it otherwise. */
export function verifyPlan(capacities: readonly { useCase: string; predicted: number }[]): PlanInput {
  const ladder = (c: number) => (c < 1 ? [1] : [c, c + 1]);
  return {
    ...FULL_PLAN,
    name: 'verify',
    capacity: {
      ...FULL_PLAN.capacity,
      useCases: capacities.map((c) => c.useCase),
      concurrencies: Object.fromEntries(capacities.map((c) => [c.useCase, ladder(c.predicted)])),
      maxUsers: Math.max(...capacities.map((c) => c.predicted + 1)),
    },
  };
}

export async function loopResult(o: LoopOptions): Promise<LoopResult> {
  const truth = builtInProfile(o.profile);
  const runId = `loop-fit-${truth.letter}`;
  o.log(`loop: measuring the ${o.fitPlan} plan on profile ${truth.letter}`);
  const measure = await measureSweep(o.fitPlan, ['--profile', truth.letter], o.dir, runId, o.reuse);
  const fitted = join(o.dir, `${runId}.fitted.json`);
  o.log('loop: fitting');
  const fit = await fitRun(o.dir, runId, fitFlags(truth, null), fitted);
  o.log('loop: predicting the full plan');
  const predictArgs = ['--predict', fitted, '--plan', 'full', '--results', o.dir, '--run-id', 'loop-predict'];
  const predict = await runScript('scripts/bench.ts', predictArgs, join(o.dir, 'loop-predict.log'));
  const predicted = reportUseCases(join(o.dir, 'loop-predict')).slice(0, o.verify)
    .map((u) => ({ useCase: u.useCase.id, predicted: u.result.estimate ?? 0 }));
  const planFile = join(o.dir, 'verify-plan.json');
  writeFileSync(planFile, JSON.stringify(verifyPlan(predicted), null, 2));
  o.log(`loop: verifying ${predicted.map((p) => `${p.useCase} ${p.predicted}`).join(', ')}`);
  const verifyArgs = ['--plan', planFile, '--scripts', 'capacity', '--fixed-slots', '--profile', truth.letter,
    '--results', o.dir, '--run-id', 'loop-verify'];
  const verify = await runScript('scripts/bench.ts', verifyArgs, join(o.dir, 'loop-verify.log'));
  const measured = new Map(reportUseCases(join(o.dir, 'loop-verify')).map((u) => [u.useCase.id, u.result]));
  const verified = predicted.map((p) => {
    const m = measured.get(p.useCase);
    const confirmed = m !== undefined && m.lastPass === p.predicted && m.firstFail === p.predicted + 1;
    return { ...p, measured: m?.estimate ?? null, confirmed };
  });
  return {
    stages: [
      { stage: `fit run (plan ${o.fitPlan}, profile ${truth.letter}, over HTTP)`, seconds: measure },
      { stage: 'npm run fit', seconds: fit },
      { stage: 'predict --plan full (virtual time, with the interval)', seconds: predict.seconds },
      { stage: `verify ${predicted.length} capacities (c and c + 1 measured over HTTP)`, seconds: verify.seconds },
    ],
    verified,
  };
}

export function renderLoop(r: LoopResult): string {
  const lines = ['| stage | seconds |', '|---|---:|'];
  for (const s of r.stages) lines.push(`| ${s.stage} | ${s.seconds === null ? 'kept' : s.seconds.toFixed(0)} |`);
  const total = r.stages.reduce((t, s) => t + (s.seconds ?? 0), 0);
  const kept = r.stages.some((s) => s.seconds === null);
  lines.push(`| total${kept ? ' (kept stages not counted)' : ''} | ${total.toFixed(0)} |`);
  lines.push('', '| use case | predicted | measured on [c, c + 1] | c holds, c + 1 breaks |', '|---|---:|---:|---|');
  for (const v of r.verified) {
    lines.push(`| ${v.useCase} | ${v.predicted} | ${v.measured ?? 'n/a'} | ${v.confirmed ? 'yes' : 'NO'} |`);
  }
  const target = WHAT_IF_TARGETS.loopSeconds / 60;
  lines.push('', `loop total ${(total / 60).toFixed(1)} min against the ${target}-minute target ` +
    `${verdict(!kept && total <= WHAT_IF_TARGETS.loopSeconds)}`);
  return lines.join('\n');
}
