// The decode speed of each request as the simulator served it, from its ground-truth record. Runs in Node (vitest).

import { decodeTokensPerSecond } from '../../lib/request-figures';
import type { GroundTruthRecord } from '../../sim/ground-truth';

/** Per finished request with a token: its output speed, tok/s, from the server's own token times. */
export function serverDecodeSpeeds(records: readonly GroundTruthRecord[]): number[] {
  return records.flatMap((t) => {
    const first = t.tokenEpochMs[0];
    if (first === undefined || t.endEpochMs === null) return [];
    const s = decodeTokensPerSecond(t.endEpochMs - t.arrivalEpochMs, first - t.arrivalEpochMs, t.completionTokens);
    return s === null ? [] : [s];
  });
}
