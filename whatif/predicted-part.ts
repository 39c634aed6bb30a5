// One predicted part: its steps driven in virtual time, gathered in memory through the report's samples interface
// (report/samples-collector.ts) for the report, and written as a part folder (plan.json with the steps as cells, the
// requests' records in predicted-samples.jsonl, summary.json) so `npm run report` and --baseline can read it again.
// k6's CSV is never written: it is the format of measured runs. Runs in Node.

import { closeSync, mkdirSync, openSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { Plan } from '../lib/plan';
import { partDrive } from '../orchestrator/part-drive';
import { drivenCells } from '../orchestrator/driven-results';
import type { CapacitySearch } from '../orchestrator/capacity-search';
import type { Profile } from '../sim/profiles';
import { driveVirtually, type VirtualDrive } from './virtual-drive';
import { predictedRequest } from './virtual-samples';
import { addPredictedRequest, predictedSamplesHeader } from '../report/predicted-samples';
import { PREDICTED_SAMPLES_FILE } from '../report/predicted';
import { SamplesCollector, type SamplesData } from '../report/samples-collector';

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

/** What a predicted part wrote, and its samples as the report reads them. */
export interface PredictedPart {
  readonly requests: number;
  readonly samples: SamplesData;
}

/**
 * Writes the part's folder under runDir: plan.json with the steps that ran as its cells (as the bench rewrites a driven
 * part's), predicted-samples.jsonl with one record per request stamped from `originMs` (the epoch time the virtual
 * clock's 0 stands for), and summary.json with the part's virtual duration and no k6 thresholds (no k6 ran). Returns
 * the requests written and the same records gathered in memory.
 */
export function writePredictedPart(runDir: string, plan: Plan, drive: VirtualDrive, originMs: number): PredictedPart {
  const partDir = path.join(runDir, plan.script);
  mkdirSync(partDir, { recursive: true });
  const cells = drivenCells(drive.steps, drive.unfinished, 0);
  const totalSeconds = Math.round(drive.wallMs) / 1000;
  const ran = { ...plan, cells, totalSeconds } satisfies Plan;
  writeFileSync(path.join(partDir, 'plan.json'), JSON.stringify(ran, null, 1));
  // A samples.csv left in the folder (a run id used before, or a prediction written before issue 45.2) would be read
  // instead of these records by a later `npm run report`.
  rmSync(path.join(partDir, 'samples.csv'), { force: true });
  const collector = new SamplesCollector();
  const fd = openSync(path.join(partDir, PREDICTED_SAMPLES_FILE), 'w');
  let requests = 0;
  let rows = 0;
  try {
    writeSync(fd, `${predictedSamplesHeader()}\n`);
    for (const step of drive.steps) {
      const lines: string[] = [];
      for (const request of step.requests) {
        const record = predictedRequest(step.spec.cell, request, drive.extras.get(request.ticket)!, originMs);
        rows += addPredictedRequest(collector, record);
        lines.push(JSON.stringify(record));
        requests++;
      }
      if (lines.length > 0) writeSync(fd, `${lines.join('\n')}\n`);
    }
  } finally {
    closeSync(fd);
  }
  const summary = { metrics: {}, state: { testRunDurationMs: drive.wallMs }, predicted: true };
  writeFileSync(path.join(partDir, 'summary.json'), JSON.stringify(summary, null, 1));
  const samples = collector.finish({ rows, skippedRows: 0, partialTailBytes: 0, malformedRows: 0 });
  return { requests, samples };
}
