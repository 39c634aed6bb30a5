// lib/trace-replay.ts and the trace script's plan: the samples as replay rows, the window, bad rows as one line, and
// the cells a trace resolves into. Runs in Node (vitest).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PlanError, readResolvedPlan, resolvePlan } from '../../lib/plan';
import { evenEdges, histogram, loadReplay, replayScheduleMs, type ReplaySource } from '../../lib/trace-replay';
import { TraceError } from '../../lib/trace/index';

const SAMPLES = join(__dirname, '../../examples/traces');
const sample = (name: string): string => readFileSync(join(SAMPLES, name), 'utf8');
const SOURCE: ReplaySource = {
  file: 'x', format: null, startSeconds: 0, durationSeconds: null, maxRequests: null, skipBadRows: false,
};

function errorOf(run: () => unknown): string {
  try {
    run();
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('expected an error');
}

describe('loadReplay', () => {
  it('gives the Mooncake sample as rows at their times with their hash ids and totals', () => {
    const r = loadReplay(sample('mooncake.jsonl'), SOURCE);
    expect(r.format).toBe('mooncake');
    expect(r.rows).toHaveLength(40);
    expect(r.rows[0]).toMatchObject({ atMs: 0, inputTokens: 4523, outputTokens: 295, blockTokens: 512, parent: -1 });
    expect(r.rows[0]!.keys).toEqual([6, 7, 8, 9, 10, 11, 100, 101, 102]);
    expect(r.summary.inputTokensTotal).toBe(r.rows.reduce((n, x) => n + x.inputTokens, 0));
    expect(r.summary.stats.inputTokens!.max).toBe(Math.max(...r.rows.map((x) => x.inputTokens)));
    expect(r.summary.stats.durationMs).toBe(r.rows.at(-1)!.atMs);
    expect(r.summary.stats.prefix!.share).toBeGreaterThan(0.4);
  });

  it('links Bailian turns to the position of the turn they follow', () => {
    const r = loadReplay(sample('bailian.jsonl'), SOURCE);
    const followers = r.rows.filter((x) => x.parent >= 0);
    expect(followers.length).toBeGreaterThan(10);
    for (const [i, row] of r.rows.entries()) if (row.parent >= 0) expect(row.parent).toBeLessThan(i);
    expect(r.rows[0]!.blockTokens).toBe(16);
  });

  it('rows without hash ids get no shared keys; a window re-bases the times to its first row', () => {
    const r = loadReplay(sample('azure.csv'), { ...SOURCE, startSeconds: 5, durationSeconds: 10 });
    expect(r.rows.every((x) => x.keys.length === 0)).toBe(true);
    expect(r.rows[0]!.atMs).toBe(0);
    expect(r.summary.inWindow).toBe(r.rows.length);
    expect(r.summary.loadedRows).toBe(40);
    expect(replayScheduleMs(r.rows, 2).at(-1)).toBe(r.rows.at(-1)!.atMs / 2);
  });

  it('stops at a bad row with one line naming its kind and count, or skips them when asked', () => {
    const text = sample('mooncake.jsonl') + '{"timestamp":5,"input_length":-3,"output_length":4,"hash_ids":[1]}\n';
    const message = errorOf(() => loadReplay(text, { ...SOURCE, file: 't.jsonl' }));
    expect(message).toMatch(/^t\.jsonl: 1 row \(line 41\): input_length .*; npm run trace:check lists them/);
    expect(message).not.toContain('\n');
    const skipped = loadReplay(text, { ...SOURCE, skipBadRows: true });
    expect(skipped.summary.badRows).toBe(1);
    expect(skipped.rows).toHaveLength(40);
  });

  it('says when no row falls in the window', () => {
    expect(() => loadReplay(sample('mooncake.jsonl'), { ...SOURCE, startSeconds: 10_000 })).toThrow(TraceError);
  });
});

describe('histograms', () => {
  it('bins values in [edge, next edge), the last bin holding its upper edge, nothing outside', () => {
    expect(evenEdges(100, 4)).toEqual([0, 25, 50, 75, 100]);
    expect(histogram([0, 24.9, 25, 99, 100, 101, -1], [0, 25, 50, 75, 100])).toEqual([2, 1, 0, 2]);
    expect(evenEdges(0, 2)).toEqual([0, 0.5, 1]);
  });

  it('the replay summary bins every row of the trace', () => {
    const h = loadReplay(sample('mooncake.jsonl'), SOURCE).summary.histograms;
    for (const x of [h.inputTokens, h.outputTokens, h.arrivalsMs]) expect(x.counts.reduce((a, b) => a + b, 0)).toBe(40);
  });
});

describe('the trace script\'s plan', () => {
  const read = (path: string): string => {
    if (path !== '/traces/m.jsonl') throw new Error(`ENOENT: no such file, open '${path}'`);
    return sample('mooncake.jsonl');
  };

  it('makes one cell per speed: the rows, their rate at that speed, a slot for the schedule and its tail', () => {
    const plan = resolvePlan({ trace: { file: '/traces/m.jsonl', speeds: [1, 2.5] } }, 'trace', read);
    const duration = plan.trace!.summary.stats.durationMs / 1000;
    expect(plan.cells.map((c) => [c.id, c.script, c.useCase, c.arrivals?.process, c.arrivals?.speed])).toEqual([
      ['trace_s1', 'trace', 'short_chatbot', 'trace', 1], ['trace_s2_5', 'trace', 'short_chatbot', 'trace', 2.5],
    ]);
    expect(plan.cells[1]!.arrivals!.ratePerSecond).toBeCloseTo(40 / (duration / 2.5), 6);
    expect(plan.cells[1]!.arrivals!.durationSeconds).toBe(Math.ceil(duration / 2.5));
    expect(plan.cells[0]!.contextTokens).toBe(plan.trace!.summary.stats.inputTokens!.max);
    expect(plan.cells[1]!.startSeconds).toBeGreaterThan(plan.cells[0]!.startSeconds + duration);
    // plan.json reads back through the same checks.
    expect(readResolvedPlan(JSON.parse(JSON.stringify(plan))).trace).toEqual(plan.trace);
  });

  it('errors in one line: no trace, an unreadable file, an unknown use case, bad rows', () => {
    expect(errorOf(() => resolvePlan({}, 'trace', read))).toMatch(/needs a trace: plan field "trace.file"/);
    expect(errorOf(() => resolvePlan({ trace: { file: '/nope.jsonl' } }, 'trace', read)))
      .toMatch(/^trace file "\/nope.jsonl" cannot be read: ENOENT/);
    expect(() => resolvePlan({ trace: { file: '/traces/m.jsonl', useCase: 'nope' } }, 'trace', read)).toThrow(
      PlanError,
    );
    const bad = (): string => 'not json\n';
    expect(errorOf(() => resolvePlan({ trace: { file: '/b.jsonl', format: 'mooncake' } }, 'trace', bad)))
      .toMatch(/^\/b\.jsonl: no row of the mooncake trace is usable/);
    // Other scripts ignore the section and never read the file.
    expect(resolvePlan({ trace: { file: '/nope.jsonl' } }, 'sweep').trace).toBeNull();
  });
});
