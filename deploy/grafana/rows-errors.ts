// The Errors row and the collapsed native-histogram row of the dashboard, as panel specs. Runs in Node.

import { REQUEST_METRICS, SAMPLE_TAGS } from '../../lib/metrics';
import { SERVER_METRICS } from '../../lib/server-metrics';
import type { MetricDefinition } from '../../lib/metric-definition';
import { AGENT_CALLS, K6_BUILTIN_SERIES } from './k6-builtins';
import { describe, BY_CELL, HALF, THIRD, type PanelSpec, type RowSpec } from './panel-spec';
import {
  cellMatchers,
  histogramQuantile,
  orZerosLike,
  perSecondOverMinute,
  series,
  testidMatchers,
  totalOverRange,
} from './promql';
import { counterSeries, grafanaUnit, nativeHistogramSeries, rateSeries } from './remote-write';

export function errorsRow(): RowSpec {
  const cells = cellMatchers();
  const errors = counterSeries(REQUEST_METRICS.errors);
  const kind = SAMPLE_TAGS.errorKind;
  return {
    title: 'Errors',
    collapsed: false,
    panels: [
      {
        type: 'timeseries',
        title: `Failed requests/s by ${kind}`,
        description: describe(
          REQUEST_METRICS.errors,
          ' Mean over the last minute, counting a burst that arrived as one sample (k6 pushes a counter only when ' +
          'it changed; rate() would show nothing).',
        ),
        queries: [{ expr: perSecondOverMinute(errors, cells, [kind]), legend: `{{${kind}}}` }],
        unit: 'reqps',
        min: 0,
        stack: true,
        w: HALF,
        h: 8,
      },
      {
        type: 'bargauge',
        title: `Failed requests by ${kind} and cell`,
        description: `${describe(REQUEST_METRICS.errors)} Totals over the time range.`,
        queries: [
          { expr: totalOverRange(errors, cells, ['cell', kind]), legend: `{{cell}} {{${kind}}}`, instant: true },
        ],
        unit: 'short',
        min: 0,
        w: HALF,
        h: 8,
      },
      failedSharePanel(),
      droppedIterationsPanel(),
      scrapeSuccessPanel(),
    ],
  };
}

/** The share of requests that failed, by error kind, out of the requests ended. */
function failedSharePanel(): PanelSpec {
  // Every request, warm-up and transition included: k6's calls to the agent carry no phase tag.
  const allWork = cellMatchers({}, false);
  const errors = counterSeries(REQUEST_METRICS.errors);
  const kind = SAMPLE_TAGS.errorKind;
  const ended = series(K6_BUILTIN_SERIES.httpReqs, [...allWork, AGENT_CALLS]);
  return {
    // The LLM server's status classes are error kinds (http_429, http_4xx, http_5xx, http_other; connection: no
    // HTTP response): k6's own http_reqs status is the measuring agent's 200, never the server's.
    type: 'timeseries',
    title: `Share of requests failed, by ${kind}`,
    description: describe(
      REQUEST_METRICS.errors,
      ` Divided by the requests ended (k6 built-in http_reqs of its calls to the measuring agent, one per LLM ` +
      `request), both cumulative from test start. The LLM server's HTTP status shows here as a kind: http_429, ` +
      `http_4xx, http_5xx, http_other; connection means no HTTP response. k6's own status label is the agent's ` +
      `200, never the server's.`,
    ),
    queries: [{ expr: `sum by (${kind}) (${series(errors, allWork)}) / scalar(sum(${ended}))`, legend: `{{${kind}}}` }],
    unit: 'percentunit',
    min: 0,
    w: THIRD,
    h: 8,
  };
}

/** k6's dropped iterations: load the client or the schedule, not the server, held back. */
function droppedIterationsPanel(): PanelSpec {
  return {
    type: 'timeseries',
    title: 'Dropped iterations/s',
    description:
      "k6 built-in dropped_iterations: requests an arrival-rate executor could not start for lack of VUs, or a " +
      "cell's requests cut when it overran its slot. Non-zero means the client or the schedule, not the " +
      "server, limited the load. Mean over the last minute; 0 while the run has VUs and dropped nothing (k6 " +
      "sends no series until the first drop).",
    queries: [
      {
        expr: orZerosLike(
          perSecondOverMinute(K6_BUILTIN_SERIES.droppedIterations, testidMatchers()),
          `sum(${series(K6_BUILTIN_SERIES.vus, testidMatchers())})`,
        ),
        legend: 'dropped/s (1 min mean)',
      },
    ],
    unit: 'short',
    min: 0,
    w: THIRD,
    h: 8,
  };
}

/** Whether the monitor could read the server's metrics endpoint. */
function scrapeSuccessPanel(): PanelSpec {
  return {
    type: 'timeseries',
    title: 'Server metrics scrape success',
    description: describe(SERVER_METRICS.scrapeOk),
    queries: [
      { expr: `min(${series(rateSeries(SERVER_METRICS.scrapeOk), testidMatchers())})`, legend: 'scrape ok' },
    ],
    unit: 'percentunit',
    min: 0,
    max: 1,
    w: THIRD,
    h: 8,
  };
}

export function nativeHistogramRow(): RowSpec {
  const trends = Object.values(REQUEST_METRICS).filter((d: MetricDefinition) => d.kind === 'trend');
  return {
    title: 'Native histograms (K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM=true)',
    collapsed: true,
    panels: trends.map((def) => ({
      type: 'timeseries',
      title: `${def.name} p50 / p95 / p99 (native histogram)`,
      description: describe(
        def,
        ' Quantiles merged exactly across runners over the rate window. Empty unless k6 sends Trends as native ' +
        'histograms and Prometheus runs with native histograms enabled.',
      ),
      queries: [0.5, 0.95, 0.99].map((q) => ({
        expr: histogramQuantile(q, nativeHistogramSeries(def), cellMatchers(), BY_CELL),
        legend: `{{cell}} p${Math.round(q * 100)}`,
      })),
      unit: grafanaUnit(def),
      min: 0,
      w: HALF,
      h: 8,
    })),
  };
}
