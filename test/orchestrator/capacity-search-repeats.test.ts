// Tests orchestrator/capacity-search.ts CapacitySearch: steps whose verdict the measured requests cannot tell
// are measured again, pooled, until clear or the plan's repeat budget is spent. Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { CapacitySearch, searchInterval95 } from '../../orchestrator/capacity-search';
import { isUnclear } from '../../analysis/capacity-interval';
import { drivenCells, renderSearchTable } from '../../orchestrator/driven-results';
import type { StepRequest, StepResult, StepSpec } from '../../orchestrator/driver';
import { mulberry32, standardNormal } from '../../lib/random';
import { USE_CASES } from '../../thresholds/use-cases';
import type { CapacitySearchConfig } from '../../lib/plan';

// TTFT < 8000 ms and decode speed > 15 tok/s (mean per step).
const chat = USE_CASES.find((u) => u.id === 'general_chatbot')!;

function config(maxRepeats: number): CapacitySearchConfig {
  return {
    warmupRequests: 0, minRequestsPerUser: 2, minMeasuredSeconds: 0, startUsers: 1, maxUsers: { general_chatbot: 64 },
    exactBelow: 16, resolutionPercent: 5, maxRepeats,
  };
}

/** A system whose decode speed per request is 300 / users tok/s, spread uniformly by +-spread around that mean. */
function measure(spec: StepSpec, index: number, spread: number, seed: number): StepResult {
  const random = mulberry32(seed + index);
  const n = spec.cell.concurrency;
  const requests: StepRequest[] = Array.from({ length: 2 * n + 20 }, (_, i) => {
    const speed = 300 / n + spread * (2 * random() - 1);
    return {
      ticket: i, ok: true, startMs: 0, endMs: 1000, ttftMs: 500, ttfcMs: 500, e2eMs: 1000, tpotMs: 1000 / speed,
      decodeTokensPerSecond: speed, prefillTokensPerSecond: 1e4, outputTokens: 100, itlMs: [], goodput: true,
      readLagMs: null, stallMs: null, cpuPerCore: null, tokensReadTogether: null,
      phase: 'measured', vu: i % n, runner: 0,
    };
  });
  return { index, spec, startMs: index * 1000, endMs: index * 1000 + 900, requests };
}

/** Runs the search to its end against the system above. */
function run(maxRepeats: number, spread: number, seed = 1): { search: CapacitySearch; steps: StepResult[] } {
  const search = new CapacitySearch([{ useCase: chat, outputTokens: 256 }], config(maxRepeats), 'avg');
  const steps: StepResult[] = [];
  for (let spec = search.next(steps); spec !== null; spec = search.next(steps)) {
    steps.push(measure(spec, steps.length, spread, seed));
    if (steps.length > 100) throw new Error('the search did not end');
  }
  return { search, steps };
}

/**
 * Runs the search against a scripted system: `base / n` tok/s at n users, times `slow(n, steps so far)`, its requests
 * within 0.05% of each other; one user's 8 requests alternate +-`soloSpread` (the noise larger steps share).
 */
function runScripted(
  maxUsers: number, base: number, soloSpread: number, slow: (n: number, steps: readonly StepResult[]) => number,
): { search: CapacitySearch; steps: StepResult[] } {
  const cfg = { ...config(4), maxUsers: { general_chatbot: maxUsers } };
  const search = new CapacitySearch([{ useCase: chat, outputTokens: 256 }], cfg, 'avg');
  const steps: StepResult[] = [];
  for (let spec = search.next(steps); spec !== null; spec = search.next(steps)) {
    const n = spec.cell.concurrency;
    const factor = slow(n, steps);
    const requests: StepRequest[] = Array.from({ length: n === 1 ? 8 : 2 * n }, (_, i) => {
      const speed = n === 1
        ? base * (1 + soloSpread * (i % 2 === 0 ? 1 : -1))
        : (base / n) * factor * (1 + 0.0005 * (i % 3 - 1));
      return {
        ticket: i, ok: true, startMs: 0, endMs: 1000, ttftMs: 500, ttfcMs: 500, e2eMs: 1000, tpotMs: 1000 / speed,
        decodeTokensPerSecond: speed, prefillTokensPerSecond: 1e4, outputTokens: 100, itlMs: [], goodput: true,
      readLagMs: null, stallMs: null, cpuPerCore: null, tokensReadTogether: null,
        phase: 'measured', vu: i % n, runner: 0,
      };
    });
    steps.push({ index: steps.length, spec, startMs: 0, endMs: 1, requests });
    if (steps.length > 100) throw new Error('the search did not end');
  }
  return { search, steps };
}

describe('CapacitySearch repeats unclear steps', () => {
  it('calls a verdict unclear when fewer than 95% of resamples agree', () => {
    expect([0, 0.05, 0.06, 0.5, 0.94, 0.95, 1].map(isUnclear)).toEqual([false, false, true, true, true, false, false]);
  });

  it('repeats nothing when the requests do not vary: the deterministic search costs what it did', () => {
    // 300/n > 15 up to n = 19; 20 sits on the limit (not above it).
    const { search, steps } = run(4, 0);
    const s = search.searches[0]!;
    expect(s.outcome).toEqual({ kind: 'done', lastPass: 19, firstFail: 20 });
    expect([s.repeats, s.unclear, s.decision]).toEqual([0, [], 'narrow']);
    expect(new Set(steps.map((r) => r.spec.cell.id)).size).toBe(steps.length);
    expect(renderSearchTable(search)).toContain('decided: interval within the resolution (no repeats)');
  });

  it('measures the unclear step next to the capacity again, pools its requests, and says when the budget ran ' +
    'out', () => {
    const wide = run(3, 30);
    const s = wide.search.searches[0]!;
    expect([s.repeats, s.decision]).toEqual([3, 'budget']);
    expect(s.unclear.length).toBeGreaterThan(0);
    // Every repeat ran under its step's cell id: one cell of the part, its measurements counted.
    const cells = drivenCells(wide.steps, new Map(), 0);
    const measurements = cells.reduce((n, c) => n + c.driven!.measurements, 0);
    expect(measurements).toBe(wide.steps.length);
    expect(new Set(cells.map((c) => c.id)).size).toBe(cells.length);
    const pooled = s.points.filter((p) => (p.measurements ?? 1) > 1);
    expect(pooled.length).toBeGreaterThan(0);
    for (const p of pooled) expect(p.sample!.succeeded).toBe(p.measurements! * (2 * p.users + 20));
    const budget = /undecided: repeat budget spent \(3 repeats[;)].* the verdict at [\d, ]+ users? stayed unclear/;
    expect(renderSearchTable(wide.search)).toMatch(budget);
    // Without a budget the same system ends at once and says so.
    const none = run(0, 30).search.searches[0]!;
    expect([none.repeats, none.decision]).toEqual([0, 'budget']);
  });

  it('measures an unclear first fail again although the interval is narrow: above it the interval sees nothing', () => {
    // 305 / n > 15 holds up to 20 users. One user's requests vary by 2% (the noise larger steps share); the first
    // measurement of 20 users reads 2% slow, so it fails, yet passes in a good share of resamples.
    const { search } = runScripted(64, 305, 0.02, (n, steps) =>
      n === 20 && !steps.some((r) => r.spec.cell.concurrency === 20) ? 0.98 : 1);
    const s = search.searches[0]!;
    const twenty = s.points.find((p) => p.users === 20)!;
    expect(twenty.measurements).toBeGreaterThan(1);
    const interval = searchInterval95(s)!;
    expect(interval.low).toBeLessThanOrEqual(20);
    expect(interval.high ?? Infinity).toBeGreaterThanOrEqual(20);
  });

  it('measures the first fail again first when only its verdict is in doubt, not a less certain last pass', () => {
    // 920 / n tok/s: 61 users read 15.08 (0.5% above the limit), 62 users 14.84. One user's requests vary by 1%.
    // The interval is narrow at once; the first fail's verdict is not (88% of resamples fail), the last pass's is
    // less certain still (74% pass), but below the capacity the interval already sees it.
    const { search, steps } = runScripted(128, 920, 0.01, () => 1);
    const s = search.searches[0]!;
    expect(s.outcome).toEqual({ kind: 'done', lastPass: 61, firstFail: 62 });
    const repeated = steps.map((r) => r.spec.cell.concurrency).filter((n, i, all) => n > 1 && all.indexOf(n) < i);
    expect(repeated.length).toBeGreaterThan(0);
    expect(new Set(repeated)).toEqual(new Set([62]));
    expect(s.decision).toBe('narrow');
    expect(s.repeats).toBeLessThan(4);
  });

  it('decides once pooled requests narrow the interval to the resolution', () => {
    const { search } = run(20, 20, 2);
    const s = search.searches[0]!;
    expect(s.decision).toBe('narrow');
    expect(s.repeats).toBeGreaterThan(0);
    expect(s.repeats).toBeLessThan(20);
  });
});

/**
 * A system whose hiccups slow every request running together: a step of n > 1 users moves as one by a factor drawn
 * once (`sd` standard deviation), while one user's `soloRequests` requests, each alone, draw their own.
 */
function measureShared(
  spec: StepSpec, index: number, random: () => number, sd: number, soloRequests: number,
): StepResult {
  const normal = () => standardNormal(random);
  const n = spec.cell.concurrency;
  const stepFactor = 1 + sd * normal();
  const requests: StepRequest[] = Array.from({ length: n === 1 ? soloRequests : 2 * n }, (_, i) => {
    const speed = (300 / n) * (n === 1 ? 1 + sd * normal() : stepFactor);
    return {
      ticket: i, ok: true, startMs: 0, endMs: 1000, ttftMs: 500, ttfcMs: 500, e2eMs: 1000, tpotMs: 1000 / speed,
      decodeTokensPerSecond: speed, prefillTokensPerSecond: 1e4, outputTokens: 100, itlMs: [], goodput: true,
      readLagMs: null, stallMs: null, cpuPerCore: null, tokensReadTogether: null,
      phase: 'measured', vu: i % n, runner: 0,
    };
  });
  return { index, spec, startMs: index * 1000, endMs: index * 1000 + 900, requests };
}

describe('CapacitySearch and the noise a step\'s requests share', () => {
  it('probes the noise with each use case\'s one-user step, the part\'s first request as warm-up', () => {
    const coding = USE_CASES.find((u) => u.id === 'coding_assistant')!;
    const cfg = { ...config(0), maxUsers: { general_chatbot: 64, coding_assistant: 8 } };
    const useCases = [{ useCase: chat, outputTokens: 256 }, { useCase: coding, outputTokens: 256 }];
    const search = new CapacitySearch(useCases, cfg, 'avg');
    const steps: StepResult[] = [];
    const specs: StepSpec[] = [];
    for (let spec = search.next(steps); spec !== null; spec = search.next(steps)) {
      specs.push(spec);
      steps.push(measure(spec, steps.length, 0, 1));
    }
    const probes = specs.filter((s) => s.mode.kind === 'steady' && s.mode.noiseProbe);
    expect(probes.map((s) => [s.cell.useCase, s.cell.concurrency]))
      .toEqual([['general_chatbot', 1], ['coding_assistant', 1]]);
    expect(probes.map((s) => s.mode.kind === 'steady' && s.mode.noiseProbe!.warmupRequests)).toEqual([1, 0]);
  });

  it('states intervals that hold the noiseless capacity although every step\'s requests agree', () => {
    // Without noise 300 / n > 15 holds up to 19 users. Each step's requests agree exactly, so only what one user's
    // requests show can widen the interval.
    let holding = 0;
    for (let seed = 1; seed <= 20; seed++) {
      const search = new CapacitySearch([{ useCase: chat, outputTokens: 256 }], config(2), 'avg');
      const steps: StepResult[] = [];
      for (let spec = search.next(steps); spec !== null; spec = search.next(steps)) {
        steps.push(measureShared(spec, steps.length, mulberry32(seed * 1000 + steps.length), 0.03, 4));
      }
      const interval = searchInterval95(search.searches[0]!)!;
      if (interval.low <= 19 && 19 <= (interval.high ?? Infinity)) holding++;
    }
    expect(holding).toBeGreaterThanOrEqual(17);
  });
});

/**
 * A server that turns noisy after the search's start: one user's requests vary by 1.5% in the first step and by 5%
 * later, and every larger step moves as one by a factor of 5% standard deviation.
 */
function measureLateNoise(spec: StepSpec, index: number, seed: number): StepResult {
  return measureShared(spec, index, mulberry32(seed * 7919 + index), index === 0 ? 0.015 : 0.05, 6);
}

describe('CapacitySearch measures its noise probe again at the end', () => {
  it('on a server whose noise arrives after the first probe, and the intervals then hold the capacity', () => {
    let holdingBefore = 0;
    let holdingAfter = 0;
    for (let seed = 1; seed <= 20; seed++) {
      const search = new CapacitySearch([{ useCase: chat, outputTokens: 256 }], config(2), 'avg');
      const s = search.searches[0]!;
      const steps: StepResult[] = [];
      let beforeLate: ReturnType<typeof searchInterval95> = null;
      for (let spec = search.next(steps); spec !== null; spec = search.next(steps)) {
        if (steps.length > 0 && spec.cell.concurrency === 1) {
          // The late probe: after the bracket is measured, no warm-up, pooled with the first probe.
          expect(s.outcome).toBeNull();
          expect(spec.mode.kind === 'steady' && spec.mode.noiseProbe?.warmupRequests).toBe(0);
          beforeLate = searchInterval95(s);
        }
        steps.push(measureLateNoise(spec, steps.length, seed));
      }
      expect(s.lateProbe, steps.map((r) => r.spec.cell.concurrency).join(" ")).toBe(true);
      expect(steps.filter((r) => r.spec.cell.concurrency === 1)).toHaveLength(2);
      expect(s.points.find((p) => p.users === 1)!.measurements).toBe(2);
      const holds = (i: ReturnType<typeof searchInterval95>) => i !== null && i.low <= 19 && 19 <= (i.high ?? Infinity);
      if (holds(beforeLate)) holdingBefore++;
      if (holds(searchInterval95(s))) holdingAfter++;
    }
    expect(holdingAfter).toBeGreaterThanOrEqual(17);
    expect(holdingAfter).toBeGreaterThan(holdingBefore);
    const { search } = run(0, 30);
    expect(renderSearchTable(search)).toContain('the one-user noise probe measured again');
  });
});
