// How a capacity's interval and an SLO tier's capacity are written, in the report and in the bench's progress lines
// alike, so both say the same thing. The judgement (analysis/capacity-interval.ts, analysis/slo-tiers.ts) holds the
// numbers and kinds; this module only words them. Runs in Node (pure).

import type { CapacityInterval } from '../analysis/capacity-interval';
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
