// The dashboard's template variables (datasource, testid, the cell-tag filters, the server's scrape job). Runs in Node.

import type * as cog from '@grafana/grafana-foundation-sdk/cog';
import * as sdk from '@grafana/grafana-foundation-sdk/dashboard';
import { REQUEST_METRICS } from '../../lib/metrics';
import { DATASOURCE } from './datasource';
import { PROMETHEUS_UP } from './k6-builtins';
import { series, testidMatchers, FILTER_TAGS, TESTID_TAG } from './promql';
import { rateSeries } from './remote-write';

/** The variable that selects the server's scrape job(s), for the raw server panels (rows-server.ts). */
export const SERVER_JOB_VAR = 'server_job';

function queryVariable(
  name: string, label: string, query: string,
  opts: { multi: boolean; allValue?: string; sort: sdk.VariableSort; description: string },
): sdk.QueryVariableBuilder {
  const b = new sdk.QueryVariableBuilder(name)
    .label(label)
    .description(opts.description)
    .datasource(DATASOURCE)
    .query(query)
    .definition(query)
    .regex('')
    .refresh(sdk.VariableRefresh.OnTimeRangeChanged)
    .sort(opts.sort)
    .multi(opts.multi)
    .includeAll(opts.allValue !== undefined)
    .hide(sdk.VariableHide.DontHide);
  if (opts.allValue !== undefined) b.allValue(opts.allValue);
  return b;
}

/** The template variables: the datasource, testid, the cell-tag filters and the scrape job of the server. */
export function templateVariables(): cog.Builder<sdk.VariableModel>[] {
  const anchor = rateSeries(REQUEST_METRICS.requestOk);
  const anchorInRun = series(anchor, testidMatchers());
  const vars: cog.Builder<sdk.VariableModel>[] = [
    new sdk.DatasourceVariableBuilder('DS_PROMETHEUS')
      .label('Prometheus')
      .description('The Prometheus that receives k6 remote write (and scrapes the server).')
      .type('prometheus')
      .regex('')
      .multi(false)
      .includeAll(false)
      .hide(sdk.VariableHide.DontHide),
    queryVariable(TESTID_TAG, 'Test id', `label_values(${anchor}, ${TESTID_TAG})`, {
      multi: false,
      sort: sdk.VariableSort.AlphabeticalDesc,
      description: 'The --tag testid=... of the run; newest first when test ids start with a timestamp.',
    }),
  ];
  // cell is on every request sample, so "All" may require it ('.+'); use_case and the others may be absent on some
  // cells ('.*').
  const allValues: Partial<Record<(typeof FILTER_TAGS)[number], string>> = { cell: '.+' };
  const numeric = new Set(['context', 'concurrency']);
  for (const tag of FILTER_TAGS) {
    const label = tag.replace('_', ' ').replace(/^./, (c) => c.toUpperCase());
    vars.push(
      queryVariable(tag, label, `label_values(${anchorInRun}, ${tag})`, {
        multi: true,
        allValue: allValues[tag] ?? '.*',
        sort: numeric.has(tag) ? sdk.VariableSort.NumericalAsc : sdk.VariableSort.AlphabeticalAsc,
        description: `Cell tag ${tag}.`,
      }),
    );
  }
  vars.push(
    queryVariable(SERVER_JOB_VAR, 'Server scrape job', `label_values(${PROMETHEUS_UP}, job)`, {
      multi: true,
      allValue: '.*',
      sort: sdk.VariableSort.AlphabeticalAsc,
      description: 'Prometheus scrape job(s) of the inference server and DCGM exporter, for the raw ' +
        'vllm:/sglang:/DCGM_ panels.',
    }),
  );
  return vars;
}
