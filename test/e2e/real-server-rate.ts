// A short rate search (plan rate.search) folded into a real server's bench run, and what the tests check of it: a
// searched capacity in requests per second stated, every step's schedule served, and each step's verdict against the
// server's own e2e where the report could read it over the step's requests. Shared by the llama.cpp, vLLM and SGLang
// end-to-end tests. Runs in Node (vitest).

import path from 'node:path';
import { expect } from 'vitest';
import { readJson } from './helpers';

/**
 * The rate part of a real server's bench run: steps of 3 s from `startRate`, at most four times it, ended once the
 * first failing rate is within 50% of the last pass (three or four steps, about 7 s each with k6's start). No warm-up:
 * the server's own e2e histogram is then read over exactly a step's requests, as the client measured them.
 */
export function shortRateSearch(useCaseId: string, startRate: number) {
  const start = Math.max(0.1, Math.round(startRate * 10) / 10);
  return {
    useCases: [useCaseId], durationSeconds: 3, warmupSeconds: 0,
    search: { startRate: start, maxRate: Math.round(start * 40) / 10, resolutionPercent: 50 },
  };
}

interface ReportRateCell {
  id: string; useCase: string | null; requests: number; succeeded: number; clientBound: unknown;
  openLoop: { offeredRate: number; scheduled: number; ended: number } | null;
  server: { serverE2eMs: number | null; leftOut: unknown } | null;
}

interface ReportRate {
  useCase: { id: string };
  result: { display: string; steps: { cellId: string; ok: boolean }[] };
}

/** Within this of the limit, the server's mean e2e and the client's from the intended send may fall either side. */
const CLOCKS_MS = 1;

/**
 * The rate search of `useCaseId` in the run at `runDir`: the bench stated its outcome and the report the same; every
 * step sent and ended its whole schedule, each request succeeding; each clean step whose server e2e the report read
 * was judged as that figure says (a server mean at or over the e2e limit fails: the client's from the intended send
 * is longer still; a passing step's server mean is under it). Returns a line per step and the outcome.
 */
export function expectRateSearch(runDir: string, stderr: string, useCaseId: string, limitMs: number): string[] {
  const line = new RegExp(`rate search: ${useCaseId}: (.*)$`, 'm').exec(stderr)?.[1];
  expect(line, stderr.slice(-2000)).toBeDefined();
  const report = readJson<{ cells: ReportRateCell[]; rates: ReportRate[] }>(path.join(runDir, 'report.json'));
  const rate = report.rates.find((r) => r.useCase.id === useCaseId)!;
  expect(rate, 'the report states the searched rate capacity').toBeDefined();
  expect(line).toMatch(/req\/s|undetermined|below the first rate/);
  const steps = report.cells.filter((c) => c.useCase === useCaseId && c.openLoop !== null);
  expect(steps.length, line).toBeGreaterThanOrEqual(2);
  const lines = steps.map((c) => {
    const o = c.openLoop!;
    expect([o.ended, c.succeeded], c.id).toEqual([o.scheduled, c.requests]);
    const verdict = rate.result.steps.find((s) => s.cellId === c.id);
    const server = c.server?.serverE2eMs ?? null;
    const said = `${c.id}: ${o.scheduled} requests at ${o.offeredRate} req/s, ` +
      `${verdict ? (verdict.ok ? 'within limits' : 'broke a limit') : 'left out'}, server e2e ` +
      (server === null ? `not read (${JSON.stringify(c.server?.leftOut ?? 'no figure')})` : `${server.toFixed(0)} ms`);
    if (verdict && server !== null && c.clientBound === null) {
      if (server >= limitMs + CLOCKS_MS) expect(verdict.ok, said).toBe(false);
      if (verdict.ok) expect(server, said).toBeLessThan(limitMs + CLOCKS_MS);
    }
    return said;
  });
  return [...lines, `rate search: ${line!} (report: ${rate.result.display})`];
}
