// Benchmarks the what-if loop (measure, fit, predict, verify) against truths it can be held to. Runs in Node.
//
// Parts (--parts, default all but llama):
//   profiles   each simulator profile A-E measured with the fit plan over HTTP (npm run bench), fitted as a user would
//              (npm run fit with the profile's architecture and scheduler limits), and its predictions held against
//              the profile's own virtual-time figures: the quick plan's five capacities (with the interval from the
//              fit's refits) and the full plan's grid, median TTFT and decode speed per cell;
//   loop       the whole loop on the simulator, each stage timed, against the 15-minute target;
//   sizing     the fixed fit plan against the one sized to the full plan (--fit-for full), in virtual time: the full
//              grid predicted after a fit to each plan's cells made noisy (bench/what-if-sizing.ts);
//   published  each seed report fitted from its single-request points and one load point, its other load points
//              predicted: median and worst error, no target (bench/what-if-published.ts);
//   llama      opt-in: llama.cpp's server fitted, the llama plan's capacities predicted and measured.
// Usage: npm run bench:what-if [-- --parts profiles,published --profiles A,B --fit-plan FILE --interval-resamples 40
//        --fit-for PLAN --fit-budget MIN --max-grid-context N --repeats N --keep DIR | --from DIR --json FILE]
// Prints the tables at the end; the targets are in bench/what-if-score.ts.

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import { llamaResult, renderLlama } from './what-if-llama';
import { loopResult, renderLoop } from './what-if-loop';
import { profileResult, renderProfiles } from './what-if-profiles';
import { publishedResult, renderPublished } from './what-if-published';
import { renderSizing, sizingRows } from './what-if-sizing';
import { DEFAULT_FIT_BUDGET_MINUTES } from '../whatif/fit-plan-for';
import { POINTS } from './fidelity-points';

const PARTS = ['profiles', 'loop', 'sizing', 'published', 'llama'] as const;
type Part = (typeof PARTS)[number];
const DEFAULT_PARTS: readonly Part[] = ['profiles', 'loop', 'sizing', 'published'];
const LETTERS = ['A', 'B', 'C', 'D', 'E'];

export interface Args {
  readonly parts: Part[];
  readonly profiles: string[];
  readonly fitPlan: string;
  /** `npm run bench`'s flags that size the fit plan to a target (--fit-for, --fit-budget); empty: the fixed plan. */
  readonly sizing: string[];
  readonly intervalResamples: number;
  readonly maxGridContext: number | null;
  readonly verify: number;
  /** Independent fit runs per profile of the profiles part. */
  readonly repeats: number;
  readonly keep?: string;
  readonly from?: string;
  readonly json?: string;
}

/** The command line (after `--`), checked; errors name the flag. */
export function parseArgs(argv: readonly string[]): Args {
  const o = new Command('bench:what-if')
    .exitOverride()
    .option('--parts <list>', `any of ${PARTS.join(', ')} (llama is slow: opt-in)`, DEFAULT_PARTS.join(','))
    .option('--profiles <list>', 'simulator profiles of the profiles part', LETTERS.join(','))
    .option('--fit-plan <name|file>', 'the plan the fit runs measure (a smaller JSON plan for a quick check)', 'fit')
    .option('--fit-for <plan>', 'measure the fit plan sized to this plan (npm run bench -- --plan fit --fit-for)')
    .option('--fit-budget <minutes>', "with --fit-for: the sized fit run's budget")
    .option('--interval-resamples <n>', "refits whose capacities make each interval (of the fit's 200)", '40')
    .option('--max-grid-context <n>', "leave the full grid's contexts above this out")
    .option('--verify <n>', 'predicted capacities the loop part verifies', '3')
    .option('--repeats <n>', 'independent fit runs per profile (each measured, fitted, predicted)', '1')
    .option('--keep <dir>', 'keep the runs in this folder (default: a temporary one, removed)')
    .option('--from <dir>', 'measure nothing a kept folder holds: reuse its fit runs')
    .option('--json <file>', 'also write the results as JSON')
    .parse([...argv], { from: 'user' })
    .opts<Record<string, string | undefined>>();
  const parts = o.parts!.split(',').filter((p) => p !== '') as Part[];
  if (parts.length === 0 || parts.some((p) => !(PARTS as readonly string[]).includes(p)))
    throw new Error(`--parts: any of ${PARTS.join(', ')}`);
  const profiles = o.profiles!.toUpperCase().split(',').filter((p) => p !== '');
  if (profiles.length === 0 || profiles.some((p) => !LETTERS.includes(p))) throw new Error('--profiles: any of A-E');
  const whole = (flag: string, v: string, min: number) => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) throw new Error(`${flag}: a whole number >= ${min}`);
    return n;
  };
  if (o.keep && o.from) throw new Error('--keep and --from: give one');
  if (o.fitFor !== undefined && o.fitPlan !== 'fit')
    throw new Error('--fit-for sizes the fit plan: leave out --fit-plan');
  if (o.fitBudget !== undefined && o.fitFor === undefined) throw new Error('--fit-budget: give --fit-for too');
  const sizing = o.fitFor === undefined ? []
    : ['--fit-for', o.fitFor, ...(o.fitBudget === undefined ? [] : ['--fit-budget', o.fitBudget])];
  return {
    parts, profiles, fitPlan: o.fitPlan!, sizing,
    intervalResamples: whole('--interval-resamples', o.intervalResamples!, 0),
    maxGridContext: o.maxGridContext === undefined ? null : whole('--max-grid-context', o.maxGridContext, 1),
    verify: whole('--verify', o.verify!, 1), repeats: whole('--repeats', o.repeats!, 1),
    keep: o.keep, from: o.from, json: o.json,
  };
}

function coresLine(start: number[], parts: readonly Part[]): string {
  const la = (l: number[]) => l.map((x) => x.toFixed(2)).join(' ');
  const measured = parts.filter((p) => p !== 'published' && p !== 'sizing');
  const where = measured.length > 0
    ? `each measured run (${measured.join(', ')}) is an npm run bench whose simulator and k6 the OS placed, ` +
      'unpinned, as the bench runs them; fits and virtual-time predictions ran in this process between measured ' +
      'runs, never beside one'
    : 'no measured run: every fit and prediction ran in this one process, in virtual time';
  return `which cores ran what: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}); ${where}. ` +
    `Load average ${la(start)} at the start, ${la(loadavg())} at the end.`;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const dir = args.from ? resolve(args.from) : args.keep ? resolve(args.keep) : mkdtempSync(join(tmpdir(), 'what-if-'));
  mkdirSync(dir, { recursive: true });
  const fitPlan = args.fitPlan === 'fit' ? 'fit' : resolve(args.fitPlan);
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const reuse = args.from !== undefined;
  const loadStart = loadavg();
  const out: string[] = [];
  const json: Record<string, unknown> = {};
  if (args.parts.includes('profiles')) {
    const opts = { letters: args.profiles, fitPlan, sizing: args.sizing, dir, reuse,
      intervalResamples: args.intervalResamples,
      maxGridContext: args.maxGridContext, log };
    const results = [];
    for (const letter of args.profiles) {
      for (let run = 1; run <= args.repeats; run++) results.push(await profileResult(letter, opts, run));
    }
    json.profiles = results;
    const sized = args.sizing.length > 0 ? ` ${args.sizing.join(' ')}` : '';
    out.push(`## profiles (fit plan ${args.fitPlan}${sized}; interval from ${args.intervalResamples} refits)`, '',
      renderProfiles(results), '');
  }
  if (args.parts.includes('loop')) {
    const r = await loopResult({ profile: 'A', fitPlan, sizing: args.sizing, dir, reuse, verify: args.verify, log });
    json.loop = r;
    out.push('## loop (profile A)', '', renderLoop(r), '');
  }
  if (args.parts.includes('sizing')) {
    const at = args.sizing.indexOf('--fit-budget');
    const budget = at >= 0 ? Number(args.sizing[at + 1]) : DEFAULT_FIT_BUDGET_MINUTES;
    const rows = args.profiles.flatMap((letter) => {
      log(`sizing ${letter}: fixed and sized fit plans, in virtual time`);
      return sizingRows(letter, budget, [1, 2]);
    });
    json.sizing = rows;
    out.push('## sizing (virtual time: fixed fit plan against --fit-for full; no target)', '', renderSizing(rows), '');
  }
  if (args.parts.includes('published')) {
    const results = Object.keys(POINTS).map((letter) => {
      log(`published ${letter}: fitting to the single points and one load point`);
      return publishedResult(letter);
    });
    json.published = results;
    out.push('## published (held-out load points; no target)', '', renderPublished(results), '');
  }
  if (args.parts.includes('llama')) {
    const r = await llamaResult(dir, reuse, log);
    json.llama = r;
    out.push('## llama (--target llama)', '', renderLlama(r), '');
  }
  out.push(coresLine(loadStart, args.parts), `runs in ${dir}${args.keep || args.from ? '' : ' (removed)'}`);
  process.stdout.write(out.join('\n') + '\n');
  if (args.json) writeFileSync(args.json, JSON.stringify(json, null, 2));
  // Only a folder of its own making: --from names runs kept earlier.
  if (!args.keep && !args.from) rmSync(dir, { recursive: true, force: true });
}

if (process.argv[1]?.endsWith('what-if.ts')) {
  main().catch((e: unknown) => {
    process.stderr.write(`bench:what-if: ${(e as Error).message}\n`);
    process.exitCode = 1;
  });
}
