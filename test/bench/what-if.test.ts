// Tests the what-if benchmark's pure helpers: its scoring, the published points' split, the verify plan, the fit
// flags and the command line. Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { POINTS } from '../../bench/fidelity-points';
import { parseArgs } from '../../bench/what-if';
import { fullGrid, quickCapacityCases } from '../../bench/what-if-profiles';
import { splitPoints } from '../../bench/what-if-published';
import { fitFlags } from '../../bench/what-if-run';
import {
  capacityWithin, intervalHolds, pct, percentileInterval, relativeError, withinShare,
} from '../../bench/what-if-score';
import { findProfile } from '../../sim/profiles';

describe('scoring', () => {
  it('allows a capacity 1 user or 10% off, whichever is wider', () => {
    expect(capacityWithin(3, 2)).toBe(true);
    expect(capacityWithin(4, 2)).toBe(false);
    expect(capacityWithin(110, 100)).toBe(true);
    expect(capacityWithin(111, 100)).toBe(false);
    expect(capacityWithin(115, 100, 0.15)).toBe(true);
  });

  it('counts the share within a tolerance and keeps the worst error with its sign', () => {
    const { share, worst } = withinShare([0.05, -0.2, 0.1, -0.01], 0.1);
    expect(share).toBe(0.75);
    expect(worst).toBe(-0.2);
    expect(withinShare([NaN, 0], 0.1).share).toBe(0.5);
    expect(Number.isNaN(withinShare([], 0.1).share)).toBe(true);
  });

  it('reads intervals and relative errors', () => {
    expect(intervalHolds(2, 3, 3)).toBe(true);
    expect(intervalHolds(0, 1, 2)).toBe(false);
    const values = Array.from({ length: 101 }, (_, i) => i);
    expect(percentileInterval(values)).toEqual({ low: 5, high: 95 });
    expect(relativeError(11, 10)).toBeCloseTo(0.1, 12);
    expect(Number.isNaN(relativeError(1, 0))).toBe(true);
    expect(pct(-0.125)).toBe('-12.5%');
  });
});

describe('splitPoints', () => {
  it('fits every single point and one load point with a speed figure, and holds out the other load points', () => {
    const { fit, held } = splitPoints(POINTS.A!);
    const loads = fit.filter((p) => p.cls === 'load');
    expect(loads).toHaveLength(1);
    expect(loads[0]!.targets.some((t) => t.kind === 'system_tps' || t.kind === 'decode_tps')).toBe(true);
    expect(fit.filter((p) => p.cls === 'single')).toHaveLength(POINTS.A!.filter((p) => p.cls === 'single').length);
    expect(held.every((p) => p.cls === 'load' && !fit.includes(p))).toBe(true);
    expect(held.length).toBeGreaterThan(0);
  });
});

describe('the loop and the fit run', () => {
  it("states the architecture and the scheduler's limits as npm run fit's flags (--dense for a dense model)", () => {
    const a = findProfile('A')!;
    expect(fitFlags(a, null)).toEqual(['--base', 'A', '--kv-capacity-tokens', String(a.scheduler.kvCapacityTokens),
      '--max-num-seqs', String(a.scheduler.maxNumSeqs), '--policy', a.scheduler.policy]);
    expect(fitFlags(null, null)).toEqual(['--dense']);
  });

  it("predicts the quick plan's five use cases and the full grid, long prompts fitted to the window", () => {
    expect(quickCapacityCases().cases.map((c) => c.useCase.id)).toHaveLength(5);
    const a = findProfile('A')!;
    const grid = fullGrid(a, null);
    expect(grid.every((c) => c.promptTokens + c.outputTokens <= a.maxModelLen)).toBe(true);
    expect(fullGrid(a, 8192).every((c) => c.promptTokens <= 8192)).toBe(true);
  });
});

describe('parseArgs', () => {
  it('runs all but llama by default and refuses unknown parts and profiles', () => {
    expect(parseArgs([]).parts).toEqual(['profiles', 'loop', 'sizing', 'published']);
    expect(parseArgs(['--profiles', 'a,b']).profiles).toEqual(['A', 'B']);
    expect(() => parseArgs(['--parts', 'nope'])).toThrow(/--parts/);
    expect(() => parseArgs(['--profiles', 'F'])).toThrow(/--profiles/);
    expect(() => parseArgs(['--keep', 'x', '--from', 'y'])).toThrow(/give one/);
    expect(parseArgs(['--repeats', '5']).repeats).toBe(5);
    expect(() => parseArgs(['--repeats', '0'])).toThrow(/--repeats/);
    expect(parseArgs([]).sizing).toEqual([]);
    expect(parseArgs(['--fit-for', 'quick', '--fit-budget', '5']).sizing)
      .toEqual(['--fit-for', 'quick', '--fit-budget', '5']);
    expect(() => parseArgs(['--fit-for', 'quick', '--fit-plan', 'x.json'])).toThrow(/--fit-for/);
    expect(() => parseArgs(['--fit-budget', '5'])).toThrow(/--fit-budget/);
  });
});
