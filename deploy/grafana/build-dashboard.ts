// Writes the files generated from the metric table. Runs in Node: `npm run dashboard`.
// The files are deploy/grafana/k6-llm-capacity.json and deploy/prometheus/recording-rules.yml, from
// lib/metrics.ts and thresholds/use-cases.ts.
// `npm run dashboard -- --check` only compares and exits 3 when a committed file is stale.

import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { EXIT } from '../../lib/exit-codes';
import { renderRecordingRules } from '../prometheus/recording-rules';
import { renderDashboardJson } from './dashboard';

/** The generated files, by path from the repository root, with their content. */
function generatedFiles(): { path: string; content: string }[] {
  return [
    { path: 'deploy/grafana/k6-llm-capacity.json', content: renderDashboardJson() },
    { path: 'deploy/prometheus/recording-rules.yml', content: renderRecordingRules() },
  ];
}

function repoPath(relative: string): string {
  return fileURLToPath(new URL(`../../${relative}`, import.meta.url));
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

function main(argv: readonly string[]): number {
  const unknown = argv.filter((a) => a !== '--check');
  if (unknown.length > 0) {
    process.stderr.write(`build-dashboard: unknown argument ${unknown[0]}; usage: npm run dashboard [-- --check]\n`);
    return EXIT.usage;
  }
  const check = argv.includes('--check');
  let stale = 0;
  for (const file of generatedFiles()) {
    const path = repoPath(file.path);
    const same = readOrEmpty(path) === file.content;
    if (check) {
      if (!same) {
        stale += 1;
        process.stderr.write(`${file.path} is stale: run npm run dashboard and commit the result\n`);
      }
    } else {
      if (!same) writeFileSync(path, file.content);
      process.stderr.write(`${same ? 'unchanged' : 'wrote'} ${file.path}\n`);
    }
  }
  return stale > 0 ? EXIT.badInput : EXIT.ok;
}

process.exitCode = main(process.argv.slice(2));
