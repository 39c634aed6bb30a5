// The dashboard's Server row as panel specs: the k6 monitor's gauges beside the scraped raw series; runs in Node.
// The monitor's gauges are llm_server_*; the raw series are vllm:, sglang: and DCGM_, as Prometheus scrapes them.

import { SERVER_METRIC_SOURCES } from '../../lib/prometheus';
import type { ServerMetricKey } from '../../lib/metrics';
import { SERVER_METRICS } from '../../lib/server-metrics';
import { describe, QUARTER, type PanelSpec, type QuerySpec, type RowSpec } from './panel-spec';
import { ratePerSecond, series, testidMatchers, RATE_WINDOW, type Matcher } from './promql';
import { gaugeSeries, grafanaUnit } from './remote-write';
import { SERVER_JOB_VAR } from './variables';

/** Raw server metric names a server figure is read from, as lib/metrics.ts documents them (vllm:, sglang:, DCGM_). */
export function rawServerNames(key: ServerMetricKey): string[] {
  return key in SERVER_METRIC_SOURCES ? [...SERVER_METRIC_SOURCES[key as keyof typeof SERVER_METRIC_SOURCES]] : [];
}

/** Raw names grouped by engine prefix (vllm:, sglang:, DCGM_), in order. */
function byEngine(names: readonly string[]): string[][] {
  const groups = new Map<string, string[]>();
  for (const name of names) {
    const prefix = /^[^:_]+[:_]/.exec(name)?.[0] ?? name;
    groups.set(prefix, [...(groups.get(prefix) ?? []), name]);
  }
  return [...groups.values()];
}

type ServerPanelSpec =
  | { kind: 'level'; key: ServerMetricKey; title: string; agg: 'sum' | 'avg' }
  | { kind: 'rate'; key: ServerMetricKey; title: string; unit: string }
  | { kind: 'mean'; sum: ServerMetricKey; count: ServerMetricKey; title: string }
  | { kind: 'speed'; tokens: ServerMetricKey; seconds: ServerMetricKey; title: string };

const SERVER_PANELS: readonly ServerPanelSpec[] = [
  { kind: 'level', key: 'running', title: 'Running requests', agg: 'sum' },
  { kind: 'level', key: 'waiting', title: 'Waiting requests (queue)', agg: 'sum' },
  { kind: 'level', key: 'kvCacheUsage', title: 'KV-cache usage', agg: 'avg' },
  { kind: 'level', key: 'powerWatts', title: 'GPU power', agg: 'sum' },
  { kind: 'rate', key: 'generationTokensTotal', title: 'Server generation tokens/s', unit: 'suffix: tok/s' },
  { kind: 'rate', key: 'preemptionsTotal', title: 'Preemptions/s', unit: 'short' },
  { kind: 'mean', sum: 'queueTimeSum', count: 'queueTimeCount', title: 'Server queue time (mean)' },
  { kind: 'mean', sum: 'serverTtftSum', count: 'serverTtftCount', title: 'Server-side TTFT (mean)' },
  {
    kind: 'speed', tokens: 'promptTokensTotal', seconds: 'prefillSecondsTotal',
    title: 'Server prefill speed per request',
  },
  {
    kind: 'speed', tokens: 'generationTokensTotal', seconds: 'decodeSecondsTotal',
    title: 'Server decode speed per request',
  },
];

function serverPanel(spec: ServerPanelSpec): PanelSpec {
  const mon = testidMatchers();
  const raw: Matcher[] = [{ label: 'job', op: '=~', value: `$${SERVER_JOB_VAR}` }];
  const monitorNote =
    ' "k6 monitor" lines are the llm_server_* gauges the suite\'s monitor scenario samples from the server\'s ' +
    '/metrics during the run; the others are the raw series when Prometheus scrapes the server (prometheus.yml), ' +
    'filtered by the server_job variable.';
  if (spec.kind === 'level') {
    const def = SERVER_METRICS[spec.key];
    return {
      type: 'timeseries',
      title: spec.title,
      description: describe(def, monitorNote),
      queries: [
        // max, not sum: should two runners both monitor the server, they read the same value.
        { expr: `max(${series(gaugeSeries(def), mon)})`, legend: 'k6 monitor' },
        // Names of one engine that differ by version (vllm:kv_cache_usage_perc, formerly vllm:gpu_cache_usage_perc)
        // share a line: the first that exists.
        ...byEngine(rawServerNames(spec.key)).map((names) => ({
          expr: names.map((name) => `${spec.agg}(${series(name, raw)})`).join(' or '), legend: names[0]!,
        })),
      ],
      unit: grafanaUnit(def),
      min: 0,
      ...(def.unit === 'ratio' ? { max: 1 } : {}),
      w: QUARTER,
      h: 8,
    };
  }
  if (spec.kind === 'rate') {
    const def = SERVER_METRICS[spec.key];
    return {
      type: 'timeseries',
      title: spec.title,
      description: describe(def, ` Per-second increase of the cumulative value.${monitorNote}`),
      queries: [
        { expr: `max(rate(${series(gaugeSeries(def), mon)}[${RATE_WINDOW}]))`, legend: 'k6 monitor' },
        ...rawServerNames(spec.key).map((name) => ({ expr: ratePerSecond(name, raw), legend: name })),
      ],
      unit: spec.unit,
      min: 0,
      w: QUARTER,
      h: 8,
    };
  }
  if (spec.kind === 'speed') return serverSpeedPanel(spec, raw);
  const sum = SERVER_METRICS[spec.sum];
  const count = SERVER_METRICS[spec.count];
  const rawSums = rawServerNames(spec.sum);
  const rawCounts = rawServerNames(spec.count);
  const monitorSumRate = `max(rate(${series(gaugeSeries(sum), mon)}[${RATE_WINDOW}]))`;
  const monitorCountRate = `max(rate(${series(gaugeSeries(count), mon)}[${RATE_WINDOW}]))`;
  const rawQueries: QuerySpec[] = [];
  rawSums.forEach((name, i) => {
    const countName = rawCounts[i];
    if (countName !== undefined)
      rawQueries.push({
        expr: `${ratePerSecond(name, raw)} / ${ratePerSecond(countName, raw)}`, legend: name.replace(/_sum$/, ''),
      });
  });
  return {
    type: 'timeseries',
    title: spec.title,
    description: describe(
      sum,
      ` Mean over the rate window: increase of the sum / increase of the count.${monitorNote}`,
    ),
    queries: [
      { expr: `${monitorSumRate} / ${monitorCountRate}`, legend: 'k6 monitor' },
      ...rawQueries,
    ],
    unit: 's',
    min: 0,
    w: QUARTER,
    h: 8,
  };
}

/**
 * Tokens per second of the time the server spent on them, summed over its slots (llama.cpp times prompt
 * processing and generation per slot): the speed one request saw, as the server measured it. Only from
 * the scrape, paired by engine: the report computes the same per cell from the monitor's gauges.
 */
function serverSpeedPanel(spec: Extract<ServerPanelSpec, { kind: 'speed' }>, raw: Matcher[]): PanelSpec {
  const seconds = rawServerNames(spec.seconds);
  const queries = seconds.flatMap((secondsName) => {
    const engine = /^[^:_]+[:_]/.exec(secondsName)?.[0] ?? '';
    const tokensName = rawServerNames(spec.tokens).find((n) => n.startsWith(engine));
    return tokensName
      ? [
          {
            expr: `${ratePerSecond(tokensName, raw)} / ${ratePerSecond(secondsName, raw)}`, legend: engine.slice(0, -1),
          },
        ]
      : [];
  });
  return {
    type: 'timeseries',
    title: spec.title,
    description: describe(
      SERVER_METRICS[spec.seconds],
      ' Increase of the tokens over increase of the seconds, over the rate window; from the raw series of the ' +
      'scrape (server_job variable).',
    ),
    queries,
    unit: 'suffix: tok/s',
    min: 0,
    w: QUARTER,
    h: 8,
  };
}

export function serverRow(): RowSpec {
  return { title: 'Server', collapsed: false, panels: SERVER_PANELS.map(serverPanel) };
}
