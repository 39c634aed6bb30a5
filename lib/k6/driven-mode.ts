// A run the bench drives (lib/drive.ts): one scenario whose VUs ask the bench for every request. Runs in k6 (bundled).

import exec from 'k6/execution';
import { cellTags } from '../options';
import type { Ticket } from '../drive';
import { CELL_TAGS, SAMPLE_TAGS } from '../metrics';
import { recordCapacities } from './metrics';
import { doneReport, type ControlClient } from './control-client';
import type { CellRequests } from './cell-requests';
import type { RunMode, SetupData } from './run-mode';

/** Puts a cell's tags on the VU (so every sample of its request, the transport's too, carries them). */
function setCellTags(tags: Record<string, string | number | boolean>, cell: Ticket['cell']): void {
  const values = cellTags(cell);
  for (const k of CELL_TAGS) {
    const v = values[k];
    // A tag the cell lacks is removed: the previous ticket's cell may have had it.
    if (v === undefined) delete tags[k];
    else tags[k] = v;
  }
}

function drivenVus(text: string | undefined): number {
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new Error(`DRIVE_VUS must be a whole number of VUs, got "${text ?? ''}"`);
  return n;
}

/** The bench-driven loop: one iteration per VU, one request per ticket, until the bench says stop. */
async function drive(requests: CellRequests, data: SetupData, control: ControlClient): Promise<void> {
  const { sessions } = requests;
  const vu = exec.vu.idInTest;
  const tags = exec.vu.metrics.tags;
  // In a split run the bench gives each runner its share of a step's users (as k6 splits a scenario's).
  const runner = data.runner ? data.runner.runner - 1 : 0;
  for (let n = 0; ; n++) {
    const answer = await control.next(vu, runner);
    if (answer.stop) return;
    const t = answer.ticket;
    setCellTags(tags, t.cell);
    const sent = sessions
      ? await sessions.turn(t.cell, t.joined === true, data.runNonce)
      : await requests.prepare(t.cell, { runNonce: data.runNonce, vu, iteration: n, n: t.ticket }, null)();
    requests.warnFailure(t.cell.id, sent.record);
    // The bench says which phase the request belongs to only now: a step may have ended meanwhile.
    const phase = await control.done(doneReport(t, sent.record, sent.health));
    sent.pushMetrics(phase === null ? {} : { [SAMPLE_TAGS.phase]: phase });
    // A user thinks after each turn, its request already reported: the bench's step counts it out of flight.
    if (sessions) await sessions.think();
  }
}

/**
 * Driven by the bench (CONTROL_URL, DRIVE_VUS and DRIVE_CELLS set by it): a runner's users of a step are handed
 * out by the bench, so no cell is known up front, and the run ends when the bench says so.
 */
export function drivenMode(requests: CellRequests, control: ControlClient): RunMode {
  return {
    driven: { vus: drivenVus(__ENV.DRIVE_VUS), cellThresholds: __ENV.DRIVE_CELLS !== 'search' },
    setup() {},
    request: (data) => drive(requests, data, control),
    monitorWhile() {
      // Each capacity the bench's search decides is pushed as it is decided, so Grafana shows it while the run goes on.
      let announced = 0;
      return async () => {
        const status = await control.status();
        recordCapacities(status.capacities.slice(announced));
        announced = Math.max(announced, status.capacities.length);
        return !status.finished;
      };
    },
    /** Every capacity the search decided, again, so a run without the monitor still pushes them. */
    async teardown() {
      const status = await control.finalStatus();
      if (status) recordCapacities(status.capacities);
    },
  };
}
