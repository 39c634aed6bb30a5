// The dashboard's Sessions row as panel specs: conversations on the prefix cache. Runs in Node.
// The client's view (usage.prompt_tokens_details, llm_cached_tokens) beside the server's own counters.

import { REQUEST_METRICS, SAMPLE_TAGS, SESSION_METRICS } from '../../lib/metrics';
import { SERVER_METRICS } from '../../lib/server-metrics';
import { TURN_TAG_CAP } from '../../lib/sessions';
import { BY_CELL, describe, HALF, MULTI_RUNNER_NOTE, THIRD, type PanelSpec, type RowSpec } from './panel-spec';
import { cellMatchers, series, testidMatchers, trendMean, RATE_WINDOW, type Matcher } from './promql';
import { counterSeries, gaugeSeries, grafanaUnit } from './remote-write';
import { percentileQueries } from './rows-requests';
import { SERVER_JOB_VAR } from './variables';

/**
 * cached / input tokens by the given labels, both cumulative from the test's start: the hit rate so far. A group
 * whose server never reported cached tokens (or none were cached: vLLM then leaves the field out) has no line.
 */
export function usageHitRate(by: readonly string[], extra: readonly Matcher[] = []): string {
  const cells = [...cellMatchers(), ...extra];
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
      "counters (the k6 monitor's llm_server_prefix_cache_*), and SGLang's own gauge " +
      '(sglang:cache_hit_rate, scraped; server_job variable).',
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

/** TTFT of the requests the prefix cache served part of, beside those it served none of, by cell. */
function cacheTtftPanel(): PanelSpec {
  const { ttftCacheHit: hit, ttftCacheMiss: miss } = REQUEST_METRICS;
  const stats = ['p(50)', 'p(99)'] as const;
  return {
    type: 'timeseries',
    title: 'TTFT with and without a prefix-cache hit (p50, p99)',
    description: describe(
      hit,
      ` Beside ${miss.name}: ${miss.description} The gap between the two is the prefill the cache saved, at the ` +
      "cell's load; a prefix-groups plan (docs/guides/prefix-groups.md) gives each cell both." + MULTI_RUNNER_NOTE,
    ),
    queries: [...percentileQueries(hit, stats, 'live', 'hit'), ...percentileQueries(miss, stats, 'live', 'miss')],
    unit: grafanaUnit(hit),
    min: 0,
    w: HALF,
    h: 8,
  };
}

/** Request samples of the sessions script only: they carry a turn. */
const SESSION_TURNS: Matcher = { label: SAMPLE_TAGS.turn, op: '=~', value: '.+' };
const TURNS_NOTE =
  ` One line per turn of the conversations (tag turn: 1, 2, ... and ${TURN_TAG_CAP}+ for the later ones), over the ` +
  'selected cells, measured turns only.';

function ttftByTurnPanel(): PanelSpec {
  const def = REQUEST_METRICS.ttft;
  return {
    type: 'timeseries',
    title: 'TTFT by turn (mean)',
    description: describe(def, `${TURNS_NOTE} A later turn sends a longer history; a prefix cache serves most of it.` +
      MULTI_RUNNER_NOTE),
    queries: [
      { expr: trendMean(def, [...cellMatchers(), SESSION_TURNS], [SAMPLE_TAGS.turn], 'live'), legend: 'turn {{turn}}' },
    ],
    unit: grafanaUnit(def),
    min: 0,
    w: THIRD,
    h: 8,
  };
}

function hitRateByTurnPanel(): PanelSpec {
  return {
    type: 'timeseries',
    title: 'Prefix-cache hit rate by turn',
    description: describe(REQUEST_METRICS.cachedTokens, `${TURNS_NOTE} Cached / input tokens since the cells began.`),
    queries: [{ expr: usageHitRate([SAMPLE_TAGS.turn], [SESSION_TURNS]), legend: 'turn {{turn}}' }],
    unit: 'percentunit',
    min: 0,
    max: 1,
    w: THIRD,
    h: 8,
  };
}

function activeUsersPanel(): PanelSpec {
  const def = SESSION_METRICS.activeUsers;
  return {
    type: 'timeseries',
    title: 'Active users',
    // Every user of a step reports the step's count (arrivals are counted over the whole plan, not a runner's share).
    description: describe(
      def,
      ' Per sessions step (cell); several runners report the same count: the largest is shown.',
    ),
    queries: [
      { expr: `max by (cell) (${series(gaugeSeries(def), cellMatchers({}, false))})`, legend: '{{cell}}' },
    ],
    unit: 'short',
    min: 0,
    w: THIRD,
    h: 8,
  };
}

export function sessionsRow(): RowSpec {
  return {
    title: 'Sessions and prefix cache', collapsed: false,
    panels: [ttftByTurnPanel(), hitRateByTurnPanel(), activeUsersPanel(), hitRatePanel(), cacheTtftPanel()],
  };
}
