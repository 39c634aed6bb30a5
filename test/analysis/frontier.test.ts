// Tests analysis/frontier.ts: which cells make the throughput-per-GPU against per-user-speed frontier, and each
// point's figures. Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { frontierPoint, gridFrontier, paretoFrontier, speedFloors, type FrontierXY } from '../../analysis/frontier';
import { USE_CASES } from '../../thresholds/use-cases';
import type { PowerFigures } from '../../analysis/power';
import { cell, flat } from '../report/helpers';
import { floorLabel } from '../../report/charts-frontier';

/** A point by its two figures, named so a failure says which. */
const xy = (name: string, perUser: number, perGpu: number): FrontierXY & { name: string } =>
  ({ name, perUserTokensPerSecond: perUser, tokensPerSecondPerGpu: perGpu });
const names = (points: readonly { name: string }[]): string[] => points.map((p) => p.name);

const COST = { usdPerKwh: 0.1, usdPerGpuHour: 2.5, gpuCount: 2 };

describe('paretoFrontier', () => {
  it('leaves out a point another beats on both axes, or equals on one and beats on the other', () => {
    const points = [
      xy('a', 100, 100), xy('b', 50, 300),
      xy('c', 40, 200), // b is faster per user and makes more per GPU
      xy('d', 100, 90), // as fast as a, less per GPU
      xy('e', 30, 300), // as much per GPU as b, slower per user
    ];
    expect(names(paretoFrontier(points))).toEqual(['b', 'a']);
  });

  it('keeps every point of a trade-off, slowest per user (most per GPU) first', () => {
    const points = [xy('n1', 80, 40), xy('n8', 20, 160), xy('n2', 70, 75), xy('n4', 45, 120)];
    expect(names(paretoFrontier(points))).toEqual(['n8', 'n4', 'n2', 'n1']);
  });

  it('keeps both of two equal points, in input order, and drops what either dominates', () => {
    const points = [xy('late', 50, 300), xy('x', 10, 10), xy('early', 50, 300), xy('fast', 90, 20)];
    expect(names(paretoFrontier(points))).toEqual(['late', 'early', 'fast']);
  });

  it('takes a one-point grid as its own frontier, and an empty one as none', () => {
    expect(names(paretoFrontier([xy('only', 12, 34)]))).toEqual(['only']);
    expect(paretoFrontier([])).toEqual([]);
  });
});

describe('frontierPoint', () => {
  // 200 tok/s on 2 GPUs = 100 tok/s per GPU; 720,000 output tokens per hour.
  const measured = cell({
    id: 'sweep_c8k_n4', script: 'sweep', contextTokens: 8192, concurrency: 4, throughput: 200,
    metrics: { decodeSpeed: { ...flat(30), mean: 35 } },
  });

  it('without power: the median per-user speed, tok/s per GPU, no energy, the GPU-hours alone as cost', () => {
    const point = frontierPoint(measured, COST)!;
    expect(point.perUserTokensPerSecond).toBe(30); // the median, not the mean of 35
    expect(point.tokensPerSecondPerGpu).toBe(100);
    expect(point.joulesPerOutputToken).toBeNull();
    // 2 GPUs x $2.50 = $5/h over 0.72 million tokens/h
    expect(point.usdPerMillionTokens).toBeCloseTo(5 / 0.72, 10);
    expect(point.costBasis).toBe('gpu-hours');
    expect(point).toMatchObject({ cellId: 'sweep_c8k_n4', contextTokens: 8192, concurrency: 4, profile: null });
  });

  it('with power: its energy per token, and electricity added to the GPU-hours', () => {
    // 720 W at 200 tok/s = 3.6 J per token; 0.72 kW x $0.10 = $0.072/h beside the GPUs' $5/h.
    const power: PowerFigures = {
      meanWatts: 720, peakWatts: 800, samples: 4, joulesPerOutputToken: 3.6,
      electricityUsdPerHour: 0.072, totalUsdPerHour: 5.072, usdPerMillionTokens: 5.072 / 0.72,
    };
    const point = frontierPoint({ ...measured, power }, COST)!;
    expect(point.joulesPerOutputToken).toBe(3.6);
    expect(point.usdPerMillionTokens).toBeCloseTo(7.044444, 6);
    expect(point.costBasis).toBe('gpu-hours+electricity');
  });

  it('leaves out a cell without requests, decode-speed samples or throughput, and prices no output as null', () => {
    expect(frontierPoint({ ...measured, requests: 0 }, COST)).toBeNull();
    expect(frontierPoint(cell({ throughput: 200 }), COST)).toBeNull();
    expect(frontierPoint({ ...measured, throughput: null }, COST)).toBeNull();
    expect(frontierPoint({ ...measured, throughput: 0 }, COST)!.usdPerMillionTokens).toBeNull();
  });
});

describe('gridFrontier', () => {
  it('turns measured cells into points and the frontier into a subset of them', () => {
    const at = (id: string, speed: number, throughput: number) =>
      cell({ id, script: 'sweep', throughput, metrics: { decodeSpeed: flat(speed) } });
    const cells = [at('n1', 60, 60), at('n2', 55, 110), at('n4', 30, 100), cell({ id: 'empty', requests: 0 })];
    const { points, frontier } = gridFrontier(cells, { ...COST, gpuCount: 1 });
    expect(points.map((p) => p.cellId)).toEqual(['n1', 'n2', 'n4']);
    expect(frontier.map((p) => p.cellId)).toEqual(['n2', 'n1']);
  });
});

describe('speedFloors', () => {
  it('draws minimum decode speeds and maximum TPOTs, one line per floor, and nothing for time limits', () => {
    const floors = speedFloors([
      { title: 'Chat', limits: [USE_CASES[2]!.limits[0]!, USE_CASES[2]!.limits[1]!] }, // TTFT < 8 s, speed > 15
      { title: 'Docs', limits: [{ metric: 'decodeSpeed', operator: '>', value: 15, label: 'speed > 15 tok/s' }] },
      { title: 'Coding', limits: [{ metric: 'decodeSpeed', operator: '>=', value: 20, label: 'speed >= 20 tok/s' }] },
      {
        title: 'Interactive',
        limits: [{ metric: 'tpot', operator: '<', value: 40, label: 'TPOT p99 < 40 ms', stat: 'p(99)' }],
      },
      { title: 'Completion', limits: [{ metric: 'e2e', operator: '<', value: 2000, label: 'e2e < 2 s' }] },
      // A speed ceiling is no floor.
      { title: 'Odd', limits: [{ metric: 'decodeSpeed', operator: '<', value: 500, label: 'speed < 500 tok/s' }] },
    ]);
    expect(floors).toEqual([
      { tokensPerSecond: 15, useCases: ['Chat', 'Docs'], limit: 'speed > 15 tok/s', fromTpot: false },
      { tokensPerSecond: 20, useCases: ['Coding'], limit: 'speed >= 20 tok/s', fromTpot: false },
      // 40 ms per token is 25 tokens per second.
      { tokensPerSecond: 25, useCases: ['Interactive'], limit: 'TPOT p99 < 40 ms', fromTpot: true },
    ]);
    expect(floors.map(floorLabel)).toEqual([
      'Chat, Docs: speed > 15 tok/s', 'Coding: speed >= 20 tok/s', 'Interactive: TPOT p99 < 40 ms (25 tok/s)',
    ]);
  });

  it('has no floor without use cases', () => {
    expect(speedFloors([])).toEqual([]);
  });
});
