// The dashboard's Embeddings row as panel specs: the embed script's p99 latency and throughput per cell. Runs in Node.
// Its cells' requests are not streams, so the request rows' TTFT and speed panels have nothing of them.

import { EMBED_METRICS } from '../../lib/metrics';
import { BY_CELL, describe, HALF, type RowSpec } from './panel-spec';
import { cellMatchers, perSecondOverMinute, trendPercentile } from './promql';
import { counterSeries, grafanaUnit } from './remote-write';

/** The embed cells: each one's request latency p99, and the inputs and tokens per second it embedded. */
export function embedRow(): RowSpec {
  const latency = EMBED_METRICS.embedLatency;
  const cells = cellMatchers({ script: 'embed' });
  return {
    title: 'Embeddings and rerank (embed cells)',
    collapsed: false,
    panels: [
      {
        type: 'timeseries',
        title: 'Embed latency p99',
        description: describe(
          latency,
          ' The report judges each cell on this against the plan\'s embed.limit.p99LatencyMs.',
        ),
        queries: [{ expr: trendPercentile(latency, 'p(99)', cells, BY_CELL, 'live'), legend: '{{cell}} p99' }],
        unit: grafanaUnit(latency),
        min: 0,
        w: HALF,
        h: 8,
      },
      {
        type: 'timeseries',
        title: 'Embed throughput: inputs and tokens per second',
        description: describe(
          EMBED_METRICS.embedItems,
          ' Per second over the last minute, beside the tokens per second (llm_embed_input_tokens).',
        ),
        queries: [
          {
            expr: perSecondOverMinute(counterSeries(EMBED_METRICS.embedItems), cells, BY_CELL),
            legend: '{{cell}} inputs/s',
          },
          {
            expr: perSecondOverMinute(counterSeries(EMBED_METRICS.embedInputTokens), cells, BY_CELL),
            legend: '{{cell}} tokens/s',
          },
        ],
        unit: 'short',
        min: 0,
        w: HALF,
        h: 8,
      },
    ],
  };
}
