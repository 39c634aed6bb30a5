// End to end: `npm run bench -- --scripts embed` against the built-in simulator, as a user runs it, for embeddings
// and rerank: exact input lengths by the server's own count, one latency sample per request, the report's section
// and a capacity. Runs in Node (vitest); needs k6 (npm run k6:ensure).

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../../report/report-types';
import { extraTags, readCsv, readJson, runBenchCli, tempDir, writePlan } from './helpers';

const INPUT_TOKENS = 64;
const BATCHES = [1, 4];
const USERS = [1, 2];
const ROUNDS = 2;

async function runEmbed(kind: 'embeddings' | 'rerank'): Promise<{ dir: string; output: string }> {
  const dir = tempDir(`embed-${kind}`);
  const plan = {
    embed: {
      kind, inputTokens: [INPUT_TOKENS], batchSizes: BATCHES, concurrencies: USERS, rounds: ROUNDS,
      limit: { p99LatencyMs: 10_000 },
    },
  };
  const r = await runBenchCli([
    '--plan', writePlan(dir, plan), '--scripts', 'embed', '--results', dir, '--run-id', 'e',
  ]);
  expect(r.exitCode, r.stderr + r.stdout).toBe(0);
  return { dir: path.join(dir, 'e'), output: r.stdout + r.stderr };
}

describe('npm run bench -- --scripts embed', () => {
  it('sends embeddings of exact length, a latency sample per request, and reports a capacity', async () => {
    const { dir } = await runEmbed('embeddings');
    const rows = readCsv(path.join(dir, 'embed', 'samples.csv')).rows;
    const latency = rows.filter((r) => r.metric_name === 'llm_embed_latency');
    const requests = BATCHES.length * USERS.reduce((n, u) => n + u * ROUNDS, 0);
    expect(latency).toHaveLength(requests);
    for (const row of latency) expect(Number(row.metric_value)).toBeGreaterThan(0);
    // The simulator's tokenizer counts each batch: every input exactly the planned length.
    const tokens = rows.filter((r) => r.metric_name === 'llm_embed_input_tokens');
    expect(tokens).toHaveLength(requests);
    for (const row of tokens) {
      const tags = extraTags(row);
      expect(tags.token_source).toBe('usage');
      expect(Number(row.metric_value)).toBe(INPUT_TOKENS * Number(tags.batch));
    }
    const items = rows.filter((r) => r.metric_name === 'llm_embed_items');
    expect(items.map((r) => Number(r.metric_value))).toEqual(items.map((r) => Number(extraTags(r).batch)));
    expect(rows.filter((r) => r.metric_name === 'llm_request_ok' && r.metric_value !== '1.000000')).toHaveLength(0);

    const report = readJson<Report>(path.join(dir, 'report.json'));
    const e = report.embeddings!;
    expect(e.kind).toBe('embeddings');
    expect(e.capacities.map((c) => c.batch)).toEqual(BATCHES);
    for (const c of e.capacities) {
      expect(c.cells.map((f) => f.requests)).toEqual(USERS.map((u) => u * ROUNDS));
      expect(c.capacity?.concurrency).toBe(2);
      expect(c.capacity!.tokensPerSecond).toBeCloseTo(c.capacity!.itemsPerSecond * INPUT_TOKENS, 6);
    }
    const md = readFileSync(path.join(dir, 'report.md'), 'utf8');
    expect(md).toContain('## Embeddings');
    expect(md).toContain('Capacity: at least 2 users');
    expect(existsSync(path.join(dir, 'charts', `embed_i${INPUT_TOKENS}_b4.svg`))).toBe(true);
  }, 240_000);

  it('reranks a query against each batch of documents, sorted answers counted whole', async () => {
    const { dir } = await runEmbed('rerank');
    const rows = readCsv(path.join(dir, 'embed', 'samples.csv')).rows;
    const tokens = rows.filter((r) => r.metric_name === 'llm_embed_input_tokens');
    // The server counts the query beside each document (a cross-encoder's pairs): more than the documents alone.
    for (const row of tokens) {
      const batch = Number(extraTags(row).batch);
      expect(Number(row.metric_value)).toBeGreaterThan(INPUT_TOKENS * batch);
      expect(Number(row.metric_value) % batch).toBe(0);
    }
    const report = readJson<Report>(path.join(dir, 'report.json'));
    expect(report.embeddings?.kind).toBe('rerank');
    expect(readFileSync(path.join(dir, 'report.md'), 'utf8')).toContain('## Rerank');
  }, 240_000);
});
