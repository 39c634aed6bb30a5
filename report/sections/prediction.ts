// A predicted report's account of itself: what made the prediction, and each capacity's prediction interval or why
// there is none. Runs in Node.

import { DocBuilder, lit, type Block } from '../document';
import type { Report } from '../report-types';
import { extrapolatedUseCases, reachPhrase } from '../predicted';
import { ladderDisplay } from '../capacity-words';

/** The prediction's source and interval, right after the title; nothing for a measured run. */
export function predictionSection(report: Report): Block[] {
  const p = report.predicted;
  if (!p) return [];
  const doc = new DocBuilder();
  doc.h(2, 'Prediction');
  const source = p.source === 'fitted'
    ? `a profile fitted to the measured run ${lit(p.fittedFrom ?? 'unknown')}`
    : p.source === 'built-in' ? 'a built-in simulator profile' : 'a simulator profile file';
  doc.p(
    `Every figure in this report is **predicted**, not measured: the plan's parts ran in the simulator's performance ` +
    `model (profile ${lit(p.profile)}, ${source}) in virtual time, ${p.virtualSeconds.toFixed(0)} s of it, with the ` +
    "bench's own steps and capacity search; no request reached a server.",
  );
  if (p.variant)
    doc.p(`This is the what-if variant **${lit(p.variant)}** of the base prediction ${lit(p.baseRun ?? '')}` +
      ' (the comparison below sets them side by side).');
  const out = extrapolatedUseCases(p);
  const checked = (p.reach ?? []).filter((r) => r.fitCheck !== null).map((r) => r.useCase);
  if (p.reach && p.reach.length > 0)
    doc.p(out.length === 0
      ? '**Inside the measured range:** every use case\'s prompt, users and answers lie within what the fit run ' +
        'measured.'
      : `**Extrapolated:** ${out.map(lit).join(', ')} ${out.length === 1 ? 'lies' : 'lie'} beyond what the fit ` +
        'run measured (see the table); the model carries them there, no measurement does.');
  if (checked.length > 0)
    doc.p(`**The fit missed where the limit lives** for ${checked.map(lit).join(', ')}: a capacity there rests on ` +
      'cells the fitted model did not match within 10%.');
  doc.p(p.intervalNote);
  const ids = [...new Set([...(p.intervals ?? []).map((i) => i.useCase), ...(p.reach ?? []).map((r) => r.useCase)])];
  const rows = ids.map((id) => {
    const i = p.intervals?.find((x) => x.useCase === id);
    const r = p.reach?.find((x) => x.useCase === id);
    const found = report.useCases.find((u) => u.useCase.id === id);
    const capacity = found ? ladderDisplay(found.result) : '';
    return [id, capacity, i ? `${fmtUsers(i.low)}-${fmtUsers(i.high)}` : 'none', i ? String(i.resamples) : '',
      r ? lit(reachPhrase(r)) : ''];
  });
  doc.table(['USE CASE', 'PREDICTED CAPACITY', 'PREDICTION INTERVAL (5TH-95TH PCT)', 'RESAMPLED PROFILES',
    'MEASURED RANGE AND FIT'], rows);
  return doc.blocks;
}

function fmtUsers(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}
