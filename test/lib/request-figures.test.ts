// One definition of every per-request figure: TypeScript's (lib/request-figures.ts), the simulator's truth
// (bench/accuracy-judge.ts truthFigures) and the virtual engine (whatif/virtual-drive.ts doneReport) give the values of
// test/fixtures/request-figures.json, the file the agent's Go test (agent/figures_fixture_test.go) reads too.
// Runs in Node (vitest).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { truthFigures } from '../../bench/accuracy-judge';
import { interTokenLatenciesMs, judgeGoodput, requestFigures } from '../../lib/request-figures';
import type { UseCaseLimit } from '../../thresholds/use-cases';
import { doneReport } from '../../whatif/virtual-drive';

interface Expected {
  readonly ttftMs: number;
  readonly e2eMs: number;
  readonly outputTokens: number;
  readonly itlMs: number[];
  readonly itlMeanMs: number | null;
  readonly tpotMs: number | null;
  readonly decodeTokensPerSecond: number | null;
  readonly prefillTokensPerSecond: number | null;
  readonly goodput: boolean;
}

interface Case {
  readonly name: string;
  readonly startMs: number;
  readonly chunks: [number, number][];
  readonly endMs: number;
  readonly inputTokens: number;
  readonly completed: boolean;
  readonly limits: Pick<UseCaseLimit, 'metric' | 'operator' | 'value'>[];
  readonly expected: Expected | null;
}

const FIXTURE = new URL('../fixtures/request-figures.json', import.meta.url);
const CASES = (JSON.parse(readFileSync(FIXTURE, 'utf8')) as { cases: Case[] }).cases;

/** A figure equal to the expected one within float rounding; null only where null is expected. */
function same(actual: number | null | undefined, expected: number | null, what: string): void {
  if (expected === null) expect(actual, what).toBeNull();
  else expect(actual, what).toBeCloseTo(expected, 9);
}

const timed = (c: Case) => ({
  startMs: c.startMs, chunks: c.chunks.map(([atMs, tokens]) => ({ atMs, tokens })), endMs: c.endMs,
  inputTokens: c.inputTokens,
});

describe('request figures: one definition, pinned by test/fixtures/request-figures.json', () => {
  it('holds the edge cases the definitions decide', () => {
    const names = CASES.map((c) => c.name).join('\n');
    for (const word of ['one-token', 'zero tokens', 'error mid-stream', 'tie', 'equal to its limit']) {
      expect(names).toContain(word);
    }
  });

  it.each(CASES.map((c) => [c.name, c] as const))('lib/request-figures.ts: %s', (_, c) => {
    const f = c.completed ? requestFigures(timed(c)) : null;
    expect(judgeGoodput(f, c.limits), 'goodput').toBe(c.expected?.goodput ?? false);
    if (c.expected === null) {
      expect(f).toBeNull();
      return;
    }
    const e = c.expected;
    expect(f).not.toBeNull();
    same(f!.ttftMs, e.ttftMs, 'ttft');
    same(f!.e2eMs, e.e2eMs, 'e2e');
    expect(f!.outputTokens).toBe(e.outputTokens);
    expect(f!.itlMs).toEqual(e.itlMs);
    same(f!.tpotMs, e.tpotMs, 'tpot');
    same(f!.decodeTokensPerSecond, e.decodeTokensPerSecond, 'decode speed');
    same(f!.prefillTokensPerSecond, e.prefillTokensPerSecond, 'prefill speed');
  });

  const completed = CASES.filter((c) => c.expected !== null).map((c) => [c.name, c] as const);

  it.each(completed)('the simulator\'s truth: %s', (_, c) => {
    const e = c.expected!;
    const tokenEpochMs = c.chunks.flatMap(([at, k]) => Array.from({ length: k }, () => at));
    const t = truthFigures({
      requestId: 'r', promptHead: '', promptTokens: c.inputTokens, arrivalEpochMs: c.startMs, tokenEpochMs,
      endEpochMs: c.endMs, outcome: 'completed',
    }, null);
    same(t.ttft, e.ttftMs, 'ttft');
    same(t.e2e, e.e2eMs, 'e2e');
    expect(t.itl).toEqual(e.itlMs);
    same(t.tpot, e.tpotMs, 'tpot');
    same(t.decodeSpeed, e.decodeTokensPerSecond, 'decode speed');
    same(t.prefillSpeed, e.prefillTokensPerSecond, 'prefill speed');
  });

  it.each(completed)('the virtual engine: %s', (_, c) => {
    const e = c.expected!;
    // The batcher's own gaps stand for the chunks': the engine takes ITL as its token events give it.
    const itlMs = interTokenLatenciesMs(c.chunks.map(([at]) => at), c.chunks.map(([, k]) => k));
    const r = doneReport(
      { ticket: 1, arrivalMs: c.startMs, firstMs: c.chunks[0]![0], itlMs },
      { endMs: c.endMs, generatedTokens: e.outputTokens, promptTokens: c.inputTokens },
      c.limits as UseCaseLimit[],
    );
    same(r.ttftMs, e.ttftMs, 'ttft');
    same(r.e2eMs, e.e2eMs, 'e2e');
    same(r.tpotMs, e.tpotMs, 'tpot');
    same(r.decodeTokensPerSecond, e.decodeTokensPerSecond, 'decode speed');
    same(r.prefillTokensPerSecond, e.prefillTokensPerSecond, 'prefill speed');
    expect(r.goodput, 'goodput').toBe(e.goodput);
  });
});
