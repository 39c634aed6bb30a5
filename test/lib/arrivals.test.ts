import { describe, expect, it } from 'vitest';
import { arrivalCount, arrivalTimesMs, gammaDraw, senderShare, type ArrivalSpec } from '../../lib/arrivals';
import { mulberry32 } from '../../lib/random';

const BASE: ArrivalSpec = {
  process: 'poisson', ratePerSecond: 20, rampFromPerSecond: null, durationSeconds: 1000, burstiness: 1, seed: 7,
};

function gaps(times: readonly number[]): number[] {
  return times.slice(1).map((t, i) => t - times[i]!);
}

function cv(xs: readonly number[]): number {
  const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
  const sd = Math.sqrt(xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (xs.length - 1));
  return sd / mean;
}

describe('arrival schedules', () => {
  it('holds exactly rate x duration requests, ascending, inside the cell', () => {
    for (const process of ['constant', 'poisson', 'gamma'] as const) {
      const t = arrivalTimesMs({ ...BASE, process, burstiness: 0.5 });
      expect(t.length, process).toBe(20_000);
      expect(t[0]!, process).toBeGreaterThanOrEqual(0);
      expect(t.at(-1)!, process).toBeLessThan(1_000_000);
      expect(gaps(t).every((g) => g >= 0), process).toBe(true);
    }
  });

  it('repeats its schedule for a seed and draws another for another seed', () => {
    expect(arrivalTimesMs(BASE)).toEqual(arrivalTimesMs(BASE));
    expect(arrivalTimesMs({ ...BASE, seed: 8 })[0]).not.toBe(arrivalTimesMs(BASE)[0]);
  });

  it('has gaps with the coefficient of variation 1/sqrt(b): 0 constant, 1 Poisson, 2 at b = 0.25, 0.5 at b = 4', () => {
    expect(cv(gaps(arrivalTimesMs({ ...BASE, process: 'constant' })))).toBeLessThan(1e-9);
    expect(cv(gaps(arrivalTimesMs(BASE)))).toBeCloseTo(1, 1);
    expect(cv(gaps(arrivalTimesMs({ ...BASE, process: 'gamma', burstiness: 0.25 })))).toBeGreaterThan(1.85);
    expect(cv(gaps(arrivalTimesMs({ ...BASE, process: 'gamma', burstiness: 0.25 })))).toBeLessThan(2.15);
    expect(cv(gaps(arrivalTimesMs({ ...BASE, process: 'gamma', burstiness: 4 })))).toBeCloseTo(0.5, 1);
  });

  it('Poisson: the count in each second is Poisson (variance equal to the mean)', () => {
    const perSecond = new Array<number>(1000).fill(0);
    for (const t of arrivalTimesMs(BASE)) perSecond[Math.floor(t / 1000)]!++;
    const mean = perSecond.reduce((a, b) => a + b, 0) / perSecond.length;
    const variance = perSecond.reduce((a, x) => a + (x - mean) ** 2, 0) / (perSecond.length - 1);
    expect(mean).toBe(20);
    expect(variance / mean).toBeGreaterThan(0.85);
    expect(variance / mean).toBeLessThan(1.15);
  });

  it('ramps linearly: a ramp from 10 to 30 per second sends 10 in its first second and 30 in its last, ' +
    '20 on average', () => {
    const ramp = {
      ...BASE, process: 'constant' as const, ratePerSecond: 30, rampFromPerSecond: 10, durationSeconds: 100,
    };
    const t = arrivalTimesMs(ramp);
    expect(arrivalCount(ramp)).toBe(2000);
    expect(t.length).toBe(2000);
    expect(t.filter((x) => x < 1000).length).toBeGreaterThanOrEqual(10);
    expect(t.filter((x) => x < 1000).length).toBeLessThanOrEqual(11);
    expect(t.filter((x) => x >= 99_000).length).toBeGreaterThanOrEqual(29);
    expect(t.filter((x) => x >= 99_000).length).toBeLessThanOrEqual(30);
    const down = arrivalTimesMs({ ...ramp, ratePerSecond: 10, rampFromPerSecond: 30 });
    expect(down.filter((x) => x < 1000).length).toBeGreaterThanOrEqual(29);
  });

  it('draws gamma variates with mean a and variance a, below and above shape 1', () => {
    for (const shape of [0.3, 1, 2.5]) {
      const random = mulberry32(3);
      const xs = Array.from({ length: 50_000 }, () => gammaDraw(shape, random));
      const mean = xs.reduce((a, b) => a + b, 0) / xs.length;
      const variance = xs.reduce((a, x) => a + (x - mean) ** 2, 0) / (xs.length - 1);
      expect(mean / shape, `shape ${shape}`).toBeCloseTo(1, 1);
      expect(variance / shape, `shape ${shape}`).toBeGreaterThan(0.93);
      expect(variance / shape, `shape ${shape}`).toBeLessThan(1.07);
    }
  });
});

describe('senderShare', () => {
  it("splits a schedule among senders, each request once, each sender every n-th from its place", () => {
    expect(senderShare(7, 0, 1)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(senderShare(7, 1, 3)).toEqual([1, 4]);
    for (const senders of [1, 2, 3, 5]) {
      const all = Array.from({ length: senders }, (_, s) => senderShare(23, s, senders)).flat().sort((a, b) => a - b);
      expect(all, `${senders} senders`).toEqual(Array.from({ length: 23 }, (_, i) => i));
    }
    // More senders than requests: the last ones send nothing.
    expect(senderShare(2, 3, 4)).toEqual([]);
  });

  it('refuses a sender outside its senders', () => {
    expect(() => senderShare(10, 2, 2)).toThrow('sender 2 of 2');
    expect(() => senderShare(10, 0, 0)).toThrow('sender 0 of 0');
  });
});
