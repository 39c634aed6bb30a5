// The report opens with the answer: the capacity per use case, then its warnings one line each, ranked, each linking
// to its details further down; run notes last. Runs in Node (vitest).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Block } from '../../report/document';
import { analyzeRun, renderReport } from '../../report/generate';
import { DEFAULT_REPORT_OPTIONS } from '../../report/build-report';
import type { Report } from '../../report/report-types';
import { buildDocument } from '../../report/sections';
import { WARNING_RANK } from '../../report/warnings';
import { smallRunParts, writeRunFixture } from './fixtures/make-run';

let tmp: string;
let report: Report;

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), 'report-answer-'));
  const dir = join(tmp, 'run');
  writeRunFixture({ dir, parts: smallRunParts(), failEvery: 37, jitter: 0.05, clientBound: ['sweep_c1k_o32_n4'] });
  report = await analyzeRun(dir, DEFAULT_REPORT_OPTIONS);
});

afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const headings = (blocks: readonly Block[]): string[] =>
  blocks.flatMap((b) => (b.kind === 'h' && b.level === 2 ? [b.text] : []));

/** Where the first block that carries a warning sign sits in the document. */
const firstWarning = (blocks: readonly Block[]): number => blocks.findIndex((b) =>
  (b.kind === 'note' && b.text.includes('⚠')) || (b.kind === 'list' && b.items.some((i) => i.includes('⚠'))));

describe('the opening of the report', () => {
  it('has warnings of several kinds to rank (the fixture is built so)', () => {
    expect(report.warnings.map((w) => w.kind)).toEqual(['lower-bound', 'client-bound', 'failed-requests']);
  });

  it('shows the capacity table before any warning', () => {
    const blocks = buildDocument(report, new Set());
    const answer = blocks.findIndex((b) => b.kind === 'table');
    expect(headings(blocks).slice(0, 3)).toEqual(['Capacity per Use Case', 'Warnings', 'Highlights']);
    expect((blocks[answer] as Extract<Block, { kind: 'table' }>).head).toContain('CONCURRENT USERS');
    expect(firstWarning(blocks)).toBeGreaterThan(answer);
    const md = renderReport(report).markdown;
    expect(md.indexOf('⚠')).toBeGreaterThan(md.indexOf('| USE CASE | CONTEXT | CONCURRENT USERS |'));
  });

  it('gives each use case its users, requests per second and the limit that set it', () => {
    const table = buildDocument(report, new Set()).find((b) => b.kind === 'table') as Extract<Block, { kind: 'table' }>;
    const chat = table.rows.find((r) => r[0] === 'General Chatbot')!;
    const capacity = report.useCases.find((u) => u.useCase.id === 'general_chatbot')!;
    expect(chat[2]).toMatch(new RegExp(`^${capacity.result.displayShort}\\b`));
    expect(chat[3]).toMatch(/^\d+\.\d\d req\/s at capacity$/);
    // Little's law at the capacity's step: its users over their mean e2e (an exact step, no interpolation).
    const step = report.cells.find((c) =>
      capacity.cellIds.includes(c.id) && c.concurrency === capacity.result.estimate);
    expect(capacity.result.kind).toBe('within');
    const perSecond = (step!.concurrency * 1000) / step!.metrics.e2e!.mean;
    expect(chat[3]).toBe(`${perSecond.toFixed(2)} req/s at capacity`);
    expect(chat[4]).toBe(capacity.result.brokenBy!.label);
    expect(table.rows.find((r) => r[0] === 'Code Completion')![4]).toBe('none up to 16 (a lower bound)');
  });

  it('lists one line per warning in the order of their rank, each linking to a heading below', () => {
    const { markdown, html } = renderReport(report);
    const opening = markdown.slice(markdown.indexOf('## Warnings'), markdown.indexOf('## Highlights'));
    const lines = opening.split('\n').filter((l) => l.startsWith('- ⚠'));
    expect(lines).toHaveLength(report.warnings.length);
    const ranks = report.warnings.map((w) => WARNING_RANK.indexOf(w.kind));
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    const blocks = buildDocument(report, new Set());
    const ids = new Set(blocks.flatMap((b) => (b.kind === 'h' ? [b.id] : [])));
    for (const line of lines) {
      const anchor = /\[Details\]\(#([a-z0-9-]+)\)$/.exec(line)![1]!;
      expect(ids.has(anchor), anchor).toBe(true);
      expect(html).toContain(`<a href="#${anchor}">Details</a>`);
      expect(html).toContain(`id="${anchor}"`);
    }
  });

  it('keeps the details after the reference sections and the run notes last', () => {
    const runNotes = ['sweep/samples.csv has samples for 1 cell not in its plan.json (x); they are left out.'];
    const blocks = buildDocument({ ...report, runNotes }, new Set());
    const h2 = headings(blocks);
    expect(h2.slice(-3)).toEqual(['Methodology', 'Warnings in Detail', 'Run Notes']);
  });

  it('opens a run without use cases with its highlights, still before the warnings', () => {
    const bare: Report = { ...report, useCases: [], activeUsers: [], rates: [] };
    const blocks = buildDocument(bare, new Set());
    expect(headings(blocks).slice(0, 2)).toEqual(['Highlights', 'Warnings']);
    expect(firstWarning(blocks)).toBeGreaterThan(blocks.findIndex((b) => b.kind === 'kpis'));
  });
});
