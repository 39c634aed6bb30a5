// Tests for deploy/grafana: the dashboard, its PromQL names, its panels and the use-case limits. Runs in Node (vitest).
// The committed dashboard equals the generator's output, every PromQL name follows from lib/metrics.ts through k6's
// remote-write naming, panels are well-formed and the use-case limits are drawn.

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { REQUEST_METRICS } from '../../lib/metrics';
import type { MetricDefinition } from '../../lib/metric-definition';
import { USE_CASES } from '../../thresholds/use-cases';
import { buildDashboard, renderDashboardJson, type Dashboard, type Panel } from '../../deploy/grafana/dashboard';
import { AGENT_CALL_NAME, K6_BUILTIN_SERIES } from '../../deploy/grafana/k6-builtins';
import { RW_TREND_STATS_ENV, statSuffix } from '../../deploy/grafana/remote-write';
import { renderRecordingRules } from '../../deploy/prometheus/recording-rules';
import { DOCUMENTED_TREND_STATS, expectedSeriesNames, isAllowedName as isAllowed, metricNamesIn } from './promql-names';

const root = new URL('../../', import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, root), 'utf8');

function allPanels(d: Dashboard): Panel[] {
  return d.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
}

const committed = JSON.parse(read('deploy/grafana/k6-llm-capacity.json')) as Dashboard;
const panels = allPanels(committed);
const queries = panels.flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr })));

describe('generated files', () => {
  it('the committed dashboard is exactly what the generator writes (run npm run dashboard)', () => {
    expect(read('deploy/grafana/k6-llm-capacity.json')).toBe(renderDashboardJson());
  });

  it('the committed recording rules are exactly what the generator writes (run npm run dashboard)', () => {
    expect(read('deploy/prometheus/recording-rules.yml')).toBe(renderRecordingRules());
  });

  it('the generator expects the documented trend stats', () => {
    expect(RW_TREND_STATS_ENV).toBe(DOCUMENTED_TREND_STATS);
    expect(committed.description).toContain(DOCUMENTED_TREND_STATS);
  });
});

describe('remote-write naming', () => {
  it('maps k6 stat names to series suffixes', () => {
    expect(statSuffix('p(99)')).toBe('p99');
    expect(statSuffix('p(99.9)')).toBe('p999');
    expect(statSuffix('p(50)')).toBe('p50');
    expect(statSuffix('avg')).toBe('avg');
  });

  it('finds metric names in PromQL and skips functions, labels, strings and ranges', () => {
    expect(metricNamesIn(
      'sum by (cell, le) (rate(k6_llm_ttft_seconds{cell=~"a|b", x="rate(y)"}[$__rate_interval])) / on(cell) ' +
      'group_left k6_vus or vector(0)',
    )).toEqual(['k6_llm_ttft_seconds', 'k6_vus']);
    expect(metricNamesIn('sum(vllm:num_requests_running{job=~"$server_job"})')).toEqual(['vllm:num_requests_running']);
  });
});

describe('dashboard: schema, datasource, queries and names', () => {

  it('uses schemaVersion 39 or later and the DS_PROMETHEUS datasource', () => {
    expect(committed.schemaVersion).toBeGreaterThanOrEqual(39);
    expect(committed.__inputs).toContainEqual(
      expect.objectContaining({ name: 'DS_PROMETHEUS', type: 'datasource', pluginId: 'prometheus' }),
    );
    expect(committed.templating.list.find((v) => v.name === 'DS_PROMETHEUS')?.type).toBe('datasource');
  });

  it('every panel and every query has the datasource, and panel ids are unique', () => {
    for (const p of panels) {
      expect(p.datasource, p.title).toEqual({ type: 'prometheus', uid: '${DS_PROMETHEUS}' });
      for (const t of p.targets ?? [])
        expect(t.datasource, p.title).toEqual({ type: 'prometheus', uid: '${DS_PROMETHEUS}' });
    }
    const ids = panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.every((id) => Number.isInteger(id) && id > 0)).toBe(true);
  });

  it('every panel that is not a row has at least one query with a unique refId', () => {
    for (const p of panels.filter((x) => x.type !== 'row')) {
      const refs = (p.targets ?? []).map((t) => t.refId);
      expect(refs.length, p.title).toBeGreaterThan(0);
      expect(new Set(refs).size, p.title).toBe(refs.length);
    }
  });

  it('every PromQL expression reads only names derived from lib/metrics.ts, k6 built-ins or raw server metrics', () => {
    expect(queries.length).toBeGreaterThan(40);
    for (const q of queries) {
      const names = metricNamesIn(q.expr);
      expect(names.length, `${q.panel}: ${q.expr}`).toBeGreaterThan(0);
      for (const name of names) expect(isAllowed(name), `${q.panel}: ${name} in ${q.expr}`).toBe(true);
    }
  });

  it('variable queries read derived names and offer testid, cell, use_case, context and concurrency', () => {
    const vars = committed.templating.list;
    expect(vars.map((v) => v.name)).toEqual(
      expect.arrayContaining(['testid', 'cell', 'use_case', 'context', 'concurrency']),
    );
    for (const v of vars.filter((x) => x.type === 'query')) {
      const m = /^label_values\((.+),\s*([a-z_]+)\)$/.exec(v.query);
      expect(m, v.name).not.toBeNull();
      for (const name of metricNamesIn(m![1]!)) expect(isAllowed(name), `${v.name}: ${name}`).toBe(true);
      expect(v.datasource).toEqual({ type: 'prometheus', uid: '${DS_PROMETHEUS}' });
    }
  });
});

describe('dashboard: the request metrics, units, grid and rows', () => {
  it('reads every request metric of lib/metrics.ts somewhere', () => {
    const used = new Set(queries.flatMap((q) => metricNamesIn(q.expr)));
    for (const def of Object.values(REQUEST_METRICS) as MetricDefinition[]) {
      // llm_request_ok reaches Prometheus as a ratio per tag set; the variables use it
      if (def.kind === 'rate') continue;
      expect(expectedSeriesNames(def).some((n) => used.has(n)), def.name).toBe(true);
    }
  });

  it("reads k6's http_reqs only as its calls to the measuring agent (one per LLM request), never by status", () => {
    // k6 never sees the LLM server: its HTTP samples are the agent's loopback calls (status 200 whenever the agent
    // answered), the bench's control calls and the monitor's scrapes. lib/k6/llm.ts runs in k6 only, so its tag
    // value is read from the source.
    expect(read('lib/k6/llm.ts')).toContain(`export const AGENT_CALL_NAME = '${AGENT_CALL_NAME}';`);
    const name = K6_BUILTIN_SERIES.httpReqs;
    const reads = queries.filter((q) => metricNamesIn(q.expr).includes(name));
    // Requests finished, success rate, requests per second, success rate by cell, the cells table, failed share.
    expect(reads.length).toBeGreaterThanOrEqual(6);
    for (const q of reads) {
      const uses = [...q.expr.matchAll(new RegExp(`${name}(\\{[^}]*\\})?`, 'g'))];
      expect(uses.length, q.panel).toBe(metricNamesIn(q.expr).filter((n) => n === name).length);
      for (const u of uses) expect(u[1] ?? '', `${q.panel}: ${q.expr}`).toContain(`name="${AGENT_CALL_NAME}"`);
      expect(q.expr, q.panel).not.toMatch(/\bstatus\b/);
    }
    expect(panels.map((p) => p.title).filter((t) => /HTTP status|k6 read lag/.test(t))).toEqual([]);
  });

  it('draws time Trends in seconds and speeds in tok/s', () => {
    for (const p of panels.filter((x) => x.type === 'timeseries')) {
      const names = (p.targets ?? []).flatMap((t) => metricNamesIn(t.expr));
      const unit = (p.fieldConfig as { defaults: { unit: string } }).defaults.unit;
      if (names.some((n) => /^k6_llm_(ttft|ttfc|itl|tpot|e2e)_/.test(n))) expect(unit, p.title).toBe('s');
      if (names.some((n) => /^k6_llm_(decode|prefill)_speed/.test(n))) expect(unit, p.title).toBe('suffix: tok/s');
    }
  });

  it('places panels on the 24-column grid without overlaps', () => {
    const open = committed.panels; // collapsed rows keep theirs inside
    for (const p of open) expect(p.gridPos.x + p.gridPos.w, p.title).toBeLessThanOrEqual(24);
    for (let i = 0; i < open.length; i++) {
      for (let j = i + 1; j < open.length; j++) {
        const a = open[i]!.gridPos;
        const b = open[j]!.gridPos;
        const overlap = a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
        expect(overlap, `${open[i]!.title} / ${open[j]!.title}`).toBe(false);
      }
    }
  });

  it('has the rows of the brief', () => {
    const rows = committed.panels.filter((p) => p.type === 'row').map((p) => p.title);
    expect(rows.slice(0, 7)).toEqual([
      'Overview', 'Latency', 'Speed', 'Per cell', 'Use-case limits', 'Server', 'Errors',
    ]);
  });
});

describe('use-case limits', () => {
  type Steps = { color: string; value: number | null }[];
  const stepsOf = (p: Panel): Steps =>
    (p.fieldConfig as { defaults: { thresholds: { steps: Steps } } }).defaults.thresholds.steps;
  const dashed = (p: Panel): boolean =>
    (p.fieldConfig as { defaults: { custom: { thresholdsStyle: { mode: string } } } }).defaults.custom.thresholdsStyle
      .mode === 'dashed';

  it('draws one dashed line per use-case limit, at the limit in Prometheus units (ms -> s)', () => {
    let count = 0;
    for (const uc of USE_CASES) {
      for (const limit of uc.limits) {
        const p = panels.find((x) => x.title === `${uc.title}: ${limit.label}`);
        expect(p, `${uc.id} ${limit.label}`).toBeDefined();
        const def = REQUEST_METRICS[limit.metric];
        const expected = def.isTime ? limit.value / 1000 : limit.value;
        expect(stepsOf(p!).map((s) => s.value)).toEqual([null, expected]);
        expect(dashed(p!)).toBe(true);
        expect(p!.targets!.every((t) => t.expr.includes(`use_case="${uc.id}"`))).toBe(true);
        count += 1;
      }
    }
    expect(count).toBe(USE_CASES.flatMap((u) => u.limits).length);
  });

  it('the TTFT, e2e and decode-speed panels carry every distinct limit of the use-case table, ' +
    'in the panel unit', () => {
    const values = (title: string): (number | null)[] =>
      stepsOf(panels.find((p) => p.title === title)!).map((s) => s.value);
    // Each panel's threshold steps: a base step (null), then the table's distinct limit values, ascending.
    const limitsOf = (metric: string, toPanelUnit: (v: number) => number): (number | null)[] => [
      null,
      ...[
        ...new Set(
          USE_CASES.flatMap((u) => u.limits)
            .filter((l) => l.metric === metric)
            .map((l) => toPanelUnit(l.value)),
        ),
      ].sort((a, b) => a - b),
    ];
    const seconds = (ms: number): number => ms / 1000;
    expect(values('TTFT p50 / p95 / p99')).toEqual(limitsOf('ttft', seconds));
    expect(values('End-to-end latency p50 / p95 / p99')).toEqual(limitsOf('e2e', seconds));
    expect(values('Per-user decode speed (mean, p50)')).toEqual(limitsOf('decodeSpeed', (v) => v));
    // The table has limits of each kind, so the panels cannot pass by having none.
    for (const metric of ['ttft', 'e2e', 'decodeSpeed'])
      expect(limitsOf(metric, seconds).length, metric).toBeGreaterThan(1);
  });
});

describe('buildDashboard', () => {
  it('is deterministic', () => {
    expect(JSON.stringify(buildDashboard())).toBe(JSON.stringify(buildDashboard()));
  });
});
