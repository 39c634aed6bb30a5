// End to end: every API the suite speaks (chat/completions, completions, OpenAI's Responses, Anthropic's Messages),
// on a stock k6 with the measuring agent against the simulator over loopback HTTP. Runs in Node (vitest).

import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRICS } from '../../lib/metrics';
import { API_STYLES } from '../../lib/plan';
import { startSim, type SimServer } from '../../sim/server';
import { extraTags, readCsv, runBenchCli, tempDir, writePlan } from './helpers';
import { median } from '../../lib/percentile';

const MODEL = 'Qwen/Qwen3-Coder-30B-A3B-Instruct-FP8';
const REASONING = 6;
const OUTPUT = 16;
const CONTEXT = 256;
const SWEEP = { sweep: { contexts: [CONTEXT], concurrencies: [1, 2], rounds: 2, outputTokens: OUTPUT } };

const values = (rows: ReturnType<typeof readCsv>['rows'], name: string): number[] =>
  rows.filter((r) => r.metric_name === name).map((r) => Number(r.metric_value));
const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

describe('a reasoning model on each API (the simulator thinks 6 tokens before its answer)', () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSim({ port: 0, reasoningTokens: REASONING, groundTruth: true, fixed: { ttftMs: 20, itlMs: 5 } });
  });
  afterAll(async () => {
    await sim?.close();
  });

  for (const api of API_STYLES) {
    it(`${api}: exact prompt and output lengths, its reasoning tokens, ` +
      'and time to first content as the server sent it', async () => {
      sim.clearGroundTruth();
      const dir = tempDir(`api-${api}`);
      const r = await runBenchCli([
        '--url', sim.url, '--model', MODEL, '--tokenizer', 'qwen3', '--api', api, '--plan', writePlan(dir, SWEEP),
        '--scripts', 'sweep', '--results', dir, '--run-id', api,
      ]);
      expect(r.exitCode, r.stderr.slice(-3000)).toBe(0);
      const rows = readCsv(path.join(dir, api, 'sweep', 'samples.csv')).rows;
      // The probe's requests (not streamed) measure the speed the cells' slots are sized to.
      const truth = sim.groundTruth().filter((t) => t.stream);
      expect(truth.map((t) => t.endpoint)).toEqual(Array(6).fill(api === 'completions' ? 'completion' : api));
      expect(values(rows, METRICS.requestOk.name)).toEqual(Array(6).fill(1));
      const input = rows.filter((row) => row.metric_name === METRICS.inputTokens.name);
      expect(input.map((row) => [Number(row.metric_value), extraTags(row).token_source])).toEqual(
        Array(6).fill([CONTEXT, 'usage']),
      );
      expect(values(rows, METRICS.outputTokens.name)).toEqual(Array(6).fill(OUTPUT));
      // Completions have no field for thinking: their reasoning is text, so no request says it thought.
      const thought = api === 'completions' ? [] : Array(6).fill(REASONING);
      expect(values(rows, METRICS.reasoningTokens.name)).toEqual(thought);
      // The first token is a thinking one; the first content token is the seventh the server wrote. Medians over the
      // six requests: one stream read late on a loaded machine moves a mean, not what the client measured right.
      const served = median(truth.map((t) => t.tokenEpochMs[REASONING]! - t.tokenEpochMs[0]!));
      const ttft = values(rows, METRICS.ttft.name);
      const ttfc = values(rows, METRICS.ttfc.name);
      if (api === 'completions') expect(mean(ttfc)).toBeCloseTo(mean(ttft), 6);
      else {
        const apart = Math.abs(median(ttfc.map((c, i) => c - ttft[i]!)) - served);
        expect(apart, `served ${served} ms apart`).toBeLessThan(1 + 0.05 * served);
      }
    }, 120_000);
  }
});

/**
 * A use case whose capacity lies near 5 users on the default profile (2K prompts, 32 tokens out, > 100 tok/s): the
 * same server doing the same work behind each API must give the same capacity, within the search's resolution.
 */
const USE_CASE = {
  id: 'tiny_chat', title: 'Tiny chat', contextTokens: 2048, outputTokens: 32, concurrencies: [1, 2, 3, 4, 5, 6, 7, 8],
  limits: [{ metric: 'decodeSpeed', operator: '>', value: 100, label: 'speed > 100 tok/s' }],
};
const CAPACITY = { useCases: [USE_CASE], capacity: { rounds: 2, minMeasuredSeconds: 1, maxUsers: 16 } };

describe('npm run bench --api chat, responses, messages on the built-in simulator', () => {
  it('finds the same capacity on each API (the same server, the same work)', async () => {
    const found: Record<string, number> = {};
    for (const api of ['chat', 'responses', 'messages']) {
      const dir = tempDir(`api-capacity-${api}`);
      const r = await runBenchCli([
        '--api', api, '--plan', writePlan(dir, CAPACITY), '--scripts', 'capacity', '--results', dir, '--run-id', api,
      ]);
      expect(r.exitCode, r.stderr.slice(-3000)).toBe(0);
      const m = /tiny_chat: (\d+) \(\d+ breaks speed > 100 tok\/s\)/.exec(r.stderr);
      expect(m, r.stderr.slice(-3000)).not.toBeNull();
      found[api] = Number(m![1]);
    }
    console.log(`tiny_chat capacity by API: ${JSON.stringify(found)}`);
    const all = Object.values(found);
    expect(Math.max(...all) - Math.min(...all), JSON.stringify(found)).toBeLessThanOrEqual(1);
  }, 600_000);
});
