// Renders the report document as Markdown (charts referenced as charts/<id>.svg); returns a string. Runs in Node.

import { renderText, type Block } from './document';
import type { ChartSpec } from './charts';
import { mdCell, mdLiteral } from './format';

/** Document text as Markdown: literal (untrusted) parts escaped, the suite's own markup kept. */
function md(text: string): string {
  return renderText(text, (s) => s, mdLiteral);
}

/** Document text as one Markdown table cell. */
function cell(text: string): string {
  return mdCell(md(text));
}

export function renderMarkdown(blocks: readonly Block[], charts: readonly ChartSpec[]): string {
  const byId = new Map(charts.map((c) => [c.id, c]));
  const out: string[] = [];
  for (const b of blocks) {
    switch (b.kind) {
      case 'h':
        out.push(`${'#'.repeat(b.level)} ${md(b.text).replace(/\r\n|[\r\n]/g, ' ')}`);
        break;
      case 'p':
        out.push(md(b.text));
        break;
      case 'note':
        out.push(`> ${md(b.text).replace(/\r\n|[\r\n]/g, ' ')}`);
        break;
      case 'list':
        out.push(b.items.map((i) => `- ${md(i).replace(/\r\n|[\r\n]/g, ' ')}`).join('\n'));
        break;
      case 'kpis':
        out.push(
          `| ${b.items.map((i) => `**${cell(i.value)}**`).join(' | ')} ` +
          `|\n|${b.items.map(() => ':---:').join('|')}|\n| ${b.items.map((i) => cell(i.label)).join(' | ')} |`,
        );
        break;
      case 'table': {
        const lines = [
          `| ${b.head.map(cell).join(' | ')} |`, `|${b.head.map(() => '---').join('|')}|`,
          ...b.rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
        ];
        if (b.caption) lines.unshift(`*${md(b.caption).replace(/\r\n|[\r\n]/g, ' ')}*`, '');
        out.push(lines.join('\n'));
        break;
      }
      case 'chart': {
        const c = byId.get(b.id);
        if (c) out.push(`![${c.title}](charts/${c.id}.svg)\n\n*${c.caption}*`);
        break;
      }
      case 'toc':
        // A Markdown viewer draws its own outline from the headings.
        break;
    }
  }
  return `${out.join('\n\n')}\n`;
}
