// Renders the report document as one self-contained HTML page, returned as a string. Runs in Node.
// Inline CSS, inline echarts and interactive charts: the page works offline.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { renderText, type Block } from './document';
import type { ChartSpec } from './charts';
import { CHART_HEIGHT } from './charts';
import { esc } from './format';

let echartsSource: string | null = null;

/** The echarts browser bundle, read once from node_modules, to inline in the page (no CDN). */
export function echartsBundle(): string {
  if (echartsSource === null) {
    const require = createRequire(import.meta.url);
    const path = require.resolve('echarts/dist/echarts.min.js');
    echartsSource = readFileSync(path, 'utf8');
  }
  return echartsSource;
}

/** Inline markup of the document's text: **bold**, `code` and links to the page's own anchors, after HTML escaping. */
function inline(text: string): string {
  return renderText(
    text,
    (s) =>
      esc(s)
        .replace(/\*\*(.+?)\*\*/g, '<strong>$1</strong>')
        .replace(/`([^`]+)`/g, '<code>$1</code>')
        .replace(/\[([^\]]+)\]\(#([a-z0-9-]+)\)/g, '<a href="#$2">$1</a>'),
    esc,
  );
}

const CSS = `
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;\
margin:0;background:#f6f7f9;color:#1f2937;line-height:1.5}
main{max-width:1000px;margin:0 auto;padding:24px 32px 64px;background:#fff}
h1{font-size:28px;margin:8px 0 4px}\
h2{font-size:22px;margin-top:40px;border-bottom:2px solid #e5e7eb;padding-bottom:4px}\
h3{font-size:17px;margin-top:28px}
table{border-collapse:collapse;width:100%;margin:12px 0;font-size:13.5px}\
th,td{border:1px solid #e5e7eb;padding:5px 8px;text-align:left;vertical-align:top}
th{background:#f3f4f6;font-weight:600;font-size:12px;letter-spacing:.03em}\
caption{caption-side:bottom;font-size:12.5px;color:#6b7280;text-align:left;padding-top:4px}
.note{background:#fff7ed;border-left:4px solid #ea580c;padding:8px 12px;margin:12px 0}
.kpis{display:flex;gap:16px;flex-wrap:wrap}\
.kpi{flex:1 1 200px;border:1px solid #e5e7eb;border-radius:8px;padding:12px 16px}
.kpi .v{font-size:30px;font-weight:700;color:#2563eb}.kpi .l{font-size:13px;color:#4b5563}
figure{margin:16px 0}.chart{width:100%;height:${CHART_HEIGHT}px}figcaption{font-size:12.5px;color:#6b7280}
nav.toc{font-size:14px;columns:2}nav.toc a{color:#2563eb;text-decoration:none}\
code{background:#f3f4f6;padding:1px 4px;border-radius:3px}
`;

export function renderHtml(blocks: readonly Block[], charts: readonly ChartSpec[], title: string): string {
  const byId = new Map(charts.map((c) => [c.id, c]));
  const used: ChartSpec[] = [];
  const body: string[] = [];
  const toc = blocks.filter((b): b is Extract<Block, { kind: 'h' }> => b.kind === 'h' && b.level === 2);
  for (const b of blocks) body.push(...renderBlock(b, toc, byId, used));
  const script = chartScript(used);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)}</title>
<style>${CSS}</style>
</head>
<body>
<main>
${body.join('\n')}
</main>
<script>${echartsBundle().replace(/<\/script/gi, '<\\/script')}</script>
<script>${script}</script>
</body>
</html>
`;
}

/** One block's HTML, one element per line; a chart block records its chart in `used` (unknown charts are left out). */
function renderBlock(
  b: Block, toc: readonly Extract<Block, { kind: 'h' }>[], byId: ReadonlyMap<string, ChartSpec>, used: ChartSpec[],
): string[] {
  const body: string[] = [];
  switch (b.kind) {
    case 'h':
      body.push(`<h${b.level} id="${esc(b.id)}">${inline(b.text)}</h${b.level}>`);
      break;
    case 'toc':
      if (toc.length > 0)
        body.push(
          `<nav class="toc"><strong>Contents</strong><ol>` +
            `${toc.map((h) => `<li><a href="#${esc(h.id)}">${inline(h.text)}</a></li>`).join('')}</ol></nav>`,
        );
      break;
    case 'p':
      body.push(`<p>${inline(b.text)}</p>`);
      break;
    case 'note':
      body.push(`<div class="note">${inline(b.text)}</div>`);
      break;
    case 'list':
      body.push(`<ul>${b.items.map((i) => `<li>${inline(i)}</li>`).join('')}</ul>`);
      break;
    case 'kpis':
      body.push(
        `<div class="kpis">${b.items
          .map((i) =>
            `<div class="kpi"><div class="v">${inline(i.value)}</div><div class="l">${inline(i.label)}</div></div>`)
          .join('')}</div>`,
      );
      break;
    case 'table':
      body.push(
        `<table>${b.caption ? `<caption>${inline(b.caption)}</caption>` : ''}` +
          `<thead><tr>${b.head.map((h) => `<th>${inline(h)}</th>`).join('')}</tr></thead>` +
          `<tbody>${b.rows.map((r) => `<tr>${r.map((c) => `<td>${inline(c)}</td>`).join('')}</tr>`).join('')}` +
          '</tbody></table>',
      );
      break;
    case 'chart': {
      const c = byId.get(b.id);
      if (!c) break;
      used.push(c);
      body.push(
        `<figure><div class="chart" id="chart-${esc(c.id)}" data-chart="${esc(c.id)}" role="img" ` +
        `aria-label="${esc(c.title)}"></div><figcaption>${inline(c.caption)}</figcaption></figure>`,
      );
      break;
    }
  }
  return body;
}

/** The inline script that draws every used chart with ECharts, its options embedded as JSON. */
function chartScript(used: readonly ChartSpec[]): string {
  const options: Record<string, unknown> = {};
  for (const c of used)
    options[c.id] = {
      // A chart of points with an x of their own (the frontier) asks for item tooltips; the rest share the axis.
      ...c.option, tooltip: { trigger: 'axis', ...(c.option.tooltip as object | undefined), confine: true },
      toolbox: { feature: { saveAsImage: { title: 'PNG' }, dataView: { readOnly: true, title: 'Data' } } },
    };
  // "</" inside a script would end it early: escape it in the embedded JSON.
  const json = JSON.stringify(options).replace(/<\//g, '<\\/');
  return (
    `(function(){var opts=${json};var charts=[];` +
    "document.querySelectorAll('[data-chart]').forEach(function(el){" +
    "var id=el.getAttribute('data-chart');var o=opts[id];if(!o)return;" +
    "var ch=echarts.init(el,null,{renderer:'svg'});o.animation=false;ch.setOption(o);charts.push(ch);});" +
    "window.__reportCharts=charts.length;" +
    "window.addEventListener('resize',function(){charts.forEach(function(c){c.resize();});});})();"
  );
}
