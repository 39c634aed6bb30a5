// End to end: the agentic script against a real server, llama.cpp's llama-server with the tiny Qwen3 model, on a stock
// k6 with the measuring agent: its chat template takes the tool catalog, the calls and the results, and its prefix
// cache serves no more than the ideal the script counts. Runs in Node (vitest).

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRICS } from '../../lib/metrics';
import { buildBundles } from '../../orchestrator/bundles';
import { ensureLlamaArtefacts, startLlamaServer, type LlamaServer } from '../../orchestrator/llama-server';
import { preparePrompts } from '../../tokenizer/prepare-prompts';
import { expectToolSessionsOnApi } from './agentic-real';
import { extraTags, readCsv, runScript, tempDir, type CsvRow } from './helpers';

/** One step of 2 agents for 6 s: one tool round per turn, sub-agents half the time, compaction past 600 tokens. */
const PLAN = {
  monitor: { enabled: false },
  agentic: {
    agents: [2], rampSeconds: 0, warmupSeconds: 1, holdSeconds: 6, seed: 3,
    model: {
      turns: 2, userTokens: 16, outputTokens: 8, toolLoopDepth: { min: 1, max: 1 },
      parallelToolCalls: { min: 1, max: 2 }, toolResultTokens: 32,
      toolLatency: { distribution: 'constant', seconds: 0.05 }, thinkTime: { distribution: 'constant', seconds: 0.05 },
      subAgents: { probability: 0.5, count: { min: 2, max: 2 }, toolLoopDepth: { min: 1, max: 1 } },
      systemPromptTokens: 128, tools: 3, toolDescriptionTokens: 8, compaction: { atTokens: 600, summaryTokens: 16 },
    },
  },
  schedule: { prefillTokensPerSecond: 2000, decodeTokensPerSecond: 20, safetyFactor: 3 },
};

const values = (rows: readonly CsvRow[], name: string): number[] =>
  rows.filter((r) => r.metric_name === name && extraTags(r).cell !== undefined).map((r) => Number(r.metric_value));
const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);

describe('k6 run dist/agentic.js against llama-server', () => {
  let server: LlamaServer;
  let run: Awaited<ReturnType<typeof runScript>>;
  let rows: CsvRow[];
  beforeAll(async () => {
    await buildBundles();
    const artefacts = await ensureLlamaArtefacts(() => {});
    server = await startLlamaServer(artefacts, { slots: 2, contextPerSlot: 4096, threads: 1 });
    const v1 = `${server.base}/v1`;
    const prompts = path.join(tempDir('agentic-llama-prompts'), 'prompts.json');
    writeFileSync(prompts, JSON.stringify(await preparePrompts({
      model: server.model, api: 'chat', contexts: [], tokenizer: 'auto', baseUrl: v1, apiKey: null,
      blockVocabulary: true,
    })));
    run = await runScript('agentic', PLAN, { BASE_URL: v1, MODEL: server.model, PROMPTS: prompts });
    rows = readCsv(path.join(run.dir, 'samples.csv')).rows;
  }, 900_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('runs every call with its tool messages, sub-agents and compaction included', () => {
    expect(run.exitCode, run.stderr.slice(-2000)).toBe(0);
    const ok = rows.filter((r) => r.metric_name === METRICS.requestOk.name);
    expect(ok.length).toBeGreaterThan(5);
    expect(ok.every((r) => Number(r.metric_value) === 1), run.stderr.slice(-2000)).toBe(true);
    expect(new Set(ok.map((r) => extraTags(r).agent_call))).toContain('sub');
  });

  it("finds the server's cache within the ideal, and serving most of it", () => {
    const ideal = values(rows, METRICS.idealCachedTokens.name);
    const cached = values(rows, METRICS.cachedTokens.name);
    expect(cached.length).toBe(ideal.length);
    // Its slots keep the conversation they last served: more than half the ideal when two agents share two slots
    // (93% when written), never more than the ideal, whose shared prefix is counted with the server's own template.
    expect(sum(cached)).toBeLessThanOrEqual(sum(ideal));
    expect(sum(cached)).toBeGreaterThan(0.5 * sum(ideal));
  });

  // The Responses and Messages shapes on the same server: every call accepted, each tool result read by its prompts.
  describe.each(['responses', 'messages'] as const)('on %s', (api) => {
    it('runs tool-call sessions in the API\'s own shape, every call accepted', async () => {
      await expectToolSessionsOnApi(`${server.base}/v1`, server.model, api);
    }, 600_000);
  });
});
