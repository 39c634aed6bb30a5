// The report's opening: its title and what was measured, the highlight figures and the key findings. Runs in Node.

import { DocBuilder, lit, type Block } from '../document';
import { plural } from '../format';
import { gridCells } from '../build-findings';
import type { Report } from '../report-types';
import { engineLabel, sentences } from '../phrases';

/** The title, and what was measured where and with what. */
export function titleSection(report: Report): Block[] {
  const doc = new DocBuilder();
  const run = report.run;
  doc.h(1, lit(report.title));
  const endpoint = report.parts[0] ? lit(report.parts[0].target.baseUrl) : 'an unknown endpoint';
  const profile = run?.target.simProfile ? `, profile ${lit(run.target.simProfile)}` : '';
  const simulated = run?.target.simulated ? ` (simulated server${profile})` : '';
  const engine = run ? engineLabel(run, 'the local runner') : 'an unrecorded engine (no run.json)';
  const runId = run ? `, run ${lit(run.runId)} started ${lit(run.startedAt)}` : '';
  const parts = report.parts.map((part) => `${part.name} (${plural(part.cellsWithData, 'cell')})`).join(', ');
  const measuredWith = `measured with ${engine}${runId}`;
  const measured = report.predicted
    ? `**Predicted** performance of **${lit(report.model)}** (simulator profile ${lit(report.predicted.profile)}, ` +
      `virtual time, no server measured)${runId}`
    : `Performance analysis of **${lit(report.model)}** at ${endpoint}${simulated}, ${measuredWith}`;
  doc.p(`${measured}. Parts: ${parts}.`);
  return doc.blocks;
}

/** The figures shown as large numbers at the top. */
export function highlightsSection(report: Report): Block[] {
  if (report.highlights.length === 0) return [];
  const doc = new DocBuilder();
  doc.h(2, 'Highlights');
  doc.kpis(report.highlights.map((highlight) => ({ value: highlight.value, label: highlight.label })));
  return doc.blocks;
}

/** The findings table, and what "concurrent requests" means throughout. */
export function keyFindingsSection(report: Report): Block[] {
  const doc = new DocBuilder();
  doc.h(2, 'Key Findings');
  doc.table(['FINDING', 'VALUE'], report.keyFindings.map((finding) => [finding.label, finding.value]));
  if (report.keyFindings.length === 0) doc.p('No findings: the run holds no request samples.');
  if (gridCells(report).length === 0) return doc.blocks;
  doc.p(sentences(
    'Throughout this report, "**concurrent requests**" refers to simultaneous active requests.',
    'For applications with natural user pauses (chat interfaces, coding assistants), ' +
      'each request slot typically serves several active users.',
  ));
  return doc.blocks;
}
