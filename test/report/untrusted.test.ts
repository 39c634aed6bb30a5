// Server error messages in the report, and untrusted strings escaped in HTML, Markdown and CSV. Runs in Node (vitest).
// The messages are per cell and kind; the untrusted strings are model names, URLs and messages.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeRun, renderReport, type RenderedReport } from '../../report/generate';
import { DEFAULT_REPORT_OPTIONS } from '../../report/build-report';
import type { Report } from '../../report/report-types';
import { lit, renderText } from '../../report/document';
import { mdLiteral } from '../../report/format';
import { parseErrorMessage } from '../../report/k6-csv';
import { writeRunFixture } from './fixtures/make-run';

const EVIL = '<script>alert(1)</script> | x';
const MODEL = `evil/${EVIL}`;
let tmp: string;
let report: Report;
let out: RenderedReport;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'report-untrusted-'));
  const dir = join(tmp, 'run');
  writeRunFixture({
    dir,
    model: MODEL,
    parts: {
      sweep: {
        name: 'untrusted', sweep: { contexts: [1024], concurrencies: [1, 4], rounds: 3, outputTokens: 16 },
        schedule: { cellSeconds: 5, gapSeconds: 1 },
      },
    },
    failEvery: 3,
    // Three kinds of message per kind, one more frequent; the metadata value holds "&", "=", "," and a quote.
    errorMessage: (kind, n) =>
      kind === 'timeout'
        ? 'read timeout'
        : n % 4 === 0
          ? `CUDA out of memory, "tried" a=b & c ${EVIL}`
          : 'Internal Server Error',
  });
  report = await analyzeRun(dir, DEFAULT_REPORT_OPTIONS);
  out = renderReport(report);
});

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('error messages per cell and kind', () => {
  it("reads error_message from k6's metadata column, whose values are not escaped", () => {
    expect(parseErrorMessage('error_message=a & b=c')).toBe('a & b=c');
    expect(parseErrorMessage('trace_id=1&error_message=x')).toBe('x');
    expect(parseErrorMessage('')).toBeNull();
    expect(parseErrorMessage('other=1')).toBeNull();
  });

  it('counts the messages of each cell and error kind, most frequent first, at most 3', () => {
    const failing = report.cells.filter((c) => Object.keys(c.errorMessages).length > 0);
    expect(failing.length).toBeGreaterThan(0);
    let total = 0;
    for (const c of failing) {
      for (const [kind, list] of Object.entries(c.errorMessages)) {
        expect(list.length).toBeLessThanOrEqual(3);
        for (let i = 1; i < list.length; i++) expect(list[i - 1]!.count).toBeGreaterThanOrEqual(list[i]!.count);
        expect(list.reduce((n, m) => n + m.count, 0)).toBe(c.errorsByKind[kind]);
        total += list.reduce((n, m) => n + m.count, 0);
      }
    }
    expect(total).toBe(Object.values(report.totals.errorsByKind).reduce((a, b) => a + b, 0));
    const messages = failing.flatMap((c) => Object.values(c.errorMessages).flat().map((m) => m.message));
    expect(messages).toContain(`CUDA out of memory, "tried" a=b & c ${EVIL}`);
    expect(messages).toContain('read timeout');
  });

  it('writes them to cells.csv as JSON per kind', () => {
    const rows = Papa.parse<Record<string, string>>(out.cellsCsv.trim(), { header: true }).data;
    const withMessages = rows.filter((r) => r.error_messages !== '');
    expect(withMessages.length).toBeGreaterThan(0);
    for (const r of withMessages) {
      const parsed = JSON.parse(r.error_messages!) as Record<string, { message: string; count: number }[]>;
      expect(parsed).toEqual(report.cells.find((c) => c.id === r.cell)!.errorMessages);
    }
  });
});

describe('untrusted strings', () => {
  it('never reach report.html as markup', () => {
    expect(out.html).not.toContain('<script>alert(1)');
    expect(out.html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; | x');
    // The model name stays bold (the suite's own markup around a literal still works).
    expect(out.html).toContain('<strong>evil/&lt;script&gt;');
  });

  it('never break a Markdown table or inject HTML into report.md', () => {
    expect(out.markdown).not.toContain('<script>');
    expect(out.markdown).toContain('**evil/&lt;script&gt;alert(1)&lt;/script&gt; | x**');
    const lines = out.markdown.split('\n');
    const head = lines.findIndex((l) => l.startsWith('| CELL | ERROR KIND | COUNT | SERVER MESSAGE |'));
    expect(head).toBeGreaterThan(0);
    let rows = 0;
    for (let i = head + 2; i < lines.length && lines[i]!.startsWith('|'); i++) {
      // 4 columns: 5 unescaped pipes.
      expect(lines[i]!.match(/(?<!\\)\|/g)).toHaveLength(5);
      rows++;
    }
    expect(rows).toBeGreaterThan(0);
    expect(out.markdown)
      .toContain('CUDA out of memory, "tried" a=b &amp; c &lt;script&gt;alert(1)&lt;/script&gt; \\| x');
  });

  it('escapes literals per format and keeps markup around them', () => {
    const text = `a **${lit('x*y_`z`')}** ${lit('line\nbreak')}`;
    expect(renderText(text, (s) => s, mdLiteral)).toBe('a **x\\*y\\_\\`z\\`** line break');
    expect(renderText('plain **b**', (s) => s.toUpperCase(), mdLiteral)).toBe('PLAIN **B**');
    // A literal cannot smuggle the markers out.
    expect(renderText(lit('\uE001<b>'), (s) => s, (s) => `[${s}]`)).toBe('[<b>]');
  });
});
