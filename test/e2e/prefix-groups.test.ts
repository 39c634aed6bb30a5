// Prefix groups (plan prompts.prefixGroups) on a stock k6 against the simulator's prefix cache: every request of a rate
// cell is its group's shared prefix then a suffix of its own, of exactly the cell's length; the simulator's ground
// truth says each request found its group's prefix cached once the group's first request had been prefilled, and the
// report states TTFT with a cache hit below TTFT without. Runs in Node (vitest).
// The simulator runs its default profile (A: vLLM's 16-token block cache on real token ids) in its own process on the
// first core, k6 and the agent on the last (coreSplit), as the timing tests run them.

import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBundles } from '../../orchestrator/bundles';
import { startAgent, type AgentProcess } from '../../orchestrator/agent-process';
import type { CellStats } from '../../analysis/cells';
import { generateReport } from '../../report/generate';
import { DEFAULT_REPORT_OPTIONS } from '../../report/build-report';
import { fetchGroundTruth, startSimChild, type SimChild } from '../../sim/child';
import type { GroundTruthRecord } from '../../sim/server';
import { preparePrompts } from '../../tokenizer/prepare-prompts';
import { coreSplit, runScript, tempDir } from './helpers';

const MODEL = 'Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8';
const CONTEXT = 4096;
const GROUPS = 3;
const PREFIX = 3000;
/** The simulator's (vLLM's) cache block: a shared prefix is served in whole blocks. */
const BLOCK = 16;
/** Constant arrivals 4 per second for 6 s: 24 requests, 250 ms apart, longer than any of their TTFTs here. */
const REQUESTS = 24;
const PLAN = {
  target: { metricsUrl: null },
  useCases: [
    {
      id: 'grouped', contextTokens: CONTEXT, outputTokens: 8,
      limits: [{ metric: 'ttft', operator: '<', value: 10_000 }],
    },
  ],
  // Every request in the figures, the groups' first (cache misses) included: no warm-up.
  rate: {
    useCases: ['grouped'], rates: [4], durationSeconds: 6, arrival: 'constant', seed: 1, lagLimitMs: 1000,
    warmupSeconds: 0,
  },
  prompts: { prefixGroups: { groups: GROUPS, prefixTokens: PREFIX } },
  schedule: {
    prefillTokensPerSecond: 20_000, decodeTokensPerSecond: 100, safetyFactor: 2, minCellSeconds: 1, gapSeconds: 0.5,
  },
};

let sim: SimChild | undefined;
let agent: AgentProcess | undefined;
/** The cell's requests in the order they arrived, which is the order they were sent (250 ms apart). */
let truth: GroundTruthRecord[];
let stats: CellStats;
let md: string;

beforeAll(async () => {
  await buildBundles();
  const cores = coreSplit();
  sim = await startSimChild(['--ground-truth'], cores.sim);
  agent = await startAgent({ prefix: cores.client });
  const dir = tempDir('prefix-groups-prompts');
  const prompts = path.join(dir, 'prompts.json');
  const set = await preparePrompts({
    model: MODEL, api: 'chat', contexts: [CONTEXT], tokenizer: 'qwen3', blockVocabulary: true,
  });
  writeFileSync(prompts, JSON.stringify(set));
  const env = { BASE_URL: `${sim.base}/v1`, MODEL, PROMPTS: prompts };
  const r = await runScript('rate', PLAN, env, { prefix: cores.client, agentUrl: agent.url });
  if (r.exitCode !== 0) throw new Error(`k6 exited ${r.exitCode}: ${r.stderr.slice(-800)}`);
  truth = (await fetchGroundTruth(sim.base)).sort((a, b) => a.arrivalEpochMs - b.arrivalEpochMs);
  const options = { ...DEFAULT_REPORT_OPTIONS, baseline: null, tolerance: 0.1, outDir: null };
  const { report } = await generateReport(r.dir, options);
  stats = report.cells.find((c) => c.id === 'rate_grouped_r4')!;
  md = readFileSync(path.join(r.dir, 'report.md'), 'utf8');
}, 120_000);

afterAll(async () => {
  await agent?.stop();
  await sim?.stop();
});

describe('prefix groups against the simulator\'s prefix cache', () => {
  it('sends every request of the schedule at exactly the cell\'s length', () => {
    expect(truth).toHaveLength(REQUESTS);
    expect(truth.every((t) => t.outcome === 'completed')).toBe(true);
    expect(truth.map((t) => t.promptTokens)).toEqual(Array<number>(REQUESTS).fill(CONTEXT));
  });

  it('finds the group\'s whole-block prefix cached for every request after the group\'s first was prefilled', () => {
    const cachedAtLeast = BLOCK * Math.floor(PREFIX / BLOCK);
    let after = 0;
    for (const [i, t] of truth.entries()) {
      const first = truth[i % GROUPS]!;
      if (i < GROUPS) {
        // A group's first request shares no block with the others: the group's words start in the first block.
        expect(t.cachedTokens, `request ${i}`).toBe(0);
        continue;
      }
      if (t.arrivalEpochMs <= first.tokenEpochMs[0]!) continue;
      after++;
      expect(t.cachedTokens, `request ${i}`).toBeGreaterThanOrEqual(cachedAtLeast);
      // The suffix is the request's own: nothing past the prefix's last whole block and the one it ends in.
      expect(t.cachedTokens, `request ${i}`).toBeLessThan(PREFIX + BLOCK);
    }
    expect(after).toBe(REQUESTS - GROUPS);
  });

  it('reports TTFT with a cache hit below TTFT without, and the hit share', () => {
    const hit = stats.metrics.ttftCacheHit!;
    const miss = stats.metrics.ttftCacheMiss!;
    expect([hit.count, miss.count]).toEqual([REQUESTS - GROUPS, GROUPS]);
    expect(stats.cacheHitShare).toBe((REQUESTS - GROUPS) / REQUESTS);
    // Profile A prefills 1,096 tokens of a hit against 4,096 of a miss: 82 ms against 125 ms here.
    expect(hit.p50, `hit p50 ${hit.p50.toFixed(1)} ms, miss p50 ${miss.p50.toFixed(1)} ms`).toBeLessThan(miss.p50);
    expect(md).toContain('### Prefix-Cache Hits and TTFT');
    expect(md).toMatch(/\| rate_grouped_r4 \| 4K \| 87\.5% \| \d+ms \| \d+ms \| \d+ms \| \d+ms \|/);
  });
});
