// The dashboard's Open-loop row as panel specs: the rate and trace scripts' schedules against what their sender did.
// Runs in Node. Latency from the intended send beside latency from the send shows what a late sender would hide; the
// achieved rate beside the plan's says whether the load offered was the load planned (analysis/open-loop.ts judges the
// same).

import { ARRIVAL_METRICS, REQUEST_METRICS } from '../../lib/metrics';
import { BY_CELL, describe, THIRD, type PanelSpec, type RowSpec } from './panel-spec';
import { cellMatchers, series, trendPercentile } from './promql';
import { gaugeSeries, grafanaUnit } from './remote-write';
import { LATENCY_STATS, percentileQueries } from './rows-requests';

function intendedPanel(): PanelSpec {
  const cells = cellMatchers();
  const p99 = (def: typeof REQUEST_METRICS.ttft | typeof ARRIVAL_METRICS.ttftIntended) =>
    trendPercentile(def, 'p(99)', cells, BY_CELL, 'live');
  return {
    type: 'timeseries',
    title: 'TTFT p99: from the intended send and from the send',
    description: describe(
      ARRIVAL_METRICS.ttftIntended,
      ' Rate cells only. The two lines part when requests went late: the first is what a user arriving on schedule ' +
        'saw, the second what a late sender would report (coordinated omission).',
    ),
    queries: [
      { expr: p99(ARRIVAL_METRICS.ttftIntended), legend: '{{cell}} from intended send' },
      {
        expr: `${p99(REQUEST_METRICS.ttft)} and on (cell) ${p99(ARRIVAL_METRICS.ttftIntended)}`,
        legend: '{{cell}} from send',
      },
    ],
    unit: grafanaUnit(ARRIVAL_METRICS.ttftIntended),
    min: 0,
    w: THIRD,
    h: 8,
  };
}

function achievedPanel(): PanelSpec {
  const def = ARRIVAL_METRICS.achievedRate;
  return {
    type: 'timeseries',
    title: 'Achieved rate (per cell, at its end)',
    description: describe(
      def,
      ' Compare it with the cell\'s offered rate (its id ends in r<rate>, 0_5 for 0.5); more than 2% short is ' +
        'flagged in the report.',
    ),
    queries: [
      // Each runner's sender sets its share's rate (its own series, tag instance_id): the cell's is their sum.
      { expr: `sum by (cell) (${series(gaugeSeries(def), cellMatchers())})`, legend: '{{cell}} achieved req/s' },
    ],
    unit: grafanaUnit(def),
    min: 0,
    w: THIRD,
    h: 8,
  };
}

/**
 * The rate and trace scripts' cells: their sender's schedule lag, latency from the intended send, the achieved rate.
 */
export function openLoopRow(): RowSpec {
  const lag = ARRIVAL_METRICS.scheduleLag;
  return {
    title: 'Open-loop load (rate and trace cells)',
    collapsed: false,
    panels: [
      {
        type: 'timeseries',
        title: 'Schedule lag p50 / p95 / p99',
        description: describe(
          lag,
          ' Over the report\'s limit (plan rate.lagLimitMs, default 10 ms) the cell is flagged.',
        ),
        queries: percentileQueries(lag, LATENCY_STATS),
        unit: grafanaUnit(lag),
        min: 0,
        w: THIRD,
        h: 8,
      },
      intendedPanel(),
      achievedPanel(),
    ],
  };
}
