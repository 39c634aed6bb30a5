// End to end: `npm run bench -- --scripts embed` against the simulator, as a user runs it, for embeddings and
// rerank: exact input lengths by the server's own count, one latency sample per request judged against the server's
// own record of that request (its ground truth), the report's section, and a capacity whose limit breaks when it is
// set below what the server took. Runs in Node (vitest); needs k6 (npm run k6:ensure).

import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embedCapacities, type EmbedCellInput } from '../../analysis/embed-capacity';
import type { Report } from '../../report/report-types';
import { fetchEmbedTruth } from '../../sim/child';
import type { EmbedTruthRecord } from '../../sim/ground-truth';
import { startSim, type SimServer } from '../../sim/server';
import { extraTags, readCsv, readJson, recordOfSample, runBenchCli, tempDir, writePlan, type CsvRow } from './helpers';

const INPUT_TOKENS = 64;
const BATCHES = [1, 4];
const USERS = [1, 2];
const ROUNDS = 2;

let sim: SimServer;
beforeAll(async () => {
  sim = await startSim({ port: 0, groundTruth: true });
});
afterAll(async () => {
  await sim?.close();
});

/** Each latency sample beside the server's record of its request: client ms, server ms (headers read to answer). */
function pairWithTruth(latency: readonly CsvRow[], truth: readonly EmbedTruthRecord[]) {
  const recordOf = recordOfSample(truth);
  return latency.map((row) => {
    const t = recordOf(row);
    expect(t, `no server record for ${row.metadata}`).toBeDefined();
    return { row, truth: t!, clientMs: Number(row.metric_value), serverMs: t!.endEpochMs - t!.arrivalEpochMs };
  });
}

/**
 * The limit can break: the report's judge, on the same samples, keeps the report's capacities at the plan's limit,
 * and with the limit just below what the server itself took for the fastest request of each ladder's first step,
 * finds no capacity and breaks at 1 user.
 */
function expectLimitToBreakBelowTruth(
  e: NonNullable<Report['embeddings']>, pairs: ReturnType<typeof pairWithTruth>,
): void {
  const concurrencyOf = new Map(e.capacities.flatMap((c) => c.cells.map((f) => [f.cellId, f.concurrency] as const)));
  const cells: EmbedCellInput[] = [...concurrencyOf].map(([cellId, concurrency]) => {
    const own = pairs.filter((p) => p.row.scenario === cellId);
    expect(own.length, `samples of ${cellId}`).toBe(concurrency * ROUNDS);
    const batch = Number(extraTags(own[0]!.row).batch);
    const first = Math.min(...own.map((p) => p.truth.arrivalEpochMs));
    const spanMs = Math.max(...own.map((p) => p.truth.endEpochMs)) - first;
    return {
      cellId, inputTokens: INPUT_TOKENS, batch, concurrency, latencyMs: own.map((p) => p.clientMs), failed: 0,
      items: batch * own.length, tokens: INPUT_TOKENS * batch * own.length, spanMs,
    };
  });
  const held = embedCapacities(cells, e.limitMs);
  expect(held.map((c) => c.capacity?.concurrency)).toEqual(e.capacities.map((c) => c.capacity?.concurrency));
  const atOne = pairs.filter((p) => concurrencyOf.get(p.row.scenario!) === 1);
  const below = Math.min(...atOne.map((p) => p.serverMs)) * 0.9;
  for (const c of embedCapacities(cells, below)) {
    expect(c.capacity, `limit ${below} ms, below the server's own time`).toBeNull();
    expect(c.brokenAt).toBe(1);
  }
}

async function runEmbed(kind: 'embeddings' | 'rerank'): Promise<{ dir: string; output: string }> {
  const dir = tempDir(`embed-${kind}`);
  const plan = {
    embed: {
      kind, inputTokens: [INPUT_TOKENS], batchSizes: BATCHES, concurrencies: USERS, rounds: ROUNDS,
      limit: { p99LatencyMs: 10_000 },
    },
    // Slots sized to these few small batches: the defaults' 10-second floor and 2-second gaps idled 11 s a cell.
    schedule: { minCellSeconds: 1, gapSeconds: 0.2 },
  };
  const r = await runBenchCli([
    '--url', sim.url, '--plan', writePlan(dir, plan), '--scripts', 'embed', '--results', dir, '--run-id', 'e',
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
    // Request by request against the server's record: the client's latency holds the server's whole handling
    // (headers read to answer written) and adds only the loopback and k6's own time around it.
    const truth = (await fetchEmbedTruth(sim.url)).filter((t) => t.route === 'embeddings');
    expect(truth).toHaveLength(requests);
    const pairs = pairWithTruth(latency, truth);
    expect(new Set(pairs.map((p) => p.truth.requestId)).size).toBe(requests);
    for (const p of pairs) {
      expect(p.truth.items).toBe(Number(extraTags(p.row).batch));
      expect(p.serverMs).toBeGreaterThan(0);
      // Two clocks (k6's run clock, the server's), each read a step away from the wire: a few ms either way. One
      // run on the shared machine read a client 3.4 ms under the server's 75.6 ms.
      expect(p.clientMs - p.serverMs, 'the client no faster than the server').toBeGreaterThan(-10);
      expect(p.clientMs - p.serverMs, 'client overhead on loopback').toBeLessThan(250);
    }
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
    expectLimitToBreakBelowTruth(e, pairs);
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
