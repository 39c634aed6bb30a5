// bench/ttft-burst-phases.ts on hand-worked times: the phases of one request add up to its TTFT from the burst.
// Runs in Node (vitest).

import { describe, expect, it } from 'vitest';
import { phasesOf, readClientLines, type ClientTimes } from '../../bench/ttft-burst-phases';
import type { GroundTruthRecord } from '../../sim/ground-truth';

const ZERO = 1_700_000_000_000;
const CLIENT: ClientTimes = {
  id: 'r1', zeroEpochMs: ZERO, burstAtMs: 4000, startMs: 4003, sentMs: 4003.5, handoffMs: 1, firstTokenMs: 4070,
};
const TRUTH = {
  requestId: 'r1', arrivalEpochMs: ZERO + 4010, tokenEpochMs: [ZERO + 4069.75, ZERO + 4080],
} as GroundTruthRecord;

describe('phasesOf', () => {
  it('cuts the TTFT from the burst into its phases, on one wall clock', () => {
    const p = phasesOf(CLIENT, new Map([['r1', TRUTH]]))!;
    expect(p).toEqual({
      dispatch: 2, handoff: 1, connectWrite: 0.5, serverQueue: 6.5, serverTtft: 59.75, delivery: 0.25,
      fromBurst: 70, clientTtft: 67,
    });
    const sum = p.dispatch + p.handoff + p.connectWrite + p.serverQueue + p.serverTtft + p.delivery;
    expect(sum).toBeCloseTo(p.fromBurst, 9);
  });

  it('has none without the server\'s record, a first token or a hand-off', () => {
    expect(phasesOf(CLIENT, new Map())).toBeNull();
    expect(phasesOf({ ...CLIENT, firstTokenMs: null }, new Map([['r1', TRUTH]]))).toBeNull();
    expect(phasesOf({ ...CLIENT, handoffMs: null }, new Map([['r1', TRUTH]]))).toBeNull();
  });
});

describe('readClientLines', () => {
  it('keeps the JSON lines the script logged and skips k6\'s own', () => {
    const text = `running...\n${JSON.stringify(CLIENT)}\n{"other":1}\n`;
    expect(readClientLines(text)).toEqual([CLIENT]);
  });
});
