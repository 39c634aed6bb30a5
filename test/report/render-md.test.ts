// Tests report/render-md.ts and report/format.ts: Markdown blocks and the reference number formats.
// Runs in Node (vitest).
import { describe, expect, it } from 'vitest';
import { renderMarkdown } from '../../report/render-md';
import { DocBuilder } from '../../report/document';
import { fmtCount, fmtMillions, fmtMs, fmtPct, fmtTokS, fmtTokens, fmtUsd } from '../../report/format';

describe('number formats of the reference reports', () => {
  it('writes tok/s, ms/s, percentages, millions and contexts like the references', () => {
    expect(fmtTokS(599.63)).toBe('599.6 tok/s');
    expect(fmtMs(76.4)).toBe('76ms');
    expect(fmtMs(47_600)).toBe('47.6s');
    expect(fmtPct(1)).toBe('100.0%');
    expect(fmtMillions(2_158_560)).toBe('2.2 million');
    expect(fmtMillions(550_800)).toBe('550,800');
    expect(fmtCount(5400)).toBe('5.4K');
    expect(fmtTokens(1024)).toBe('1K');
    expect(fmtTokens(98_304)).toBe('96K');
    expect(fmtTokens(262_144)).toBe('256K');
    expect(fmtUsd(0.061)).toBe('$0.06');
    expect(fmtTokS(null)).toBe('n/a');
  });
});

describe('renderMarkdown', () => {
  it('renders headings, paragraphs, notes, lists, KPIs, tables and chart references', () => {
    const d = new DocBuilder()
      .h(1, 'Benchmark Report: M')
      .kpis([{ value: '599.6', label: 'Tok/s Peak Throughput' }])
      .p('At peak, **2.2 million** tokens per hour.')
      .note('⚠ client-bound')
      .list(['a', 'b'])
      .table(['USE CASE', 'ANALYSIS'], [['Chat | 32K', 'Supports ~15']], 'caption')
      .chart('ttft', new Set(['ttft']))
      .chart('missing', new Set(['ttft']))
      .p(null);
    const ttftChart = { id: 'ttft', title: 'Time to First Token', caption: 'Average TTFT.', option: {} };
    const md = renderMarkdown(d.blocks, [ttftChart]);
    expect(md).toBe(
      [
        '# Benchmark Report: M',
        '| **599.6** |\n|:---:|\n| Tok/s Peak Throughput |',
        'At peak, **2.2 million** tokens per hour.',
        '> ⚠ client-bound',
        '- a\n- b',
        '*caption*\n\n| USE CASE | ANALYSIS |\n|---|---|\n| Chat \\| 32K | Supports ~15 |',
        '![Time to First Token](charts/ttft.svg)\n\n*Average TTFT.*',
      ].join('\n\n') + '\n',
    );
  });
});
