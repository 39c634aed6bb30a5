// A run in k6's own time slots, one scenario per cell, as a plain `k6 run` of a bundle goes. Runs in k6 (bundled).

import exec from 'k6/execution';
import { sleep } from 'k6';
import { drawnArrivals, type Cell } from '../plan';
import { plannedRequests } from '../options';
import { cellShare, cellsWithoutShare, runnerLabel } from '../runner';
import { arrivalTimesMs } from '../arrivals';
import { nowMs } from './clock';
import { runOpenLoop } from './open-loop';
import type { CellRequests } from './cell-requests';
import { splitRunner, type RunMode, type SetupData, type SplitRunner } from './run-mode';

/**
 * In a split run each runner's cells start when its setup() returns, and setup() starts only after k6
 * has initialised a VU for it, which takes each runner its own time (tens of ms on a busy machine). So
 * setup() returns this long after the runner was resumed: runners resumed together start their cells
 * together, and the first round of a cell is one burst across runners, as in one process.
 */
const SPLIT_START_AFTER_RESUME_MS = 1000;

/**
 * In a split run the monitor's runner sees only its own share end; the other runners' last requests end
 * about then too (every runner has its share of every cell, started together), so it scrapes this much
 * longer to cover them, within the last cell's slot.
 */
const SPLIT_MONITOR_TAIL_MS = 5000;

/**
 * Where this VU's next rate cell numbers its requests' prompt lines from: the schedules of the cells it sent before,
 * in all. k6 runs a part's rate cells one after another on the same VU, and a line numbered by the request's place in
 * its own cell repeated the previous cells' prompts: the quick plan's later cells had 98% of each prompt served from
 * the prefix cache, and the rate capacity read high (docs/guides/open-loop.md, "Requests per second and users").
 * Within a cell the line carries the request's place in the schedule, so each sender's lines are its own.
 */
let openLoopBase = 0;

/**
 * A rate cell's requests this VU sends: every senders-th of the one schedule, from its place among the cell's
 * senders. A per-vu-iterations scenario of one iteration per VU numbers its iterations 0 to senders - 1 across all the
 * runners of a split run (k6's exec.scenario.iterationInTest is unique over execution segments), so the senders' shares
 * are the schedule exactly, wherever k6 put each sender.
 */
async function sendRateCell(requests: CellRequests, cell: Cell, data: SetupData): Promise<void> {
  const arrivals = cell.arrivals!;
  const atMs = arrivalTimesMs(drawnArrivals(arrivals));
  const base = openLoopBase;
  openLoopBase += atMs.length;
  const share = { index: exec.scenario.iterationInTest % arrivals.senders, of: arrivals.senders };
  const warmupMs = arrivals.warmupSeconds * 1000;
  const schedule = { atMs, durationMs: arrivals.durationSeconds * 1000, share, warmupMs };
  return runOpenLoop(schedule, (i, phase) => {
    const ids = { runNonce: data.runNonce, vu: exec.vu.idInTest, iteration: base + i, n: i };
    const fire = requests.prepare(cell, ids, phase);
    return () => fire().then((sent) => {
      requests.warnFailure(cell.id, sent.record);
      return sent;
    });
  });
}

/**
 * One iteration of a cell's scenario: a request, an open-loop schedule, a trace replay, a sessions or agentic step.
 */
async function slotIteration(requests: CellRequests, cell: Cell, data: SetupData): Promise<void> {
  const { plan, sessions, agent } = requests;
  if (sessions) return sessions.runStep(cell, data.runNonce);
  if (agent) return agent.runStep(cell, data.runNonce);
  if (plan.embed) return requests.embed(cell, plan.embed.kind, data.runNonce);
  if (cell.arrivals?.process === 'trace') return requests.replayTrace(cell, cell.arrivals.speed ?? 1, data.runNonce);
  if (cell.arrivals) return sendRateCell(requests, cell, data);
  // A steady-state cell's first requests per user are its warm-up: kept, tagged, left out of its statistics.
  const warm = exec.vu.iterationInScenario < cell.warmupRounds ? 'warmup' : 'measured';
  const phase = cell.warmupRounds > 0 ? warm : undefined;
  const { idInTest: vu, iterationInInstance: iteration } = exec.vu;
  const ids = { runNonce: data.runNonce, vu, iteration, n: exec.scenario.iterationInTest };
  const sent = await requests.prepare(cell, ids, phase)();
  requests.warnFailure(cell.id, sent.record);
}

/** A split runner's cells with fewer users than runners, where it has none: said, so its figures are read as such. */
function warnIdleCells(split: SplitRunner, cells: readonly Cell[]): void {
  const idle = cellsWithoutShare(split.position, cells);
  if (idle.length === 0) return;
  const listed = `${idle.slice(0, 6).join(', ')}${idle.length > 6 ? `, … (${idle.length - 6} more)` : ''}`;
  // A rate cell's users here are its senders: with fewer than runners, this runner sends none of its schedule.
  const rate = cells.some((c) => c.arrivals && idle.includes(c.id))
    ? '; a rate cell\'s users are its senders (plan rate.senders: one per runner sends every runner its share)' : '';
  console.warn(
    `${runnerLabel(split.info)} has no users in ${idle.length} cell(s) with fewer users than runners ` +
    `(k6 gives a cell's users to the first runners): ${listed}${rate}`,
  );
}

export function slotMode(requests: CellRequests): RunMode {
  const { plan } = requests;
  const cellsById = new Map<string, Cell>(plan.cells.map((c) => [c.id, c]));
  return {
    driven: null,
    setup(split) {
      if (!split) return;
      warnIdleCells(split, plan.cells);
      // exec.instance's run clock starts at the resume (k6 marks the run started before setup()).
      sleep(Math.max(0, SPLIT_START_AFTER_RESUME_MS - nowMs()) / 1000);
    },
    async request(data) {
      const cell = cellsById.get(exec.scenario.name);
      if (!cell) {
        exec.test.abort(`scenario "${exec.scenario.name}" is not a cell of the plan`);
        return;
      }
      return slotIteration(requests, cell, data);
    },
    monitorWhile() {
      const split = splitRunner();
      // Iterations are counted per k6 process: a runner of a split run waits for its own share.
      const expected = split ? plannedRequests(plan, (cell) => cellShare(split.position, cell)) : plannedRequests(plan);
      const endMs = plan.totalSeconds * 1000;
      const tailMs = Math.max(SPLIT_MONITOR_TAIL_MS, 3 * plan.monitor.intervalSeconds * 1000);
      let ownShareEndedMs: number | null = null;
      // Until every planned request has finished (a split run's runner adds a tail for the others) or the last
      // slot is over.
      return async () => {
        const now = nowMs();
        if (now >= endMs) return false;
        if (exec.instance.iterationsCompleted + exec.instance.iterationsInterrupted < expected) return true;
        if (ownShareEndedMs === null) ownShareEndedMs = now;
        return split !== null && now - ownShareEndedMs < tailMs;
      };
    },
    async teardown() {},
  };
}
