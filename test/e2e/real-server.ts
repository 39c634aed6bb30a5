// What the real-server e2e tests (vLLM, SGLang) check alike: a bench sweep against the server. Runs in Node (vitest).

import { existsSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { METRICS } from '../../lib/metrics';
import { extraTags, readCsv, readJson, type CliRun } from './helpers';

/**
 * The sweep of 1K and 4K prompts at 1 and 2 users (6 requests) ran against the named server: exit 0, run.json names
 * the server, every prompt and output length is the planned one as the server's usage counted it, the report is there.
 */
export function expectExactSweep(bench: CliRun, runDir: string, serverName: string): void {
  expect(bench.exitCode, bench.stderr.slice(-3000)).toBe(0);
  const run = readJson<{
    target: { simulated: boolean; server: { name: string } }; promptsExact: boolean;
    requests: Record<string, { succeeded: number; failed: number }>;
  }>(path.join(runDir, 'run.json'));
  expect(run.target).toMatchObject({ simulated: false, server: { name: serverName } });
  expect(run.promptsExact).toBe(true);
  expect(run.requests.sweep).toMatchObject({ succeeded: 6, failed: 0 });
  const rows = readCsv(path.join(runDir, 'sweep', 'samples.csv')).rows;
  const tokenMetrics: string[] = [METRICS.inputTokens.name, METRICS.outputTokens.name];
  const counted = rows.filter((r) => tokenMetrics.includes(r.metric_name!));
  expect(counted.length).toBe(12);
  for (const row of counted) {
    const tags = extraTags(row);
    expect(tags.token_source).toBe('usage');
    const planned = row.metric_name === METRICS.inputTokens.name ? tags.context : tags.output;
    expect(Number(row.metric_value), `${tags.cell} ${row.metric_name}`).toBe(Number(planned));
  }
  for (const f of ['report.md', 'report.html', 'cells.csv']) expect(existsSync(path.join(runDir, f)), f).toBe(true);
}
