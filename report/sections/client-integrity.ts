// Client Integrity: how far each cell's own client can be trusted, and which cells it limited. Runs in Node.
//
// One row per measured cell from analysis/client-integrity.ts: the agent's read lag and CPU, the machine's
// stalls, tokens read together against the server's own multi-token chunks, failed and cut requests, and the load
// delivered against the load planned. A client-bound cell is marked invalid: no capacity stands on it
// (analysis/capacity.ts).

import type { CellStats } from '../../analysis/cells';
import type { ClientIntegrity } from '../../analysis/client-integrity';
import {
  CPU_SHARE_LIMIT, READ_TOGETHER_LIMIT, STALL_LIMIT_MS, STALL_SHARE_LIMIT,
} from '../../analysis/client-bound';
import { DocBuilder, type Block } from '../document';
import { fmtMsFine, fmtPct, fmtRate } from '../format';
import type { Report } from '../report-types';
import { measuredCells } from '../phrases';

const HEAD = [
  'CELL', 'VERDICT', 'READ LAG P50 / P99 / MAX', 'STALL MAX (REQUESTS)', 'AGENT CPU', 'READ TOGETHER',
  'SERVER-CHUNKED', 'FAILED / CUT', 'DELIVERED / PLANNED', 'SEND LAG P99',
];

/** The section: what the figures mean and what is not measured, then one row per cell. */
export function clientIntegritySection(report: Report): Block[] {
  const cells = measuredCells(report).filter((cell) => cell.clientIntegrity !== null);
  if (cells.length === 0) return [];
  const invalid = cells.filter((cell) => cell.clientBound !== null).length;
  const doc = new DocBuilder();
  doc.h(2, 'Client Integrity');
  doc.p(
    `${invalid === 0 ? 'No cell was' : `${invalid} of ${cells.length} cells were`} limited by the client. ` +
    'Each token keeps the kernel\'s receive time of its bytes, so a late read costs nothing until the agent falls a ' +
    'whole gap behind and reads two chunks together: a cell is invalid (client-bound, no capacity stands on it) ' +
    `when ${fmtPct(READ_TOGETHER_LIMIT, 0)} or more of its tokens were read together with the chunk before them by ` +
    `a reader late by half a gap or more (read lag p99), or the agent used ${fmtPct(CPU_SHARE_LIMIT, 0)} of its ` +
    `cores, or ${fmtPct(STALL_SHARE_LIMIT, 0)} or more of its requests ran across a stall of the machine of ` +
    `${STALL_LIMIT_MS} ms or more (the agent neither ran nor waited for a core: a paused VM, whose kernel stamps ` +
    'late too). Tokens the server sent several to a chunk are its own doing and shown apart.',
  );
  doc.p(
    "Not measured: k6's own CPU (it starts requests and pushes their samples: a busy k6 shows as load delivered " +
    "short of the plan, not in token times); in a split run, the agent CPU is the busiest runner's agent's. " +
    'Delivered load, for closed-loop users, is the mean requests in flight: in a step the bench drove, every ' +
    'request the client held (warm-up and transition ones too: they hold users, though the statistics leave them ' +
    'out) over the time the step\'s measured requests ran; marked "measured only" (a cell run in a k6 time slot, ' +
    'or a run before the bench counted it), its measured requests\' time in service over its wall time, which ' +
    'reads under its users at its edges. For a rate cell, the achieved rate.',
  );
  doc.table(HEAD, cells.map(row), 'Shares are of the cell\'s ITL samples (one per token after a request\'s first).');
  return doc.blocks;
}

function row(cell: CellStats): string[] {
  const c = cell.clientIntegrity!;
  const lag = c.readLag ? [c.readLag.p50, c.readLag.p99, c.readLag.max].map((v) => fmtMsFine(v)).join(' / ') : 'n/a';
  return [
    cell.id,
    cell.clientBound ? 'invalid: client-bound' : 'valid',
    lag,
    c.stall === null ? 'n/a' : `${fmtMsFine(c.stall.maxMs)} (${c.stall.requestsOver})`,
    fmtPct(c.agentCpuShare, 0),
    share(c.tokensReadTogether, c.itlSamples),
    share(c.tokensChunked, c.itlSamples),
    `${cell.failed} / ${cell.cut}`,
    delivered(c),
    c.sendLagP99Ms === null ? '-' : fmtMsFine(c.sendLagP99Ms),
  ];
}

/** "12 (0.5%)", or n/a when the agent did not count them. */
function share(tokens: number | null, itlSamples: number): string {
  if (tokens === null) return 'n/a';
  return itlSamples > 0 ? `${tokens} (${fmtPct(tokens / itlSamples)})` : String(tokens);
}

function delivered(c: ClientIntegrity): string {
  if (c.offeredRate !== null) return `${fmtRate(c.achievedRate)} / ${fmtRate(c.offeredRate)}`;
  if (c.usersPlanned === null) return 'n/a';
  const inFlight = c.meanInFlight === null ? 'n/a' : c.meanInFlight.toFixed(1);
  return `${inFlight} / ${c.usersPlanned} users${c.inFlightCounted === 'measured requests' ? ' (measured only)' : ''}`;
}
