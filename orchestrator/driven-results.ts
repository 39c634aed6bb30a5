// What a bench-driven part leaves behind: its steps as plan cells (plan.json), the search's table, and where the time went.
// Pure. Runs in Node.

import type { Cell } from '../lib/plan';
import { searchInterval95, type CapacitySearch } from './capacity-search';
import { formatInterval } from '../report/capacity-interval';
import type { StepResult } from './driver';

/**
 * The steps that ran, as the cells of the part's plan.json, so the report reads a driven part like
 * any other: one cell per step, its samples found by the cell tag. `rounds` is the measured requests
 * per user (rounded); `driven` says how the step was measured.
 */
export function drivenCells(steps: readonly StepResult[], unfinished: ReadonlyMap<number, number>, originMs: number): Cell[] {
  return steps.map((r) => {
    const c = r.spec.cell;
    const count = (phase: string) => r.requests.filter((q) => q.phase === phase).length;
    const measured = count('measured');
    const seconds = Math.round(r.endMs - r.startMs) / 1000;
    return {
      ...c,
      rounds: r.spec.mode.kind === 'rounds' ? r.spec.mode.rounds : Math.round(measured / c.concurrency),
      warmupRounds: 0,
      startSeconds: Math.round(r.startMs - originMs) / 1000,
      maxDurationSeconds: seconds,
      gracefulStopSeconds: 0,
      driven: {
        mode: r.spec.mode.kind,
        search: c.script === 'capacity',
        startSeconds: Math.round(r.startMs - originMs) / 1000,
        seconds,
        requests: { measured, warmup: count('warmup'), transition: count('transition'), cut: unfinished.get(r.index) ?? 0 },
      },
    };
  });
}

/** The search's outcome per use case, for the end of the capacity part. */
export function renderSearchTable(search: CapacitySearch): string {
  const lines = ['capacity search (steady state, warm-up excluded):'];
  for (const s of search.searches) {
    const tried = [...s.points].sort((a, b) => a.users - b.users).map((p) => `${p.users}${p.ok ? '' : '✗'}`).join(' ');
    let verdict: string;
    const o = s.outcome;
    if (o === null) verdict = 'not finished';
    else if (o.lastPass === null) verdict = `below ${o.firstFail ?? 1} user`;
    else if (o.firstFail === null) verdict = `more than ${o.lastPass} (the search stops at ${s.maxUsers})`;
    else verdict = `${o.lastPass} (${o.firstFail} breaks a limit)`;
    const interval = o === null ? null : searchInterval95(s);
    const spread = interval && interval.low !== interval.high ? `; 95% interval ${formatInterval(interval)}` : '';
    lines.push(`  ${s.useCase.id}: ${verdict}; steps ${tried}${spread}`);
  }
  return lines.join('\n');
}

export interface TimeSpent {
  /** Wall time of the parts (engine start to exit), ms, and the share with at least one request running. */
  wallMs: number;
  runningMs: number;
  readonly parts: { readonly part: string; readonly wallMs: number; readonly runningMs: number }[];
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** "time: 251.3 s in the parts, requests running 247.0 s (98.3%), waiting 4.3 s (engine start-up and ends of cells)". */
export function renderTimeSpent(t: TimeSpent): string {
  const share = t.wallMs > 0 ? (100 * t.runningMs) / t.wallMs : 0;
  const lines = [
    `time: ${seconds(t.wallMs)} in the parts; requests running ${seconds(t.runningMs)} (${share.toFixed(1)}%), ` +
    `waiting ${seconds(Math.max(0, t.wallMs - t.runningMs))} (engine start-up, time slots)`,
  ];
  for (const p of t.parts) lines.push(`  ${p.part}: ${seconds(p.wallMs)}, requests running ${seconds(p.runningMs)}`);
  return lines.join('\n');
}
