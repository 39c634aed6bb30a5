// What a bench-driven part leaves behind: its steps as plan cells (plan.json), the search's table, and where the
// time went. Pure. Runs in Node.

import type { Cell } from '../lib/plan';
import { searchInterval95, type CapacitySearch } from './capacity-search';
import type { StepResult } from './driver';
import { stepInFlight } from './step-in-flight';
import type { CapacityAnnouncement } from '../lib/drive';
import { clientBoundWords, formatInterval } from '../report/capacity-words';

/**
 * The steps that ran, as the cells of the part's plan.json, so the report reads a driven part like
 * any other: one cell per step, its samples found by the cell tag. `rounds` is the measured requests
 * per user (rounded); `driven` says how the step was measured. A step the search measured again (an
 * unclear verdict) ran under the same cell id each time: its measurements are one cell, which lasted the sum
 * of their times (the report leaves out the gaps between them: analysis/cells.ts busyMs).
 */
export function drivenCells(
  steps: readonly StepResult[], unfinished: ReadonlyMap<number, number>, originMs: number,
): Cell[] {
  const groups = new Map<string, StepResult[]>();
  for (const r of steps) groups.set(r.spec.cell.id, [...(groups.get(r.spec.cell.id) ?? []), r]);
  // Every request of the part, once: each step counts them all for its time in flight.
  const runRequests = steps.flatMap((r) => r.requests);
  return [...groups.values()].map((group) => {
    const first = group[0]!;
    const c = first.spec.cell;
    const requests = group.flatMap((r) => r.requests);
    const count = (phase: string) => requests.filter((q) => q.phase === phase).length;
    const measured = count('measured');
    const seconds = Math.round(group.reduce((ms, r) => ms + r.endMs - r.startMs, 0)) / 1000;
    const cut = group.reduce((n, r) => n + (unfinished.get(r.index) ?? 0), 0);
    const inFlight = stepInFlight(group, runRequests);
    return {
      ...c,
      rounds: first.spec.mode.kind === 'rounds' ? first.spec.mode.rounds : Math.round(measured / c.concurrency),
      warmupRounds: 0,
      startSeconds: Math.round(first.startMs - originMs) / 1000,
      maxDurationSeconds: seconds,
      gracefulStopSeconds: 0,
      driven: {
        mode: first.spec.mode.kind,
        search: c.script === 'capacity' || c.script === 'sessions',
        startSeconds: Math.round(first.startMs - originMs) / 1000,
        seconds,
        requests: { measured, warmup: count('warmup'), transition: count('transition'), cut },
        measurements: group.length,
        ...(inFlight === null ? {} : { inFlight: Math.round(inFlight * 1000) / 1000 }),
      },
    };
  });
}

/** Each use case whose search has ended: its capacity, 95% interval and the limit that set it, for /status. */
export function searchCapacities(search: CapacitySearch): CapacityAnnouncement[] {
  return search.searches.flatMap((s): CapacityAnnouncement[] => {
    const o = s.outcome;
    if (o === null) return [];
    const interval = searchInterval95(s);
    const fail = s.points.find((p) => p.users === o.firstFail);
    const bound = s.clientBound.map((b) => b.users).join(', ');
    const limit = s.decision === 'client-bound' ? `none: client-bound at ${bound} users, undetermined`
      : (fail?.checks.find((c) => !c.ok)?.label ?? null);
    return [{
      useCase: s.useCase.id, capacity: o.lastPass ?? 0, low: interval?.low ?? null,
      high: interval ? interval.high : null, limit,
    }];
  });
}

/** How the search decided: its interval within the resolution, or why not (the repeat budget, or nothing to repeat). */
function decision(s: CapacitySearch['searches'][number]): string {
  const repeatCount = s.repeats === 0 ? 'no repeats' : `${s.repeats} repeat${s.repeats === 1 ? '' : 's'}`;
  const repeats = `${repeatCount}${s.lateProbe ? '; the one-user noise probe measured again' : ''}`;
  const steps = `${s.unclear.join(', ')} user${s.unclear.length === 1 && s.unclear[0] === 1 ? '' : 's'}`;
  switch (s.decision) {
    case 'narrow':
      return `decided: interval within the resolution (${repeats})`;
    case 'budget':
      return `undecided: repeat budget spent (${repeats}); the verdict at ${steps} stayed unclear`;
    case 'steps-clear':
      return `interval wider than the resolution though every step's verdict is clear (${repeats})`;
    case 'client-bound': {
      const bound = s.clientBound.map((b) => `${b.users} users (${clientBoundWords(b.cause)})`).join(', ');
      return `undetermined: client-bound twice at ${bound}`;
    }
    default:
      return 'not decided';
  }
}

/** The search's outcome per use case, for the end of the capacity (or sessions) part. */
export function renderSearchTable(search: CapacitySearch, what = 'capacity search'): string {
  const lines = [`${what} (steady state, warm-up excluded):`];
  for (const s of search.searches) {
    const tried = [...s.points].sort((a, b) => a.users - b.users)
      .map((p) => `${p.users}${p.ok ? '' : '✗'}${(p.measurements ?? 1) > 1 ? `(x${p.measurements})` : ''}`).join(' ');
    let verdict: string;
    const o = s.outcome;
    if (o === null) verdict = 'not finished';
    else if (o.lastPass === null) verdict = `below ${o.firstFail ?? 1} user`;
    else if (o.firstFail === null) verdict = `more than ${o.lastPass} (the search stops at ${s.maxUsers})`;
    else {
      const broken = s.points.find((p) => p.users === o.firstFail)?.checks.find((c) => !c.ok)?.label ?? 'a limit';
      verdict = `${o.lastPass} (${o.firstFail} breaks ${broken})`;
    }
    const interval = o === null ? null : searchInterval95(s);
    const spread = interval && interval.low !== interval.high ? `; 95% interval ${formatInterval(interval)}` : '';
    lines.push(`  ${s.useCase.id}: ${verdict}; steps ${tried}${spread}; ${decision(s)}`);
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

/**
 * "time: 251.3 s in the parts, requests running 247.0 s (98.3%), waiting 4.3 s (engine start-up and ends of
 * cells)".
 */
export function renderTimeSpent(t: TimeSpent): string {
  const share = t.wallMs > 0 ? (100 * t.runningMs) / t.wallMs : 0;
  const lines = [
    `time: ${seconds(t.wallMs)} in the parts; requests running ${seconds(t.runningMs)} (${share.toFixed(1)}%), ` +
    `waiting ${seconds(Math.max(0, t.wallMs - t.runningMs))} (engine start-up, time slots)`,
  ];
  for (const p of t.parts) lines.push(`  ${p.part}: ${seconds(p.wallMs)}, requests running ${seconds(p.runningMs)}`);
  return lines.join('\n');
}
