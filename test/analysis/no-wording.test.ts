// Tests that analysis/ returns figures, kinds and codes, not sentences: a judged ladder of every kind holds no string
// but ids, codes, k6 expressions and the leftover analysis/README.md still lists (a limit's label), and a cell's
// client-bound cause and open-loop problems hold none but their kinds. A new worded field fails here; the report
// words it (report/capacity-words.ts).
// Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { evaluateLadder, ladderLimits } from '../../analysis/capacity';
import type { CellStats } from '../../analysis/cells';
import { USE_CASES } from '../../thresholds/use-cases';
import { cell, flat } from '../report/helpers';
import { clientBoundCause } from '../../analysis/client-bound';
import { openLoopStats } from '../../analysis/open-loop';
import type { CellArrivals } from '../../lib/plan';

const chat = USE_CASES.find((u) => u.id === 'general_chatbot')!; // TTFT < 8000 ms, speed > 15 tok/s
const limits = ladderLimits(chat.limits, 'avg', 0.99);

function step(n: number, ttft: number, bound = false): CellStats {
  const c = cell({
    id: `capacity_general_chatbot_n${n}`, useCase: 'general_chatbot', concurrency: n,
    metrics: { ttft: flat(ttft), decodeSpeed: flat(40) },
  });
  return bound ? { ...c, clientBound: { agentCpuShare: 0.95, reading: null, stall: null } } : c;
}

/** The keys a string may sit under in a judged ladder: ids, codes, expressions, and the listed leftovers. */
const CODE_KEYS = new Set(['cellId', 'kind', 'metric', 'operator', 'expression']);
const LEFTOVER_KEYS = new Set(['label']);

function stringKeys(value: unknown, key = '', out: string[] = []): string[] {
  if (typeof value === 'string') out.push(key);
  else if (Array.isArray(value)) value.forEach((v) => stringKeys(v, key, out));
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) stringKeys(v, k, out);
  }
  return out;
}

describe('a judged ladder holds no wording', () => {
  const ladders = {
    within: [step(1, 1000), step(8, 6000), step(16, 10000)],
    beyond: [step(1, 1000), step(8, 6000)],
    below: [step(1, 9000)],
    untested: [],
    undetermined: [step(1, 1000), step(8, 6000, true), step(16, 10000)],
  };
  for (const [kind, cells] of Object.entries(ladders)) {
    it(`${kind}: strings only under ids, codes and expressions`, () => {
      const r = evaluateLadder(cells, limits);
      expect(r.kind).toBe(kind);
      const worded = stringKeys(r).filter((k) => !CODE_KEYS.has(k) && !LEFTOVER_KEYS.has(k));
      expect(worded).toEqual([]);
      expect(r).not.toHaveProperty('display');
    });
  }
});

describe("a cell's findings hold figures and kinds", () => {
  it('client-bound causes, open-loop problems and left-out server means', () => {
    const cause = clientBoundCause({
      readLagP99Ms: 12, cpuShare: 0.95, itlMedianMs: 10, tokensReadTogether: 5, itlSamples: 100,
      stalls: { requests: 10, over: 0, longestMs: 3 },
    });
    expect(cause).not.toBeNull();
    const arrivals: CellArrivals = {
      process: 'poisson', ratePerSecond: 4, rampFromPerSecond: null, durationSeconds: 10, burstiness: 1, seed: 1,
      requests: 40, lagLimitMs: 10, senders: 1, warmupSeconds: 0,
    };
    const open = openLoopStats(arrivals, { ...flat(1), p99: 12 }, 3, 30);
    expect(open.problems.map((p) => p.kind)).toEqual(['underOffered', 'late']);
    const worded = stringKeys({ cause, problems: open.problems }).filter((k) => k !== 'kind');
    expect(worded).toEqual([]);
  });
});
