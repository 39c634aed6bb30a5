// The two capacities of a use case side by side: in users (closed loop) and in requests per second (open loop), each
// turned into the other's unit by Little's law on its measured latency. Pure; runs in Node.
//
// N users who send back to back keep N requests in flight, so they send N / mean e2e requests per second; an open loop
// at R requests per second whose requests take W on average keeps R x W in flight. The two capacities agree when the
// users' requests per second lie between the last rate that held and the first that broke. Where they do not, the
// figures that differ are named: a closed loop's users who send together prefill together (its TTFT above the open
// loop's), prompts the prefix cache served in one and not the other, an open-loop step whose queue grew. Those causes
// are codes here; the report words them (report/reconciliation-words.ts).

import type { UseCaseCapacity } from './capacity';
import type { CellStats } from './cells';
import type { RateCapacity } from './rate-capacity';
import type { UseCase } from '../thresholds/use-cases';

/** One side of a use case's reconciliation: the capacity's cell and its figures. */
export interface ReconciledSide {
  readonly cellId: string;
  /** The capacity: users, or requests/s. */
  readonly capacity: number;
  /** Mean e2e of its cell, ms (an open-loop cell's from the intended send where the limits read that). */
  readonly e2eMs: number;
  readonly ttftMs: number | null;
  readonly cacheHitShare: number | null;
  /** Users: requests/s sent (users / mean e2e). Rate: requests in flight (rate x mean e2e). */
  readonly littles: number;
}

export interface CapacityReconciliation {
  readonly useCase: UseCase;
  readonly users: ReconciledSide;
  readonly rate: ReconciledSide;
  /** The first rate that broke a limit; null when none did. */
  readonly rateFirstFail: number | null;
  /** Whether the users' requests/s lie within the rate capacity's bracket [last pass, first fail]. */
  readonly agree: boolean;
  /** What the figures show beside Little's law, in this order when present. */
  readonly causes: readonly ReconciliationCause[];
}

/**
 * `prefixCache`: the rate cell's prompts were served from the prefix cache much more than the users step's;
 * `lockstep`: the users' TTFT well above the open loop's (users who send together prefill together);
 * `queueGrew`: the rate cell's queue grew through its step, so its mean is no steady state.
 */
export type ReconciliationCause = 'prefixCache' | 'lockstep' | 'queueGrew';

/** A closed loop's TTFT this many times the open loop's says its users' prefills collided. */
const LOCKSTEP_TTFT_RATIO = 1.3;
/** A difference in the prefix cache's share of prompt tokens that changes the server's work. */
const CACHE_SHARE_GAP = 0.1;

function side(c: CellStats, capacity: number, e2eMs: number, littles: number): ReconciledSide {
  return {
    cellId: c.id, capacity, e2eMs, ttftMs: c.metrics.ttft?.mean ?? null, cacheHitShare: c.cacheHitShare, littles,
  };
}

/** What differs between the two sides beyond Little's law. */
function causesOf(u: ReconciledSide, r: ReconciledSide, rateCell: CellStats): ReconciliationCause[] {
  const out: ReconciliationCause[] = [];
  if ((r.cacheHitShare ?? 0) - (u.cacheHitShare ?? 0) > CACHE_SHARE_GAP) out.push('prefixCache');
  if (u.ttftMs !== null && r.ttftMs !== null && u.ttftMs > LOCKSTEP_TTFT_RATIO * r.ttftMs) out.push('lockstep');
  if (rateCell.openLoop?.queue?.growing) out.push('queueGrew');
  return out;
}

/** Each use case with both capacities measured, reconciled; empty when none has both. */
export function reconcileCapacities(
  useCases: readonly UseCaseCapacity[], rates: readonly RateCapacity[], cells: readonly CellStats[],
): CapacityReconciliation[] {
  const byId = new Map(cells.map((c) => [c.id, c]));
  const out: CapacityReconciliation[] = [];
  for (const rate of rates) {
    const users = useCases.find((u) => u.useCase.id === rate.useCase.id);
    const n = users?.result.lastPass ?? null;
    const rPass = rate.result.lastPass;
    if (!users || n === null || rPass === null) continue;
    const usersCell = users.result.steps.find((s) => s.concurrency === n && s.ok);
    const rateStep = rate.result.steps.find((s) => s.concurrency === rPass);
    const uc = usersCell && byId.get(usersCell.cellId);
    const rc = rateStep && byId.get(rateStep.cellId);
    const uE2e = uc?.metrics.e2e?.mean;
    const rE2e = rate.latencyFrom === 'intended' ? rc?.metrics.e2eIntended?.mean ?? rc?.metrics.e2e?.mean
      : rc?.metrics.e2e?.mean;
    if (!uc || !rc || !uE2e || !rE2e) continue;
    const u = side(uc, n, uE2e, (n * 1000) / uE2e);
    const r = side(rc, rPass, rE2e, (rPass * rE2e) / 1000);
    const high = rate.result.firstFail ?? Infinity;
    const agree = u.littles >= Math.min(rPass, rate.interval?.low ?? rPass) && u.littles <= high;
    out.push({
      useCase: rate.useCase, users: u, rate: r, rateFirstFail: rate.result.firstFail, agree,
      causes: causesOf(u, r, rc),
    });
  }
  return out;
}
