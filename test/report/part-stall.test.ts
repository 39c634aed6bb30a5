// A part the machine stalled in (run.json stallsMs, asked of the agents by the bench after the part): the report marks
// the cell of a one-cell part (a searched step) client-bound by the stall and words it; a part of several cells is
// left to its requests' own stalls. On a synthetic run
// folder, through the report's own reader. Runs in Node (vitest).

import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withPartStall } from '../../analysis/client-bound';
import { DEFAULT_REPORT_OPTIONS } from '../../report/build-report';
import { generateReport } from '../../report/generate';
import { writeRunFixture } from './fixtures/make-run';

const OPTS = { ...DEFAULT_REPORT_OPTIONS, baseline: null, tolerance: 0.1, outDir: null };

describe('withPartStall', () => {
  const clean = { id: 'c', clientBound: null };
  const bound = { id: 'c', clientBound: { agentCpuShare: 0.95, reading: null, stall: null } };
  it('marks a cell of a part stalled 50 ms or more, keeping any cause it had, and no other', () => {
    expect(withPartStall(clean, undefined)).toBe(clean);
    expect(withPartStall(clean, 49.9)).toBe(clean);
    expect(withPartStall(clean, 6000).clientBound).toEqual({
      agentCpuShare: null, reading: null, stall: { share: null, longestMs: 6000 },
    });
    expect(withPartStall(bound, 80).clientBound).toEqual({
      agentCpuShare: 0.95, reading: null, stall: { share: null, longestMs: 80 },
    });
    // The cell's own requests already said so: their figure stands.
    const own = { id: 'c', clientBound: { agentCpuShare: null, reading: null, stall: { share: 0.5, longestMs: 70 } } };
    expect(withPartStall(own, 6000)).toBe(own);
  });
});

describe('a report on a run whose parts stalled', () => {
  it("calls a one-cell part's cell client-bound by the stall, and leaves a part of several cells to its requests",
    async () => {
      const runDir = join(mkdtempSync(join(tmpdir(), 'part-stall-')), 'run');
      const schedule = { cellSeconds: 4, gapSeconds: 1 };
      writeRunFixture({
        dir: runDir,
        parts: {
          sweep: { sweep: { contexts: [1024], concurrencies: [1, 2], rounds: 2, outputTokens: 32 }, schedule },
          gate: { gate: { useCase: 'general_chatbot', concurrency: 2, rounds: 2, minSuccessRate: 0.9 }, schedule },
        },
      });
      const runJson = join(runDir, 'run.json');
      const stallsMs = { sweep: 6047, gate: 80 };
      writeFileSync(runJson, JSON.stringify({ ...JSON.parse(readFileSync(runJson, 'utf8')), stallsMs }));
      const { report } = await generateReport(runDir, OPTS);
      // Which of the sweep's two cells the stall fell in is not known: its requests' own stalls (none) judge.
      expect(report.cells.filter((c) => c.script === 'sweep').map((c) => c.clientBound)).toEqual([null, null]);
      const stalled = { agentCpuShare: null, reading: null, stall: { share: null, longestMs: 80 } };
      expect(report.cells.filter((c) => c.script === 'gate').map((c) => c.clientBound)).toEqual([stalled]);
      expect(readFileSync(join(runDir, 'report.md'), 'utf8')).toContain(
        'the machine stopped running the measuring agent for up to 80 ms during its part (a paused or starved VM, a ' +
        'stopped process), so their times hold the pause',
      );
    });
});
