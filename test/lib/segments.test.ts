// Tests for lib/segments.ts against k6's own segment arithmetic (test/fixtures/k6-segments/k6-segments.json). Runs in
// Node (vitest).

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  operatorSegmentFlags,
  parseRatio,
  parseSegment,
  parseSequence,
  segmentPosition,
  segmentText,
  SegmentError,
  StripedSequence,
} from '../../lib/segments';

interface Golden {
  readonly sequence: string;
  readonly segments: readonly string[];
  readonly shares: readonly (readonly number[])[];
}

const golden = JSON.parse(
  readFileSync(new URL('../fixtures/k6-segments/k6-segments.json', import.meta.url), 'utf8'),
) as Golden[];

describe('StripedSequence.share', () => {
  it.each(golden.map((g) => [g.sequence, g] as const))('equals k6 ScaleInt64 for every segment of %s', (_, g) => {
    const sequence = parseSequence(g.sequence);
    expect(sequence.map(segmentText)).toEqual(g.segments);
    const striped = new StripedSequence(sequence);
    const ours = g.segments.map((_s, index) => g.shares[index]!.map((_v, value) => striped.share(index, value)));
    expect(ours).toEqual(g.shares);
  });

  it('gives the 1-VU monitor to the first runner alone, for 1..8 runners', () => {
    for (let n = 1; n <= 8; n++) {
      const shares = Array.from({ length: n }, (_, i) => {
        const [segment, sequence] = operatorSegmentFlags(i + 1, n).map((f) => f.split('=')[1]!);
        const position = segmentPosition(segment!, sequence!);
        expect(position.index).toBe(i);
        return position.striped.share(position.index, 1);
      });
      expect(shares).toEqual([1, ...Array(n - 1).fill(0)]);
    }
  });
});

describe('operatorSegmentFlags', () => {
  it('writes what the k6-operator passes (segmentation.NewCommandFragments)', () => {
    expect(operatorSegmentFlags(1, 4)).toEqual([
      '--execution-segment=0:1/4', '--execution-segment-sequence=0,1/4,2/4,3/4,1',
    ]);
    expect(operatorSegmentFlags(2, 2)).toEqual(['--execution-segment=1/2:1', '--execution-segment-sequence=0,1/2,1']);
    expect(operatorSegmentFlags(1, 1)).toEqual(['--execution-segment=0:1', '--execution-segment-sequence=0,1']);
  });

  it('refuses a runner outside 1..n', () => {
    expect(() => operatorSegmentFlags(3, 2)).toThrow(SegmentError);
    expect(() => operatorSegmentFlags(0, 2)).toThrow(/1 <= runner <= runners/);
  });
});

describe('segmentPosition', () => {
  it('is runner 1 of 1 without flags, as a plain k6 run', () => {
    const p = segmentPosition(null, null);
    expect([p.index, p.count, p.segment, p.sequence]).toEqual([0, 1, '0:1', '0,1']);
  });

  it('fills a lone segment out to a whole sequence, as k6 does', () => {
    const p = segmentPosition('1/3:2/3', null);
    expect([p.index, p.count, p.sequence]).toEqual([1, 3, '0,1/3,2/3,1']);
  });

  it('reads reduced and unreduced fractions, decimals and percentages alike', () => {
    expect(segmentPosition('2/4:3/4', '0,25%,0.5,3/4,1').index).toBe(2);
    expect(parseRatio('0.25')).toEqual({ num: 1, den: 4 });
    expect(parseSegment('50%')).toEqual({ from: { num: 0, den: 1 }, to: { num: 1, den: 2 } });
  });

  it('names a segment that is not in its sequence, and bad numbers', () => {
    expect(() => segmentPosition('0:1/3', '0,1/2,1')).toThrow(/"0:1\/3" is not one of the sequence "0,1\/2,1"/);
    expect(() => parseRatio('half')).toThrow(/"half" is not a valid percentage, decimal or fraction/);
    expect(() => parseSegment('1/2:1/4')).toThrow(/0 <= start < end <= 1/);
  });
});
