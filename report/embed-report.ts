// The report's embeddings part: the embed part's cells read from their samples into per-(input, batch) capacities.
// Runs in Node.

import type { Plan } from '../lib/plan';
import type { RunInput } from './inputs';
import type { SamplesData } from './read-samples';
import { embedCapacities, type EmbedCapacity, type EmbedCellInput } from '../analysis/embed-capacity';

/** report.json's `embeddings`: what the embed part sent, its limit, and each (input, batch) ladder's capacity. */
export interface EmbedReport {
  readonly kind: NonNullable<Plan['embed']>['kind'];
  readonly limitMs: number;
  readonly capacities: readonly EmbedCapacity[];
  /** Requests whose input tokens came from the server's usage, and those counted from the plan (no usage). */
  readonly tokenSources: Readonly<Record<string, number>>;
}

/** The embed part's report; null without one. Cells without samples are measured as nothing (no row). */
export function embedReport(input: RunInput, samples: readonly SamplesData[]): EmbedReport | null {
  const index = input.parts.findIndex((part) => part.plan.script === 'embed' && part.plan.embed !== null);
  if (index < 0) return null;
  const plan = input.parts[index]!.plan;
  const data = samples[index]!;
  const cells: EmbedCellInput[] = [];
  const tokenSources: Record<string, number> = {};
  for (const cell of plan.cells) {
    const acc = data.cells.get(cell.id);
    if (!acc) continue;
    const e = acc.embed;
    for (const [source, n] of Object.entries(e?.tokenSources ?? {}))
      tokenSources[source] = (tokenSources[source] ?? 0) + n;
    cells.push({
      cellId: cell.id, inputTokens: cell.contextTokens, batch: cell.batch ?? 1, concurrency: cell.concurrency,
      latencyMs: e ? e.latencyMs.values() : [], failed: acc.failCount, items: e?.items ?? 0,
      tokens: e?.inputTokens ?? 0,
      spanMs: e && e.endMs > e.startMs ? e.endMs - e.startMs : 0,
    });
  }
  const embed = plan.embed!;
  const limitMs = embed.limit.p99LatencyMs;
  return { kind: embed.kind, limitMs, capacities: embedCapacities(cells, limitMs), tokenSources };
}
