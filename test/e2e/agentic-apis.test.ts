// End to end: the agentic script's tool-call sessions on the Responses and Messages APIs, on a stock k6 with the
// measuring agent, judged by the simulator's own record against the generator's plan and against the same sessions
// on the chat API: every call carried the tool calls and results the plan says it had by then, in its API's shape,
// and each cost exactly the prompt it costs on chat. Runs in Node (vitest).

import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiStyle } from '../../lib/plan';
import { METRICS } from '../../lib/metrics';
import { buildBundles } from '../../orchestrator/bundles';
import { startSim, type GroundTruthRecord } from '../../sim/server';
import { preparePrompts } from '../../tokenizer/prepare-prompts';
import { plannedToolTurns } from './agentic-planned';
import { extraTags, readCsv, runScript, tempDir } from './helpers';

const MODEL = 'Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8';
const SEED = 7;

/**
 * One agent for 6 s, so its calls go one at a time in the plan's order: sessions of two turns, one or two tool steps
 * a turn of one to three parallel calls; no sub-agents (they would run side by side) and no compaction (the chat
 * test covers both).
 */
const AGENTIC = {
  agents: [1], rampSeconds: 0, warmupSeconds: 0, holdSeconds: 6, seed: SEED,
  model: {
    turns: 2, userTokens: 24, outputTokens: 16, toolLoopDepth: { min: 1, max: 2 },
    parallelToolCalls: { min: 1, max: 3 }, toolResultTokens: 48,
    toolLatency: { distribution: 'constant', seconds: 0.02 }, thinkTime: { distribution: 'constant', seconds: 0.05 },
    subAgents: { probability: 0, count: { min: 2, max: 2 }, toolLoopDepth: { min: 1, max: 1 } },
    systemPromptTokens: 128, tools: 3, toolDescriptionTokens: 8, compaction: null,
  },
};

interface ApiRun {
  readonly exitCode: number;
  readonly stderr: string;
  readonly truth: GroundTruthRecord[];
  readonly inputTokens: number[];
}

async function runOn(api: ApiStyle): Promise<ApiRun> {
  const sim = await startSim({ port: 0, tokenizerWorkers: 1, groundTruth: true });
  try {
    const prompts = path.join(tempDir(`agentic-${api}-prompts`), 'prompts.json');
    writeFileSync(prompts, JSON.stringify(await preparePrompts({
      model: MODEL, api, contexts: [], tokenizer: 'qwen3', blockVocabulary: true,
    })));
    const run = await runScript('agentic', { monitor: { enabled: false }, agentic: AGENTIC }, {
      BASE_URL: sim.url, MODEL, API: api, PROMPTS: prompts,
    });
    const rows = readCsv(path.join(run.dir, 'samples.csv')).rows;
    const inputTokens = rows.filter((r) => r.metric_name === METRICS.inputTokens.name && extraTags(r).cell)
      .map((r) => Number(r.metric_value));
    const truth = sim.groundTruth().sort((a, b) => a.arrivalEpochMs - b.arrivalEpochMs);
    return { exitCode: run.exitCode, stderr: run.stderr, truth, inputTokens };
  } finally {
    await sim.close();
  }
}

describe('k6 run dist/agentic.js on the Responses and Messages APIs', () => {
  const runs = new Map<ApiStyle, ApiRun>();
  beforeAll(async () => {
    await buildBundles();
    for (const api of ['chat', 'responses', 'messages'] as const) runs.set(api, await runOn(api));
  }, 180_000);
  afterAll(() => runs.clear());

  describe.each(['responses', 'messages'] as const)('%s', (api) => {
    it('completes every call on the API\'s own endpoint', () => {
      const run = runs.get(api)!;
      expect(run.exitCode, run.stderr).toBe(0);
      expect(run.truth.length).toBeGreaterThanOrEqual(8);
      expect(run.truth.every((t) => t.outcome === 'completed' && t.endpoint === api)).toBe(true);
    });

    it('sends each call with the tool calls and results the generator planned by then', () => {
      const truth = runs.get(api)!.truth;
      const served = truth.map((t): [number, number] => [t.toolCalls, t.toolResults]);
      expect(served).toEqual(plannedToolTurns(AGENTIC, served.length));
      expect(Math.max(...served.map(([calls]) => calls))).toBeGreaterThan(0);
    });

    it('costs each call exactly the prompt the same call costs on chat, as the server counted it', () => {
      const [chat, other] = [runs.get('chat')!.truth, runs.get(api)!.truth];
      const n = Math.min(chat.length, other.length);
      expect(n).toBeGreaterThanOrEqual(8);
      const figures = (ts: GroundTruthRecord[]) => ts.slice(0, n).map((t) => [t.promptTokens, t.completionTokens]);
      expect(figures(other)).toEqual(figures(chat));
    });

    it('reads the server\'s prompt counts from the API\'s own usage', () => {
      const run = runs.get(api)!;
      const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
      expect(sorted(run.inputTokens)).toEqual(sorted(run.truth.map((t) => t.promptTokens)));
    });
  });
});
