// End to end: the agentic script on a stock k6 with the measuring agent, against the simulator's performance model
// and prefix cache: tool-call conversations the simulator accepts, each call built from the one before (its cache
// serves what the ideal says it could), sub-agents and compaction, the tiers of the plan in the report and in
// capacity.csv, and a gate tier that fails the run. Runs in Node (vitest).

import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRICS } from '../../lib/metrics';
import { buildBundles } from '../../orchestrator/bundles';
import { generateReport } from '../../report/generate';
import { DEFAULT_REPORT_OPTIONS } from '../../report/build-report';
import { startSim } from '../../sim/server';
import { preparePrompts } from '../../tokenizer/prepare-prompts';
import { extraTags, readCsv, runScript, tempDir, type CsvRow } from './helpers';

const MODEL = 'Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8';
const BLOCK = 16;

/**
 * Steps of 1 and 3 agents, 9 s each: sessions of two turns (about 3 s), two tool-calling calls per turn, half of
 * them fanning out into two sub-agents, compaction past 800 tokens; a tier no step can meet (the gate) and one
 * every step meets.
 */
const PLAN = {
  monitor: { enabled: false },
  agentic: {
    agents: [1, 3], rampSeconds: 0, warmupSeconds: 1, holdSeconds: 8, seed: 7, gateTier: 'instant',
    model: {
      turns: 2, userTokens: 24, outputTokens: 24, toolLoopDepth: { min: 2, max: 2 },
      parallelToolCalls: { min: 1, max: 2 }, toolResultTokens: 96,
      toolLatency: { distribution: 'constant', seconds: 0.05 }, thinkTime: { distribution: 'constant', seconds: 0.1 },
      subAgents: { probability: 0.5, count: { min: 2, max: 2 }, toolLoopDepth: { min: 1, max: 1 } },
      systemPromptTokens: 256, tools: 3, toolDescriptionTokens: 16,
      compaction: { atTokens: 800, summaryTokens: 32 },
    },
    tiers: [
      { id: 'instant', limits: [{ metric: 'ttft', stat: 'p(90)', operator: '<=', value: 1 }] },
      { id: 'relaxed', limits: [{ metric: 'decodeSpeed', stat: 'p(25)', operator: '>=', value: 1 }] },
    ],
  },
};

const values = (rows: readonly CsvRow[], name: string): number[] =>
  rows.filter((r) => r.metric_name === name && extraTags(r).cell !== undefined).map((r) => Number(r.metric_value));

describe('k6 run dist/agentic.js against the simulator', () => {
  let sim: Awaited<ReturnType<typeof startSim>>;
  let run: Awaited<ReturnType<typeof runScript>>;
  let rows: CsvRow[];
  beforeAll(async () => {
    await buildBundles();
    sim = await startSim({ port: 0, tokenizerWorkers: 1 });
    const prompts = path.join(tempDir('agentic-prompts'), 'prompts.json');
    writeFileSync(prompts, JSON.stringify(await preparePrompts({
      model: MODEL, api: 'chat', contexts: [], tokenizer: 'qwen3', blockVocabulary: true,
    })));
    run = await runScript('agentic', PLAN, { BASE_URL: sim.url, MODEL, PROMPTS: prompts });
    rows = readCsv(path.join(run.dir, 'samples.csv')).rows;
  }, 120_000);
  afterAll(async () => {
    await sim?.close();
  });

  it('fails the run on the gate tier, which no step meets, as a k6 threshold', () => {
    expect(run.exitCode, run.stderr).toBe(99);
  });

  it('sends tool calls the simulator accepts: main calls, sub-agents and compaction summaries all succeed', () => {
    const ok = rows.filter((r) => r.metric_name === METRICS.requestOk.name);
    expect(ok.length).toBeGreaterThan(20);
    expect(ok.every((r) => r.metric_value === '1.000000'), run.stderr).toBe(true);
    const kinds = new Set(ok.map((r) => extraTags(r).agent_call));
    expect([...kinds].sort()).toEqual(['compact', 'main', 'sub']);
  });

  it('builds each call from the one before: the cache serves all the ideal allows, less a block at most', () => {
    const ideal = values(rows, METRICS.idealCachedTokens.name);
    const cached = values(rows, METRICS.cachedTokens.name);
    expect(ideal.length).toBe(cached.length);
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    // Per call the simulator caches whole blocks of what was sent before, and never the answer's last token: below the
    // ideal by less than a block and a token. A history resent in other words would lose hundreds of tokens a call.
    expect(sum(cached)).toBeLessThanOrEqual(sum(ideal));
    expect(sum(ideal) - sum(cached)).toBeLessThanOrEqual((BLOCK + 1) * ideal.length);
    expect(sum(ideal) / sum(values(rows, METRICS.inputTokens.name))).toBeGreaterThan(0.6);
  });

  it('reports each tier in agents, its chart, and the per-agent figures', async () => {
    const { report } = await generateReport(run.dir, {
      ...DEFAULT_REPORT_OPTIONS, baseline: null, tolerance: 0.1, outDir: null,
    });
    const a = report.agentic!;
    expect(a.steps.map((s) => s.agents)).toEqual([1, 3]);
    expect(a.tiers.map((t) => [t.tier.id, t.kind, t.capacity])).toEqual([
      ['instant', 'below', null], ['relaxed', 'beyond', 3],
    ]);
    // Sessions of about 3 s end within the 8 s hold, at one agent whatever the machine's load.
    expect(a.steps[0]!.sessionTime!.count).toBeGreaterThan(0);
    for (const s of a.steps) {
      if (s.modelShare) expect([s.modelShare.min > 0, s.modelShare.max <= 1]).toEqual([true, true]);
      expect(s.stepTime!.p50).toBeGreaterThan(0);
      expect(s.serverHitRate!).toBeLessThanOrEqual(s.idealHitRate!);
      expect(s.ttftByTurn.map((t) => t.group)).toEqual(['1', '2']);
    }
    const md = readFileSync(path.join(run.dir, 'report.md'), 'utf8');
    expect(md).toContain('## Agentic Workloads');
    expect(md).toContain('charts/agentic_tiers.svg');
    const csv = readFileSync(path.join(run.dir, 'capacity.csv'), 'utf8').split('\n');
    const tiers = csv.filter((l) => l.startsWith('slo_tier,'));
    expect(tiers.map((l) => l.split(',').slice(0, 2).join(','))).toEqual(['slo_tier,instant', 'slo_tier,relaxed']);
    expect(tiers.every((l) => l.includes(',agents,'))).toBe(true);
  });
});
