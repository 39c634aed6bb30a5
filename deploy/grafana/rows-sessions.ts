// The dashboard's Sessions row as panel specs: conversations on the prefix cache. Runs in Node.
// The client's view (usage.prompt_tokens_details, llm_cached_tokens) beside the server's own counters.

import { REQUEST_METRICS, SERVER_METRICS } from '../../lib/metrics';
import { BY_CELL, describe, HALF, type PanelSpec, type RowSpec } from './panel-spec';
import { cellMatchers, series, testidMatchers, RATE_WINDOW } from './promql';
import { counterSeries, gaugeSeries } from './remote-write';
import { SERVER_JOB_VAR } from './variables';

/**
 * cached / input tokens by the given labels, both cumulative from the test's start: the hit rate so far. A group
 * whose server never reported cached tokens (or none were cached: vLLM then leaves the field out) has no line.
 */
export function usageHitRate(by: readonly string[], measuredOnly = true): string {
  const cells = cellMatchers({}, measuredOnly);
  const sum = (name: string) => `sum by (${by.join(', ')}) (${series(name, cells)})`;
  return `${sum(counterSeries(REQUEST_METRICS.cachedTokens))} / ${sum(counterSeries(REQUEST_METRICS.inputTokens))}`;
}

function hitRatePanel(): PanelSpec {
  const mon = testidMatchers();
  const raw = [{ label: 'job', op: '=~' as const, value: `$${SERVER_JOB_VAR}` }];
  const hits = gaugeSeries(SERVER_METRICS.prefixCacheHitsTotal);
  const queries = gaugeSeries(SERVER_METRICS.prefixCacheQueriesTotal);
  return {
    type: 'timeseries',
    title: 'Prefix-cache hit rate',
    description: describe(
      REQUEST_METRICS.cachedTokens,
      ' Per cell: cached / input tokens of its requests since the cell began, as the server reported them in each ' +
      "response's usage. Server: the hit share of the prompt tokens looked up, over the rate window, from vLLM's " +
      "counters (the k6 monitor's llm_server_prefix_cache_*), and SGLang's own gauge (sglang:cache_hit_rate, scraped; " +
      'server_job variable).',
    ),
    queries: [
      { expr: usageHitRate(BY_CELL), legend: '{{cell}} (usage)' },
      {
        expr: `max(rate(${series(hits, mon)}[${RATE_WINDOW}])) / max(rate(${series(queries, mon)}[${RATE_WINDOW}]))`,
        legend: 'server, vLLM counters (k6 monitor)',
      },
      { expr: `max(${series('sglang:cache_hit_rate', raw)})`, legend: 'server, sglang:cache_hit_rate' },
    ],
    unit: 'percentunit',
    min: 0,
    max: 1,
    w: HALF,
    h: 8,
  };
}

export function sessionsRow(): RowSpec {
  return { title: 'Sessions and prefix cache', collapsed: false, panels: [hitRatePanel()] };
}
