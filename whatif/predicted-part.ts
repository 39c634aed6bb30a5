// One predicted part: its steps driven in virtual time, written as a measured part's folder (plan.json with the
// steps as cells, samples.csv in k6's format, summary.json) so the one report generator reads it. Runs in Node.

import { closeSync, mkdirSync, openSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { Plan } from '../lib/plan';
import { partDrive } from '../orchestrator/part-drive';
import { drivenCells } from '../orchestrator/driven-results';
import type { CapacitySearch } from '../orchestrator/capacity-search';
import type { Profile } from '../sim/profiles';
import { driveVirtually, type VirtualDrive } from './virtual-drive';
import { K6_CSV_HEADER, requestRows } from './virtual-samples';

/** The scripts a prediction runs: those the bench drives with fixed cells or the capacity search. */
export const PREDICTED_SCRIPTS = ['sweep', 'capacity', 'mix', 'burst'] as const;

/**
 * A part's steps driven in virtual time, and the capacity search when the part is one; `fitted`: the prompt length
 * of each context the profile's window cannot hold with its output (orchestrator/context-window.ts); `requestGapMs`:
 * the client's time between a user's requests (a fitted profile's `fit.clientGapMs`).
 */
export function drivePart(
  profile: Profile, plan: Plan, fitted: ReadonlyMap<number, number> = new Map(), requestGapMs = 0,
): { drive: VirtualDrive; search: CapacitySearch | null } {
  const part = partDrive(plan);
  const drive = driveVirtually(profile, part.source, {
    vus: part.vus, requestGapMs,
    promptTokensOf: (context) => fitted.get(context) ?? context,
    sharedPrompts: plan.prompts.mode === 'shared-prefix',
    sloOf: (cell) => plan.useCases.find((u) => u.id === cell.useCase)?.limits ?? null,
  });
  return { drive, search: part.search };
}

/**
 * Writes the part's folder under runDir: plan.json with the steps that ran as its cells (as the bench rewrites a driven
 * part's), samples.csv stamped from `originMs` (the epoch time the virtual clock's 0 stands for), and summary.json
 * with the part's virtual duration and no k6 thresholds (no k6 ran). Returns the requests written.
 */
export function writePredictedPart(
  runDir: string, plan: Plan, drive: VirtualDrive, originMs: number, testid: string,
): number {
  const partDir = path.join(runDir, plan.script);
  mkdirSync(partDir, { recursive: true });
  const cells = drivenCells(drive.steps, drive.unfinished, 0);
  const totalSeconds = Math.round(drive.wallMs) / 1000;
  const ran = { ...plan, cells, totalSeconds } satisfies Plan;
  writeFileSync(path.join(partDir, 'plan.json'), JSON.stringify(ran, null, 1));
  const fd = openSync(path.join(partDir, 'samples.csv'), 'w');
  let requests = 0;
  try {
    writeSync(fd, `${K6_CSV_HEADER}\n`);
    for (const step of drive.steps) {
      const lines: string[] = [];
      for (const request of step.requests) {
        lines.push(...requestRows(step, request, drive.extras.get(request.ticket)!, originMs, testid));
        requests++;
      }
      if (lines.length > 0) writeSync(fd, `${lines.join('\n')}\n`);
    }
  } finally {
    closeSync(fd);
  }
  const summary = { metrics: {}, state: { testRunDurationMs: drive.wallMs }, predicted: true };
  writeFileSync(path.join(partDir, 'summary.json'), JSON.stringify(summary, null, 1));
  return requests;
}
