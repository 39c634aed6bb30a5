// The what-if benchmark's `loop` part: the whole loop a user runs on the simulator, each stage timed: measure the fit
// plan (profile A), fit, predict the full plan, and verify the first predicted capacities (`--verify n`: the steps
// either side of each measured over HTTP against the same profile). Runs in Node.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Verification } from '../whatif/verify';
import { builtInProfile, fitFlags, fitRun, measureSweep, runScript } from './what-if-run';
import { verdict, WHAT_IF_TARGETS } from './what-if-score';

export interface LoopOptions {
  readonly profile: string;
  readonly fitPlan: string;
  /** --fit-for and --fit-budget for the fit run, or none. */
  readonly sizing: readonly string[];
  readonly dir: string;
  readonly reuse: boolean;
  /** How many predicted capacities to verify. */
  readonly verify: number;
  readonly log: (line: string) => void;
}

export interface LoopResult {
  readonly stages: readonly { readonly stage: string; readonly seconds: number | null }[];
  /** What --verify wrote beside the prediction (verification.json). */
  readonly verification: Verification;
}

/** The prediction's own seconds, as the command prints them ("predicted in 12.3 s"); the rest was the verification. */
function predictedSeconds(log: string): number | null {
  const m = /predicted in ([\d.]+) s/.exec(readFileSync(log, 'utf8'));
  return m ? Number(m[1]) : null;
}

export async function loopResult(o: LoopOptions): Promise<LoopResult> {
  const truth = builtInProfile(o.profile);
  const runId = `loop-fit-${truth.letter}`;
  o.log(`loop: measuring the ${o.fitPlan} plan on profile ${truth.letter}`);
  const measure = await measureSweep(o.fitPlan, ['--profile', truth.letter, ...o.sizing], o.dir, runId, o.reuse);
  const fitted = join(o.dir, `${runId}.fitted.json`);
  o.log('loop: fitting');
  const fit = await fitRun(o.dir, runId, fitFlags(truth, null), fitted);
  o.log(`loop: predicting the full plan, then verifying ${o.verify} capacities on profile ${truth.letter}`);
  const args = ['--predict', fitted, '--plan', 'full', '--verify', String(o.verify), '--profile', truth.letter,
    '--results', o.dir, '--run-id', 'loop-predict'];
  const log = join(o.dir, 'loop-predict.log');
  const both = await runScript('scripts/bench.ts', args, log);
  const predict = predictedSeconds(log) ?? both.seconds;
  const record = readFileSync(join(o.dir, 'loop-predict', 'verification.json'), 'utf8');
  const verification = JSON.parse(record) as Verification;
  return {
    stages: [
      { stage: `fit run (plan ${o.fitPlan}, profile ${truth.letter}, over HTTP)`, seconds: measure },
      { stage: 'npm run fit', seconds: fit },
      { stage: 'predict --plan full (virtual time, with the interval)', seconds: predict },
      { stage: `--verify ${o.verify} (the steps either side of each capacity, over HTTP)`,
        seconds: both.seconds - predict },
    ],
    verification,
  };
}

export function renderLoop(r: LoopResult): string {
  const lines = ['| stage | seconds |', '|---|---:|'];
  for (const s of r.stages) lines.push(`| ${s.stage} | ${s.seconds === null ? 'kept' : s.seconds.toFixed(0)} |`);
  const total = r.stages.reduce((t, s) => t + (s.seconds ?? 0), 0);
  const kept = r.stages.some((s) => s.seconds === null);
  lines.push(`| total${kept ? ' (kept stages not counted)' : ''} | ${total.toFixed(0)} |`);
  const v = r.verification;
  lines.push('', '| use case | predicted capacity | measured by the verifying search |', '|---|---:|---:|');
  for (const c of v.capacities) lines.push(`| ${c.useCase} | ${c.predicted} | ${c.measured} |`);
  lines.push('', `${v.agreed} of ${v.measuredSteps} measured steps agreed with the prediction on every limit; the ` +
    `timing statistics were off by ${v.medianErrorPct?.toFixed(1) ?? '-'}% at the median, ` +
    `${v.maxErrorPct?.toFixed(1) ?? '-'}% at most`);
  const target = WHAT_IF_TARGETS.loopSeconds / 60;
  lines.push('', `loop total ${(total / 60).toFixed(1)} min against the ${target}-minute target ` +
    `${verdict(!kept && total <= WHAT_IF_TARGETS.loopSeconds)}`);
  return lines.join('\n');
}
