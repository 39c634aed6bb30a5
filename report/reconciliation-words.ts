// The sentences a use case's reconciliation is written in (report.json `reconciliation[].reasons`, the open-loop
// section): the judgement (analysis/capacity-reconciliation.ts) gives the sides' figures and the causes' codes.
// Runs in Node (pure).

import type { CapacityReconciliation, ReconciledSide } from '../analysis/capacity-reconciliation';

/** A reconciliation as the report keeps it: the causes worded, a sentence each. */
export interface WordedReconciliation extends Omit<CapacityReconciliation, 'causes'> {
  /** Why the capacities differ, or what the difference is within, a sentence each. */
  readonly reasons: readonly string[];
}

const round1 = (x: number): string => (Math.round(x * 10) / 10).toString();
const ms = (x: number): string => `${Math.round(x)} ms`;

/** The reconciliation with its causes worded, in the order report.json has always kept. */
export function wordReconciliation(x: CapacityReconciliation): WordedReconciliation {
  const { causes, ...figures } = x;
  return { ...figures, reasons: reasonsFor(x.users, x.rate, causes, x.agree) };
}

function reasonsFor(
  u: ReconciledSide, r: ReconciledSide, causes: CapacityReconciliation['causes'], agree: boolean,
): string[] {
  const out: string[] = [
    `${u.capacity} users at ${ms(u.e2eMs)} send ${round1(u.littles)} req/s; ${r.capacity} req/s at ` +
      `${ms(r.e2eMs)} keep ${round1(r.littles)} requests in flight (Little's law).`,
  ];
  if (causes.includes('prefixCache'))
    out.push(
      `The rate cell's prompts were ${Math.round((r.cacheHitShare ?? 0) * 100)}% served from the prefix cache, ` +
        `the users step's ${Math.round((u.cacheHitShare ?? 0) * 100)}%: the server did less work per request.`,
    );
  if (causes.includes('lockstep'))
    out.push(
      `The users' TTFT was ${ms(u.ttftMs ?? 0)} against ${ms(r.ttftMs ?? 0)} in the open loop: users who send back ` +
        'to back with answers of one length start, prefill and end together, so the same server holds fewer of them ' +
        'in flight within the limit than requests that arrive at random.',
    );
  if (causes.includes('queueGrew'))
    out.push("The rate cell's queue grew through its step: its mean is no steady state.");
  if (agree) out.push("The users' requests/s lie between the last rate that held and the first that broke.");
  return out;
}
