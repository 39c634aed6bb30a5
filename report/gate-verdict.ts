// The run's verdict for `npm run report -- --gate`: deploy gates and k6 thresholds, judged on all the samples.
// Runs in Node (pure).
//
// For a part split across k6 processes each runner's exit code saw only its share; the report's gate
// results and thresholds are judged on the merged samples (report/split-thresholds.ts), so this verdict
// is the run's. For one process it agrees with k6's exit code.

import type { Report } from './report-types';

/** One line per failure: a gate cell that was not measured or broke a limit, a k6 threshold that failed. */
export function gateFailures(report: Pick<Report, 'gates' | 'parts'>): string[] {
  const failures: string[] = [];
  for (const gate of report.gates) {
    if (!gate.measured) failures.push(`gate ${gate.cellId} (${gate.title}) has no samples`);
    else if (!gate.ok) {
      const broken = gate.checks.filter((check) => !check.ok).map((check) => `${check.label} (${check.expression})`);
      failures.push(`gate ${gate.cellId} (${gate.title}) broke ${broken.join(', ')}`);
    }
  }
  for (const part of report.parts) {
    for (const threshold of part.thresholds) {
      if (!threshold.ok) failures.push(`${part.name}: threshold ${threshold.metric} ${threshold.expression} failed`);
    }
  }
  return failures;
}
