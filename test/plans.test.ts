// The example plans in plans/ stay valid for every script they are meant for. Runs in Node (vitest).

import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolvePlan, SCRIPT_NAMES } from '../lib/plan';

const dir = path.resolve(import.meta.dirname, '..', 'plans');
const read = (name: string): unknown => JSON.parse(readFileSync(path.join(dir, name), 'utf8'));

describe('plans/', () => {
  it('example.json resolves for every script, with cells in sequence', () => {
    for (const script of SCRIPT_NAMES) {
      const plan = resolvePlan(read('example.json'), script, (file) => readFileSync(file, 'utf8'));
      expect(plan.cells.length).toBeGreaterThan(0);
      expect(plan.target.powerMetricsUrl).toBe('http://127.0.0.1:9400/metrics');
    }
    expect(resolvePlan(read('example.json'), 'sweep').cells).toHaveLength(28);
  });

  it('gate-general-chatbot.json gives one gated cell on p(95)', () => {
    const plan = resolvePlan(read('gate-general-chatbot.json'), 'gate');
    expect(plan.cells.map((c) => [c.id, c.concurrency, c.rounds])).toEqual([['gate_general_chatbot_n8', 8, 2]]);
    expect(plan.limitStat).toBe('p(95)');
  });
});
