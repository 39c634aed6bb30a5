// How a capacity's interval, an SLO tier's capacity and a step the client limited are written, in the report and in
// the bench's progress lines alike, so both say the same thing. The judgement (analysis/capacity-interval.ts,
// analysis/slo-tiers.ts, analysis/rate-capacity.ts) holds the numbers and kinds; this module only words them. Runs in
// Node (pure).

import type { LadderResult } from '../analysis/capacity';
import type { CapacityInterval } from '../analysis/capacity-interval';
import type { ClientBoundCause } from '../analysis/client-bound';
import type { ClientLimit } from '../analysis/rate-capacity';
import type { OpenLoopProblem } from '../analysis/open-loop';
import { fmtRate } from './format';
import type { TierCapacity } from '../analysis/slo-tiers';

/** "69-76", "70-more than 74", for the interval of a capacity. */
export function formatInterval(i: CapacityInterval): string {
  if (i.high === null && i.low >= i.largestStep) return `more than ${i.largestStep}`;
  const high = i.high === null ? `more than ${i.largestStep}` : String(i.high);
  return i.low === i.high ? `${i.low}` : `${i.low}-${high}`;
}

/** How a tier's capacity is written: "4", "more than 8", "below 1", "undetermined above 4", "not measured". */
export function tierDisplay(t: Pick<TierCapacity, 'kind' | 'capacity' | 'firstFail' | 'steps'>): string {
  if (t.kind === 'untested') return 'not measured';
  if (t.kind === 'undetermined') return t.capacity === null ? 'undetermined' : `undetermined above ${t.capacity}`;
  if (t.kind === 'below') return `below ${t.firstFail}`;
  if (t.kind === 'beyond') return `more than ${t.capacity}`;
  return String(t.capacity);
}

/** Why a cell was client-bound: "the measuring agent used 93% of its cores; ...". */
export function clientBoundWords(cause: ClientBoundCause): string {
  const reasons: string[] = [];
  if (cause.agentCpuShare !== null) {
    reasons.push(`the measuring agent used ${Math.round(cause.agentCpuShare * 100)}% of its cores`);
  }
  const r = cause.reading;
  if (r?.kind === 'readTogether') {
    const lag = r.readLagP99Ms === null ? '' : ` (read lag p99 ${r.readLagP99Ms.toFixed(1)} ms)`;
    reasons.push(`the measuring agent read ${(r.share * 100).toFixed(1)}% of the tokens together with the chunk ` +
      `before them${lag}, so their inter-token gaps are the client's, not the server's`);
  } else if (r?.kind === 'readLate') {
    reasons.push(`the measuring agent read its streams up to ${r.readLagP99Ms.toFixed(1)} ms late (p99) against a ` +
      `median inter-token gap of ${r.itlMedianMs.toFixed(1)} ms, so tokens may have been read together`);
  }
  if (cause.stall !== null) {
    const { share, longestMs } = cause.stall;
    const during = share === null ? 'during its part' : `while ${(share * 100).toFixed(1)}% of the requests ran`;
    reasons.push(`the machine stopped running the measuring agent for up to ${fmtStall(longestMs)} ${during} ` +
      '(a paused or starved VM, a stopped process), so their times hold the pause');
  }
  return reasons.join('; ');
}

/** A stall's length: "80 ms", "6.2 s". */
function fmtStall(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** A stall of the machine during a searched step: "the machine stopped running the measuring agent for 6.0 s ...". */
export function stallWords(ms: number): string {
  return `the machine stopped running the measuring agent for ${fmtStall(ms)} during the step (a paused or starved ` +
    'VM, a stopped process)';
}

/** Why a rate cell's sender did not offer its load: "its sender achieved 3.80 req/s of the 4.00 req/s offered ...". */
export function openLoopProblemWords(p: OpenLoopProblem): string {
  if (p.kind === 'underOffered') {
    const short = (1 - p.achievedRate / p.offeredRate) * 100;
    return `its sender achieved ${fmtRate(p.achievedRate)} of the ${fmtRate(p.offeredRate)} offered ` +
      `(${short.toFixed(1)}% short)`;
  }
  return `its requests went up to ${p.lagP99Ms.toFixed(1)} ms after their intended times ` +
    `(p99; limit ${p.lagLimitMs} ms)`;
}

/** Why the client limited a rate step: "sender achieved 3.80 of 4 requests/s", "client-bound: <its reason>". */
export function clientLimitWords(limit: ClientLimit): string {
  if (limit.kind === 'clientBound') return `client-bound: ${clientBoundWords(limit.cause)}`;
  return `sender achieved ${limit.achievedRate?.toFixed(2)} of ${limit.offeredRate} requests/s` +
    (limit.lagP99Ms !== null ? `, lag p99 ${limit.lagP99Ms.toFixed(1)} ms` : '');
}

type LadderFigures =
  Pick<LadderResult, 'kind' | 'lastPass' | 'firstFail' | 'estimate' | 'interpolated' | 'clientBound'>;

/** How a ladder's result is written: "~42", "5", "more than 125", "below 1", "not measured", "undetermined: ...". */
export function ladderDisplay(r: LadderFigures): string {
  if (r.kind === 'untested') return 'not measured';
  if (r.kind === 'beyond') return `more than ${r.lastPass}`;
  if (r.kind === 'below') return `below ${r.firstFail}`;
  if (r.kind === 'undetermined') {
    const above = r.lastPass === null ? '' : `; more than ${r.lastPass}`;
    return `undetermined: client-bound at ${(r.clientBound ?? []).map((d) => d.users).join(', ')}${above}`;
  }
  return r.interpolated ? `~${r.estimate}` : `${r.estimate}`;
}

/** The compact form, for tables: "~42", "5", "125+", "<1", "n/a", "?". */
export function ladderDisplayShort(r: LadderFigures): string {
  if (r.kind === 'untested') return 'n/a';
  if (r.kind === 'beyond') return `${r.lastPass}+`;
  if (r.kind === 'below') return `<${r.firstFail}`;
  if (r.kind === 'undetermined') return '?';
  return ladderDisplay(r);
}

/** A ladder result as report.json holds it: its figures with both written forms (after brokenBy, as always). */
export type WordedLadder = LadderResult & { readonly display: string; readonly displayShort: string };

export function wordLadder(r: LadderResult): WordedLadder {
  const { clientBound, ...figures } = r;
  return {
    ...figures, display: ladderDisplay(r), displayShort: ladderDisplayShort(r),
    ...(clientBound === undefined ? {} : { clientBound }),
  };
}

/** A judged capacity whose ladder result is worded. */
export type Worded<T extends { readonly result: LadderResult }> = Omit<T, 'result'> & { readonly result: WordedLadder };

export function wordResult<T extends { readonly result: LadderResult }>(x: T): Worded<T> {
  return { ...x, result: wordLadder(x.result) };
}
