// The fit's record as text for the terminal: each parameter with its spread, and the fit's error. Runs in Node, pure.

import type { FittedProfileFile } from './fitted-profile';
import { renderTextTable } from './text-table';

function fmt(x: number): string {
  if (x === 0) return '0';
  const a = Math.abs(x);
  return a >= 1e5 || a < 1e-2 ? x.toExponential(3) : String(Number(x.toPrecision(4)));
}

export function renderFitSummary(file: FittedProfileFile): string {
  const { fit } = file;
  const rows = fit.parameters.map((p) => [
    p.name, fmt(p.value), p.low === p.high ? '' : `${fmt(p.low)} .. ${fmt(p.high)}`, p.pinned ? 'yes' : 'NO', p.note,
  ]);
  const worst = [...fit.residuals].sort((a, b) => Math.abs(b.errorPct) - Math.abs(a.errorPct)).slice(0, 3);
  return [
    `${file.name}: fitted to ${fit.cells} cells, ${fit.requests} requests of ${fit.run}`,
    '',
    renderTextTable(['parameter', 'value', '5%..95% of refits', 'pinned', 'note'], rows),
    '',
    `predicted against measured, median TTFT and time per output token of each cell: median error ` +
      `${fit.medianErrorPct}%, largest ${fit.maxErrorPct}%` +
      (worst.length > 0 ? ` (${worst.map((w) => `${w.cell} ${w.metric} ${w.errorPct}%`).join(', ')})` : ''),
    architectureLine(fit),
    `unpinned: ${fit.parameters.filter((p) => !p.pinned).map((p) => p.name).join(', ') || 'none'}`,
  ].join('\n');
}

function architectureLine(fit: FittedProfileFile['fit']): string {
  const a = fit.architecture;
  if (!a) return 'architecture: not recorded';
  if (a.how === 'stated') return `architecture: ${a.label} (stated)`;
  const others = a.candidates.map((c) => `${c.label} ${(c.rmsLogError * 100).toFixed(1)}%`).join(', ');
  return `architecture: ${a.label}, chosen by the fit as the one that misses the run least (rms error: ${others}); ` +
    'state it with --base, --experts/--top-k or --dense';
}
