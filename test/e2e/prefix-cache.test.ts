// End to end: the report states the server's prefix-cache hit rate per cell. Runs in Node (vitest).
// The monitor reads it from the simulator's vLLM counters over real HTTP: 0 with the suite's unique prompts, above 0
// with PROMPT_MODE=shared-prefix.

import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJson, runBenchCli, tempDir } from './helpers';

interface ReportJson {
  cells: {
    id: string; requests: number; server: { prefixCacheHitRate: number | null } | null;
    metrics: { ttft: { mean: number } | null };
  }[];
}

async function run(mode: 'unique' | 'shared-prefix'): Promise<{ report: ReportJson; md: string }> {
  const dir = tempDir(`prefix-${mode}`);
  const plan = path.join(dir, 'plan.json');
  // Two rounds per user: with a shared prefix every request after the first finds its blocks cached.
  writeFileSync(
    plan,
    JSON.stringify({
      sweep: { contexts: [4096], concurrencies: [1, 2], rounds: 3, outputTokens: 8 }, prompts: { mode },
      monitor: { intervalSeconds: 0.25 },
    }),
  );
  const r = await runBenchCli(['--plan', plan, '--scripts', 'sweep', '--results', dir, '--run-id', 'p']);
  expect(r.exitCode, r.stderr).toBe(0);
  return {
    report: readJson<ReportJson>(path.join(dir, 'p', 'report.json')),
    md: readFileSync(path.join(dir, 'p', 'report.md'), 'utf8'),
  };
}

describe('the prefix-cache hit rate per cell', () => {
  it('is 0 with unique prompts, and the report says no prefill was skipped', async () => {
    const { report, md } = await run('unique');
    const rates = report.cells.map((c) => c.server?.prefixCacheHitRate ?? null);
    expect(rates.every((x) => x === 0), JSON.stringify(rates)).toBe(true);
    expect(md).toMatch(
      /### Prefix Cache\n\nThe server's prefix-cache hit rate .* was 0% in all 2 cells with server metrics/,
    );
  }, 120_000);

  it('is above 0 with shared prompts, and the report lists the cells whose TTFT it lowered', async () => {
    const { report, md } = await run('shared-prefix');
    for (const c of report.cells) expect(c.server?.prefixCacheHitRate ?? 0, c.id).toBeGreaterThan(0.3);
    expect(md).toMatch(/### Prefix Cache\n\nThe server's prefix-cache hit rate .* was above 0% in 2 cells of 2/);
    expect(md).toMatch(/\| sweep_c4k_o8_n1 \| 4K \| 1 \| \d+\.\d% \|/);
  }, 120_000);
});
