// The "Embeddings" (or "Rerank") section: per input length and batch, each concurrency's throughput and latency, and
// the capacity under the plan's p99 limit. Runs in Node.

import { embedChartId } from '../charts-embed';
import { DocBuilder, type Block } from '../document';
import type { EmbedCapacity, EmbedCellFigures } from '../../analysis/embed-capacity';
import type { EmbedReport } from '../embed-report';
import { fmtMs, fmtRate, plural } from '../format';
import type { Report } from '../report-types';
import { sentences } from '../phrases';

const num = (v: number | null, digits = 1): string => (v === null ? 'n/a' : v.toFixed(digits));

/** The section; nothing without an embed part. */
export function embeddingsSection(report: Report, charts: ReadonlySet<string>): Block[] {
  const e = report.embeddings;
  if (!e || e.capacities.length === 0) return [];
  const rerank = e.kind === 'rerank';
  const unit = rerank ? 'documents' : 'inputs';
  const doc = new DocBuilder();
  doc.h(2, rerank ? 'Rerank' : 'Embeddings');
  doc.p(sentences(
    `How many users can send ${rerank ? 'rerank' : 'embeddings'} requests at once while the p99 latency stays within ` +
      `${fmtMs(e.limitMs)}?`,
    `Each cell has N users in a closed loop, each sending a batch of ${unit} of exact token length ` +
      '(prepared prompts, each behind a unique first line so no cache serves one from another)' +
      `${rerank ? ' beside one fixed query' : ''}, waiting for the answer and sending again.`,
    'Throughput is over the span from the first request\'s start to the last one\'s end; tokens are the server\'s ' +
      `usage count${tokenSourceNote(e)}.`,
    'The capacity is the highest concurrency within the limit below the first that is not ' +
      '(a failed request breaks it).',
  ));
  doc.table(
    ['INPUT TOKENS', 'BATCH', 'CAPACITY', 'REQUESTS/S', `${unit.toUpperCase()}/S`, 'TOKENS/S', 'BROKEN AT'],
    e.capacities.map(capacityRow),
  );
  for (const c of e.capacities) {
    doc.h(3, `${c.inputTokens}-token ${unit}, ${c.batch} per request`);
    doc.table(
      [
        'USERS', 'REQUESTS', 'REQUESTS/S', `${unit.toUpperCase()}/S`, 'TOKENS/S', 'LATENCY P50', 'LATENCY P99',
        'WITHIN LIMIT',
      ],
      c.cells.map(cellRow),
    );
    doc.p(capacityLine(c, unit));
    doc.chart(embedChartId(c), charts);
  }
  return doc.blocks;
}

function tokenSourceNote(e: EmbedReport): string {
  const requested = e.tokenSources.requested ?? 0;
  return requested > 0 ? ` (${plural(requested, 'request')} had no usage and count the prepared length)` : '';
}

function capacityRow(c: EmbedCapacity): string[] {
  const t = c.capacity;
  const capacity = t ? `${c.brokenAt === null ? '>= ' : ''}${plural(t.concurrency, 'user')}` : 'none';
  return [
    String(c.inputTokens), String(c.batch), capacity, num(t?.requestsPerSecond ?? null, 2),
    num(t?.itemsPerSecond ?? null),
    num(t?.tokensPerSecond ?? null, 0), c.brokenAt === null ? 'not broken' : String(c.brokenAt),
  ];
}

function cellRow(f: EmbedCellFigures): string[] {
  const failed = f.failed > 0 ? ` (${f.failed} failed)` : '';
  return [
    String(f.concurrency), `${f.requests}${failed}`, num(f.requestsPerSecond, 2), num(f.itemsPerSecond),
    num(f.tokensPerSecond, 0), fmtMs(f.latencyP50Ms), fmtMs(f.latencyP99Ms), f.withinLimit ? 'yes' : 'no',
  ];
}

/** "Capacity: 16 users, 42.00 req/s (672.0 inputs/s, 344064 tokens/s); 32 users broke the p99 limit of 1,000 ms." */
export function capacityLine(c: EmbedCapacity, unit: string): string {
  const t = c.capacity;
  const limit = `the p99 limit of ${fmtMs(c.limitMs)}`;
  if (!t) return `Capacity: none: already ${plural(c.brokenAt ?? 1, 'user')} broke ${limit}.`;
  const at = `${plural(t.concurrency, 'user')}, ${fmtRate(t.requestsPerSecond)} ` +
    `(${num(t.itemsPerSecond)} ${unit}/s, ${num(t.tokensPerSecond, 0)} tokens/s)`;
  return c.brokenAt === null
    ? `Capacity: at least ${at}: no concurrency measured broke the p99 limit of ${fmtMs(c.limitMs)}.`
    : `Capacity: ${at}; ${plural(c.brokenAt, 'user')} broke the p99 limit of ${fmtMs(c.limitMs)}.`;
}
