// The agentic script's checks against a real server (vLLM, SGLang): a short step of the generator's tool-call
// sessions, every call accepted, tool-call turns and sub-agents included; and a replay of the synthetic agent trace,
// every prompt of its recorded length exactly as the server counted it. Runs in Node (vitest).

import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { loadAgentTrace } from '../../lib/agent-trace';
import { METRICS } from '../../lib/metrics';
import { buildBundles } from '../../orchestrator/bundles';
import { preparePrompts } from '../../tokenizer/prepare-prompts';
import { plannedToolTurns } from './agentic-planned';
import { extraTags, readCsv, runScript, tempDir, type CsvRow } from './helpers';

/** One step of 2 agents for 5 s: one tool round per turn, sub-agents half the time; tiny outputs. */
const GENERATOR_PLAN = {
  monitor: { enabled: false },
  agentic: {
    agents: [2], rampSeconds: 0, warmupSeconds: 0, holdSeconds: 5, seed: 3,
    model: {
      turns: 2, userTokens: 16, outputTokens: 4, toolLoopDepth: { min: 1, max: 1 },
      parallelToolCalls: { min: 1, max: 2 }, toolResultTokens: 32,
      toolLatency: { distribution: 'constant', seconds: 0.05 }, thinkTime: { distribution: 'constant', seconds: 0.05 },
      subAgents: { probability: 0.5, count: { min: 2, max: 2 }, toolLoopDepth: { min: 1, max: 1 } },
      systemPromptTokens: 128, tools: 3, toolDescriptionTokens: 8, compaction: null,
    },
  },
  schedule: { prefillTokensPerSecond: 2000, decodeTokensPerSecond: 20, safetyFactor: 3 },
};

const SAMPLE = path.resolve('examples/traces/agent-mooncake.jsonl');

const metricRows = (rows: readonly CsvRow[], name: string): CsvRow[] =>
  rows.filter((r) => r.metric_name === name && extraTags(r).cell !== undefined);

/** One agent for 5 s, no sub-agents, so its calls go one at a time in the order the generator planned them. */
const ONE_AGENT = {
  ...GENERATOR_PLAN.agentic, agents: [1],
  model: {
    ...GENERATOR_PLAN.agentic.model, toolLoopDepth: { min: 1, max: 2 },
    subAgents: { ...GENERATOR_PLAN.agentic.model.subAgents, probability: 0 },
  },
};

/**
 * The generator's tool-call sessions on another API of messages (Responses, Messages): every call accepted with the
 * history in that API's items and blocks, and each call's prompt, as the server counted it, above the one before by
 * at least the tool results the plan added between them (toolResultTokens each): the server read every result.
 */
export async function expectToolSessionsOnApi(v1: string, model: string, api: 'responses' | 'messages'): Promise<void> {
  await buildBundles();
  const prompts = path.join(tempDir(`agentic-real-${api}-prompts`), 'prompts.json');
  writeFileSync(prompts, JSON.stringify(await preparePrompts({
    model, api, contexts: [], tokenizer: 'auto', baseUrl: v1, apiKey: null, blockVocabulary: true,
  })));
  const plan = { ...GENERATOR_PLAN, agentic: ONE_AGENT };
  const run = await runScript('agentic', plan, { BASE_URL: v1, MODEL: model, PROMPTS: prompts, API: api });
  expect(run.exitCode, run.stderr.slice(-2000)).toBe(0);
  const rows = readCsv(path.join(run.dir, 'samples.csv')).rows;
  const ok = metricRows(rows, METRICS.requestOk.name);
  expect(ok.length).toBeGreaterThan(3);
  expect(ok.every((r) => Number(r.metric_value) === 1), run.stderr.slice(-2000)).toBe(true);
  const input = metricRows(rows, METRICS.inputTokens.name)
    .sort((a, b) => Number(a.timestamp) - Number(b.timestamp)).map((r) => Number(r.metric_value));
  const planned = plannedToolTurns(ONE_AGENT, input.length);
  let judged = 0;
  for (let k = 1; k < input.length; k++) {
    const added = planned[k]![1] - planned[k - 1]![1];
    if (added <= 0) continue;
    expect(input[k]! - input[k - 1]!, `call ${k}: ${added} results`).toBeGreaterThanOrEqual(
      added * ONE_AGENT.model.toolResultTokens,
    );
    judged++;
  }
  expect(judged).toBeGreaterThan(0);
}

/** Prepares the server's one-token words, then runs both checks against it. */
export async function expectAgenticOnServer(v1: string, model: string): Promise<void> {
  await buildBundles();
  const prompts = path.join(tempDir('agentic-real-prompts'), 'prompts.json');
  writeFileSync(prompts, JSON.stringify(await preparePrompts({
    model, api: 'chat', contexts: [], tokenizer: 'auto', baseUrl: v1, apiKey: null, blockVocabulary: true,
  })));
  const env = { BASE_URL: v1, MODEL: model, PROMPTS: prompts };

  const generator = await runScript('agentic', GENERATOR_PLAN, env);
  expect(generator.exitCode, generator.stderr.slice(-2000)).toBe(0);
  const ok = metricRows(readCsv(path.join(generator.dir, 'samples.csv')).rows, METRICS.requestOk.name);
  expect(ok.length).toBeGreaterThan(3);
  // Every call after the first of a turn carries the assistant's tool_calls and the tool results: all accepted.
  expect(ok.every((r) => Number(r.metric_value) === 1), generator.stderr.slice(-2000)).toBe(true);

  const replayPlan = {
    ...GENERATOR_PLAN,
    agentic: { agents: [1], rampSeconds: 0, warmupSeconds: 0, holdSeconds: 8, trace: { file: SAMPLE } },
  };
  const replay = await runScript('agentic', replayPlan, env);
  expect(replay.exitCode, replay.stderr.slice(-2000)).toBe(0);
  const trace = loadAgentTrace(readFileSync(SAMPLE, 'utf8'), { file: SAMPLE, format: null, skipBadRows: false });
  const recorded = new Set(trace.sessions.flatMap((s) => s.calls.map((c) => c.inputTokens)));
  const counted = metricRows(readCsv(path.join(replay.dir, 'samples.csv')).rows, METRICS.inputTokens.name)
    .map((r) => Number(r.metric_value));
  // A session's first call and at least one that follows it after its delay (SGLang's CPU stand-in is slow).
  expect(counted.length).toBeGreaterThanOrEqual(2);
  // The server's usage.prompt_tokens of each call is a recorded input_length: exact, chat template included.
  for (const n of counted) expect(recorded.has(n), `${n} prompt tokens`).toBe(true);
}
