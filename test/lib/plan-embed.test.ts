// Tests for the embed script's plan: its section's defaults, cells and tags, one-line errors, and plan.json read back.
// Runs in Node (vitest).

import { describe, expect, it } from 'vitest';
import { PLAN_DEFAULTS } from '../../lib/plan-defaults';
import { PlanError, planPromptForm, readResolvedPlan, resolvePlan } from '../../lib/plan';
import { buildOptions } from '../../lib/options';
import { cellMetricKey } from '../../lib/summary-data';
import { EMBED_METRICS } from '../../lib/metrics';

describe('embed plan', () => {
  it('makes one cell per input length, batch size and concurrency, from the defaults', () => {
    const plan = resolvePlan({}, 'embed');
    const d = PLAN_DEFAULTS.embed;
    expect(plan.cells).toHaveLength(d.inputTokens.length * d.batchSizes.length * d.concurrencies.length);
    expect(plan.embed).toEqual({ kind: 'embeddings', limit: { p99LatencyMs: d.limit.p99LatencyMs } });
    expect(plan.cells[0]).toMatchObject({ id: 'embed_emb_i512_b1_n1', script: 'embed', contextTokens: 512, batch: 1 });
    expect(plan.cells.every((c) => c.rounds === d.rounds)).toBe(true);
  });

  it('names each cell by kind, input, batch and users, and sends raw-text prompts whatever the API', () => {
    const plan = resolvePlan(
      {
        target: { api: 'chat' }, embed: { kind: 'rerank', inputTokens: [128], batchSizes: [4], concurrencies: [2, 8] },
      },
      'embed',
    );
    expect(plan.cells.map((c) => c.id)).toEqual(['embed_rr_i128_b4_n2', 'embed_rr_i128_b4_n8']);
    expect(planPromptForm(plan)).toBe('completions');
    expect(planPromptForm(resolvePlan({ target: { api: 'chat' } }, 'sweep'))).toBe('chat');
  });

  it('gives bigger batches longer slots: the batch is prefill work', () => {
    const plan = resolvePlan(
      { embed: { inputTokens: [4096], batchSizes: [1, 64], concurrencies: [4] }, schedule: { minCellSeconds: 1 } },
      'embed',
    );
    const [one, many] = plan.cells;
    expect(many!.maxDurationSeconds).toBeGreaterThan(one!.maxDurationSeconds * 10);
  });

  it('keeps each cell\'s latency in the summary through a threshold', () => {
    const plan = resolvePlan({ embed: { concurrencies: [1] , batchSizes: [2] } }, 'embed');
    const options = buildOptions(plan);
    expect(options.thresholds[cellMetricKey(EMBED_METRICS.embedLatency.name, plan.cells[0]!)]).toEqual(['max>=0']);
  });

  it('leaves the section out of other scripts\' plans', () => {
    expect(resolvePlan({}, 'sweep').embed).toBeNull();
  });

  it.each([
    [{ kind: 'vectors' }, 'plan field "embed.kind" is "vectors", not one of: embeddings, rerank'],
    [{ batchSizes: [0] }, 'plan field "embed.batchSizes[0]" must be between 1 and 4096, got 0'],
    [{ inputTokens: [] }, 'plan field "embed.inputTokens" must be a non-empty list of whole numbers'],
    [{ limit: { p99LatencyMs: -5 } }, 'plan field "embed.limit.p99LatencyMs" must be at least 0.001, got -5'],
    [{ rounds: 1.5 }, 'plan field "embed.rounds" must be a whole number, got 1.5'],
  ])('rejects %j with one line', (embed, message) => {
    expect(() => resolvePlan({ embed }, 'embed')).toThrow(PlanError);
    expect(() => resolvePlan({ embed }, 'embed')).toThrow(message);
  });

  it('reads its plan.json back with the batch and the limit', () => {
    const plan = resolvePlan({ embed: { batchSizes: [3], concurrencies: [2], limit: { p99LatencyMs: 250 } } }, 'embed');
    const back = readResolvedPlan(JSON.parse(JSON.stringify(plan)));
    expect(back.cells[0]!.batch).toBe(3);
    expect(back.embed).toEqual({ kind: 'embeddings', limit: { p99LatencyMs: 250 } });
  });
});
