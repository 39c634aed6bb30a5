// Renders the report document as Markdown (charts referenced as charts/<id>.svg); returns a string. Runs in Node.

import type { Block } from './document';
import type { ChartSpec } from './charts';
import { mdCell } from './format';

export function renderMarkdown(blocks: readonly Block[], charts: readonly ChartSpec[]): string {
  const byId = new Map(charts.map((c) => [c.id, c]));
  const out: string[] = [];
  for (const b of blocks) {
    switch (b.kind) {
      case 'h':
        out.push(`${'#'.repeat(b.level)} ${b.text}`);
        break;
      case 'p':
        out.push(b.text);
        break;
      case 'note':
        out.push(`> ${b.text}`);
        break;
      case 'list':
        out.push(b.items.map((i) => `- ${i}`).join('\n'));
        break;
      case 'kpis':
        out.push(`| ${b.items.map((i) => `**${mdCell(i.value)}**`).join(' | ')} |\n|${b.items.map(() => ':---:').join('|')}|\n| ${b.items.map((i) => mdCell(i.label)).join(' | ')} |`);
        break;
      case 'table': {
        const lines = [`| ${b.head.map(mdCell).join(' | ')} |`, `|${b.head.map(() => '---').join('|')}|`, ...b.rows.map((r) => `| ${r.map(mdCell).join(' | ')} |`)];
        if (b.caption) lines.unshift(`*${b.caption}*`, '');
        out.push(lines.join('\n'));
        break;
      }
      case 'chart': {
        const c = byId.get(b.id);
        if (c) out.push(`![${c.title}](charts/${c.id}.svg)\n\n*${c.caption}*`);
        break;
      }
    }
  }
  return `${out.join('\n\n')}\n`;
}
