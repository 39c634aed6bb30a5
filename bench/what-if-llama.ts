// The what-if benchmark's `llama` part (opt-in, slow): a real server. A small fit plan measured on llama.cpp's server
// (`--target llama`), a dense profile fitted to it, the llama plan's capacities predicted, then measured. Runs in Node.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import type { PlanInput } from '../lib/plan';
import { LLAMA_PLAN } from '../orchestrator/default-plans';
import { LLAMA_DEFAULTS } from '../orchestrator/llama-server';
import { fitFlags, fitRun, measureSweep, runScript } from './what-if-run';
import { capacityWithin, verdict, WHAT_IF_TARGETS } from './what-if-score';

/** Contexts that fit a 12K slot with their output, 1 to twice the slots: the server's queue shows in the fit. */
export const LLAMA_FIT_PLAN: PlanInput = {
  name: 'llama-fit',
  sweep: { contexts: [256, 1024, 4096], concurrencies: [1, 2, 4, 8], rounds: 2, outputTokens: 64 },
  schedule: LLAMA_PLAN.schedule,
};

export interface LlamaRow {
  readonly useCase: string;
  readonly predicted: number | null;
  readonly measured: number | null;
}

export interface LlamaResult {
  readonly rows: readonly LlamaRow[];
  readonly seconds: Readonly<Record<string, number | null>>;
}

function capacities(runDir: string): Map<string, number | null> {
  const report = JSON.parse(readFileSync(join(runDir, 'report.json'), 'utf8')) as {
    useCases: { useCase: { id: string }; result: { estimate: number | null } }[];
  };
  return new Map(report.useCases.map((u) => [u.useCase.id, u.result.estimate]));
}

export async function llamaResult(dir: string, reuse: boolean, log: (line: string) => void): Promise<LlamaResult> {
  const planFile = join(dir, 'llama-fit-plan.json');
  writeFileSync(planFile, JSON.stringify(LLAMA_FIT_PLAN, null, 2));
  log('llama: measuring the fit plan on --target llama');
  const measure = await measureSweep(planFile, ['--target', 'llama'], dir, 'llama-fit', reuse);
  // A dense model, stated as its config.json states it. The limits are the server's own start-up settings (-np
  // slots, -c their total).
  const s = LLAMA_DEFAULTS;
  const flags = [
    ...fitFlags(null, null), '--max-num-seqs', String(s.slots),
    '--kv-capacity-tokens', String(s.slots * s.contextPerSlot),
  ];
  const fitted = join(dir, 'llama-fit.fitted.json');
  const fit = await fitRun(dir, 'llama-fit', flags, fitted);
  log('llama: predicting the llama plan\'s capacities, then measuring them');
  const predictArgs = ['--predict', fitted, '--plan', 'llama', '--scripts', 'capacity', '--results', dir,
    '--run-id', 'llama-predict'];
  const predict = await runScript('scripts/bench.ts', predictArgs, join(dir, 'llama-predict.log'));
  const measureArgs = ['--plan', 'llama', '--scripts', 'capacity', '--target', 'llama', '--results', dir,
    '--run-id', 'llama-measure'];
  const verify = await runScript('scripts/bench.ts', measureArgs, join(dir, 'llama-measure.log'));
  const predicted = capacities(join(dir, 'llama-predict'));
  const measured = capacities(join(dir, 'llama-measure'));
  const rows = [...predicted].map(([useCase, p]) => ({
    useCase, predicted: p, measured: measured.get(useCase) ?? null,
  }));
  return {
    rows, seconds: { 'fit run': measure, fit, predict: predict.seconds, 'capacity run': verify.seconds },
  };
}

export function renderLlama(r: LlamaResult): string {
  const lines = ['| use case | predicted | measured | within 15% or 1 user |', '|---|---:|---:|---|'];
  for (const row of r.rows) {
    const ok = row.predicted !== null && row.measured !== null &&
      capacityWithin(row.predicted, row.measured, WHAT_IF_TARGETS.llamaShare);
    lines.push(`| ${row.useCase} | ${row.predicted ?? 'n/a'} | ${row.measured ?? 'n/a'} | ${verdict(ok)} |`);
  }
  const secs = Object.entries(r.seconds).map(([k, v]) => `${k} ${v === null ? 'kept' : `${v.toFixed(0)} s`}`);
  return [...lines, '', `llama stages: ${secs.join(', ')}`].join('\n');
}
