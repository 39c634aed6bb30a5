// The report as a neutral document (report/document.ts): its parts in reading order. Runs in Node.
//
// Every sentence is built from measured data; a section whose data is absent is left out or says
// plainly that it was not measured. Each part is a pure function of the report object that returns
// document blocks; the words that judge a figure come from report/judgement.ts. The sections and
// their wording follow the published capacity reports (docs/design/simulator-model.md, "Calibration targets").

import type { Block } from './document';
import { DocBuilder } from './document';
import { gridCells } from './build-findings';
import type { Report } from './report-types';
import { cacheHitSection } from './sections/cache-hits';
import { capacityAnalysisSection } from './sections/capacity-analysis';
import { activeUsersSection } from './sections/active-users';
import { agenticSection } from './sections/agentic';
import { allCellsSection, latencyPercentilesSection } from './sections/cell-tables';
import { successAndErrorsSection } from './sections/errors';
import { clientIntegritySection } from './sections/client-integrity';
import { frontierSection } from './sections/frontier';
import { highlightsSection, keyFindingsSection, titleSection } from './sections/findings';
import { comparisonSection, deployGateSection, k6ThresholdsSection } from './sections/gates';
import { methodologySection } from './sections/methodology';
import { openLoopSection } from './sections/open-loop';
import { embeddingsSection } from './sections/embeddings';
import { traceSection } from './sections/trace';
import { serverClockSection } from './sections/server-clock';
import { itlSection, powerSection, prefillSpeedSection, scalingEfficiencySection } from './sections/technical';
import { fastestSection, perUserSpeedSection, systemThroughputSection } from './sections/throughput-speed';
import { prefixCacheSection, queueWaitSection, scaleUpSection, ttftSection } from './sections/ttft-queue';
import { useCaseGuidanceSection } from './sections/use-case-guidance';
import { predictionSection } from './sections/prediction';
import { answerSection, runNotesSection, warningDetailsSection, warningsSection } from './sections/answer';
import { markPredictedTables } from './predicted';

/**
 * Builds the full document of the report, one section after another in reading order: the answer (capacity per use
 * case), the warnings on it in one line each, then the figures, the reference sections, each warning's details and
 * the run notes. A predicted run's tables each say so in their caption (report/predicted.ts).
 */
export function buildDocument(report: Report, charts: ReadonlySet<string>): Block[] {
  // The answer first (a run without use cases answers with its highlight figures), then what changes it.
  const answer = answerSection(report);
  const highlights = highlightsSection(report);
  return markPredictedTables([
    ...titleSection(report),
    ...predictionSection(report),
    ...(answer.length > 0 ? answer : highlights),
    ...warningsSection(report),
    ...new DocBuilder().toc().blocks,
    ...(answer.length > 0 ? highlights : []),
    ...keyFindingsSection(report),
    ...useCaseGuidanceSection(report),
    ...performanceAnalysisSection(report, charts),
    ...capacityAnalysisSection(report, charts),
    ...activeUsersSection(report, charts),
    ...agenticSection(report, charts),
    ...openLoopSection(report, charts),
    ...traceSection(report, charts),
    ...embeddingsSection(report, charts),
    ...scaleUpSection(report, charts),
    ...fastestSection(report, charts),
    ...frontierSection(report, 'mix', charts),
    ...technicalAnalysisSection(report, charts),
    ...latencyPercentilesSection(report),
    ...successAndErrorsSection(report),
    ...clientIntegritySection(report),
    ...allCellsSection(report),
    ...serverClockSection(report),
    ...deployGateSection(report),
    ...k6ThresholdsSection(report),
    ...comparisonSection(report),
    ...methodologySection(report),
    ...warningDetailsSection(report),
    ...runNotesSection(report),
  ], report.predicted);
}

/** What users and the system get across the sweep grid: throughput, per-user speed, TTFT. */
function performanceAnalysisSection(report: Report, charts: ReadonlySet<string>): Block[] {
  const grid = gridCells(report);
  if (grid.length === 0) return [];
  return [
    ...new DocBuilder().h(2, 'Performance Analysis').blocks,
    ...systemThroughputSection(grid, charts),
    ...perUserSpeedSection(grid, charts),
    ...frontierSection(report, 'sweep', charts),
    ...ttftSection(report, grid, charts),
  ];
}

/**
 * What explains the user-facing figures: queue wait, prefix cache, prefill, ITL, scaling efficiency and power. A run
 * without grid cells (rate, burst, sessions alone) keeps the prefix-cache parts when its requests hit the cache.
 */
function technicalAnalysisSection(report: Report, charts: ReadonlySet<string>): Block[] {
  const grid = gridCells(report);
  const cacheHits = cacheHitSection(report);
  if (grid.length === 0 && cacheHits.length === 0) return [];
  const heading = new DocBuilder().h(2, 'Technical Analysis');
  if (grid.length === 0) {
    heading.p("Infrastructure-level metrics that explain user-facing performance: the server's prefix cache.");
    return [...heading.blocks, ...prefixCacheSection(report), ...cacheHits];
  }
  heading.p(
    'Infrastructure-level metrics that explain user-facing performance: ' +
      'queue wait, prefill throughput, token-level latency, scaling efficiency and power.',
  );
  return [
    ...heading.blocks,
    ...queueWaitSection(grid, charts),
    ...prefixCacheSection(report),
    ...cacheHits,
    ...prefillSpeedSection(grid, charts),
    ...itlSection(grid, charts),
    ...scalingEfficiencySection(grid, charts),
    ...powerSection(report, grid, charts),
  ];
}
