// A predicted report's account of itself: what made the prediction, and each capacity's prediction interval or why
// there is none. Runs in Node.

import { DocBuilder, lit, type Block } from '../document';
import type { Report } from '../report-types';

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
  doc.p(p.intervalNote);
  const rows = (p.intervals ?? []).map((i) => {
    const capacity = report.useCases.find((u) => u.useCase.id === i.useCase)?.result.display ?? '';
    return [i.useCase, capacity, `${fmtUsers(i.low)}-${fmtUsers(i.high)}`, String(i.resamples)];
  });
  doc.table(['USE CASE', 'PREDICTED CAPACITY', 'PREDICTION INTERVAL (5TH-95TH PCT)', 'RESAMPLED PROFILES'], rows);
  return doc.blocks;
}

function fmtUsers(n: number): string {
  return Number.isInteger(n) ? String(n) : n.toFixed(1);
}
