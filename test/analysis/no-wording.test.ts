// Tests that analysis/ returns figures, kinds and codes, not sentences: a judged ladder of every kind holds no string
// but ids, codes, k6 expressions and the leftovers analysis/README.md still lists (a limit's label, a client-bound
// step's reason). A new worded field in a ladder result fails here; the report words it (report/capacity-words.ts).
// Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { evaluateLadder, ladderLimits } from '../../analysis/capacity';
import type { CellStats } from '../../analysis/cells';
import { USE_CASES } from '../../thresholds/use-cases';
import { cell, flat } from '../report/helpers';

const chat = USE_CASES.find((u) => u.id === 'general_chatbot')!; // TTFT < 8000 ms, speed > 15 tok/s
const limits = ladderLimits(chat.limits, 'avg', 0.99);

function step(n: number, ttft: number, bound = false): CellStats {
  const c = cell({
    id: `capacity_general_chatbot_n${n}`, useCase: 'general_chatbot', concurrency: n,
    metrics: { ttft: flat(ttft), decodeSpeed: flat(40) },
  });
  return bound ? { ...c, clientBound: { reason: 'the agent used 95% of its cores' } } : c;
}

/** The keys a string may sit under in a judged ladder: ids, codes, expressions, and the listed leftovers. */
const CODE_KEYS = new Set(['cellId', 'kind', 'metric', 'operator', 'expression']);
const LEFTOVER_KEYS = new Set(['label', 'reason']);

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
