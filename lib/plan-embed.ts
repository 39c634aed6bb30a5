// The embed script's cells: one per (input tokens, batch size, concurrency). Runs in k6 and Node.
// Kept beside lib/plan.ts, which calls it, so the embeddings workload reads as one concept.

import type { ParsedPlanInput } from './plan-schema';

/** An embed cell before its slot is scheduled: what lib/plan.ts's CellDraft needs (a type of its own: no cycle). */
export interface EmbedCellDraft {
  readonly id: string;
  readonly script: 'embed';
  readonly contextTokens: number;
  readonly outputTokens: number;
  readonly concurrency: number;
  readonly rounds: number;
  readonly useCase: null;
  readonly profile: null;
  readonly batch: number;
}

/** "emb" or "rr": short, so a cell id stays readable in Grafana's legend. */
const KIND_ID = { embeddings: 'emb', rerank: 'rr' } as const;

/**
 * Every combination, input length outermost: a table of the report is one (input, batch) pair over its concurrencies,
 * so its cells run next to each other. An embed request generates nothing: outputTokens is 1 only to keep the
 * cell's fields what every cell has (the simulator's engine runs it as one step of prefill).
 */
export function embedDrafts(e: ParsedPlanInput['embed']): EmbedCellDraft[] {
  const drafts: EmbedCellDraft[] = [];
  for (const inputTokens of e.inputTokens) {
    for (const batch of e.batchSizes) {
      for (const concurrency of e.concurrencies) {
        drafts.push({
          id: `embed_${KIND_ID[e.kind]}_i${inputTokens}_b${batch}_n${concurrency}`, script: 'embed',
          contextTokens: inputTokens, outputTokens: 1, concurrency, rounds: e.rounds, useCase: null, profile: null,
          batch,
        });
      }
    }
  }
  return drafts;
}
